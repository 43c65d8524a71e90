// What a newcomer meets on a first run, as whole processes of the built CLI (bin/rwx.js): no Redis, a wrong
// kubeconfig, a bad RWX_* value, `rwx serve` without (or with refused) Slack tokens. Each ends the process by
// itself with exit 1 and one line on stderr that names the fix; never a stack trace, never a process left hanging
// (which only a child process can show: the demo with an unreadable scenario, and serve with a refused bot token,
// both hung after their error).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { ManualClock } from '../../src/domain/clock.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { freePort } from '../support/free-port.js';
import { openWorld, REDIS_URL } from '../support/world.js';

const BIN = fileURLToPath(new URL('../../bin/rwx.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rwx-first-run-'));
const T0 = Date.parse('2026-11-30T09:15:00Z');
/** Long enough for a start-up on a loaded machine; a process still running then has hung. */
const HUNG_MS = 30_000;

interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
  hung: boolean;
}

/** Runs bin/rwx.js with only `env` (and PATH, a HOME without a kubeconfig); kills it after HUNG_MS. */
function rwx(argv: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, LOG_LEVEL: 'silent', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, HUNG_MS);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout, hung });
    }),
  );
}

/** How long a demo may take to stop after Ctrl-C: it stops its simulators and bots and cleans its Redis keys. */
const STOP_MS = 15_000;

/**
 * Runs bin/rwx.js until its stdout matches `until`, then sends SIGINT (Ctrl-C) and waits for the process to end;
 * returns what it printed, and whether it ended within STOP_MS of the Ctrl-C.
 */
async function interruptWhen(argv: string[], env: Record<string, string>, until: RegExp) {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, LOG_LEVEL: 'silent', ...env },
  });
  let stdout = '';
  const closed = new Promise<void>((r) => child.on('close', () => r()));
  const seen = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), HUNG_MS);
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      if (until.test(stdout)) resolve(true);
    });
    void closed.then(() => (clearTimeout(timer), resolve(until.test(stdout))));
  });
  child.kill('SIGINT');
  const stopped = await Promise.race([closed.then(() => true), sleep(STOP_MS).then(() => false)]);
  child.kill('SIGKILL');
  await closed;
  return { seen, stopped, stdout };
}

/** The shape every first-run error has: the process ended by itself, exit 1, one line on stderr matching `line`. */
function expectOneLine(r: Run, line: RegExp): void {
  expect({ hung: r.hung, code: r.code, stdout: r.stdout }).toEqual({ hung: false, code: 1, stdout: '' });
  expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rwx demo, first run', () => {
  it('no Redis answering: names the URL and how to start one', async () => {
    expectOneLine(
      await rwx(['demo'], { REDIS_URL: 'redis://127.0.0.1:1' }),
      /^rwx demo: no Redis answers at .*start one/,
    );
  });

  // A password in REDIS_URL (or --redis) is the user's secret: the introduction names the Redis without it. Ctrl-C
  // ends the demo within seconds (the fleet demo polled on until its 3-minute deadline).
  it.each([[['demo']], [['demo', '--fleet']]])(
    '%j: no password printed; Ctrl-C ends it',
    async (argv) => {
      const url = REDIS_URL.replace('redis://', 'redis://:s3cret-pw@');
      const r = await interruptWhen(argv, { REDIS_URL: url }, /Slack is printed below/);
      expect({ seen: r.seen, stopped: r.stopped }).toEqual({ seen: true, stopped: true });
      expect(r.stdout).toMatch(/Redis redis:\/\/:\*\*\*\*@/);
      expect(r.stdout).not.toContain('s3cret-pw');
    },
    60_000,
  );

  it('a scenario file that cannot be read: one line, and the process ends (it hung with Redis open)', async () => {
    const r = await rwx(['demo', '--scenario', join(dir, 'no-such-scenario.yaml')], { REDIS_URL });
    expectOneLine(r, /^rwx demo: cannot read scenario .*no-such-scenario\.yaml/);
  });
});

describe('a wrong kubeconfig', () => {
  let tlsSim: Simulator;
  let plainSim: Simulator;
  beforeAll(async () => {
    tlsSim = await startSimulator({ scenario: 'scenarios/node-fault.yaml', clock: new ManualClock(T0), tls: true });
    plainSim = await startSimulator({ scenario: 'scenarios/node-fault.yaml', clock: new ManualClock(T0) });
  });
  afterAll(async () => {
    await tlsSim.stop();
    await plainSim.stop();
  });

  /** The TLS simulator's kubeconfig, rewritten by `edit`. */
  function kubeconfig(name: string, edit: (text: string) => string): string {
    const path = join(dir, name);
    writeFileSync(path, edit(readFileSync(tlsSim.kubeconfigPath, 'utf8')));
    return path;
  }

  // Each case: what is wrong, the flags, what the line must say.
  it.each([
    [
      'a file that does not exist',
      () => ['--kubeconfig', join(dir, 'nope')],
      /cannot read kubeconfig .*nope: no such file/,
    ],
    ['a file that is not a kubeconfig', () => ['--kubeconfig', BIN], /rwx\.js is not a kubeconfig/],
    [
      'a context it does not have',
      () => ['--kubeconfig', tlsSim.kubeconfigPath, '--context', 'prod'],
      /context "prod" not found in /,
    ],
    [
      'no certificate-authority for a self-signed server',
      () => ['--kubeconfig', kubeconfig('no-ca', (t) => t.replace(/^\s*certificate-authority-data:.*$/m, ''))],
      /cannot reach the API server at https:.*not trusted by the kubeconfig's certificate-authority\)$/,
    ],
    [
      'https:// to a port that speaks plain HTTP',
      () => [
        '--kubeconfig',
        kubeconfig('not-tls', (t) => t.replace(tlsSim.url, plainSim.url.replace('http:', 'https:'))),
      ],
      /cannot reach the API server at https:.*\(not TLS on that port: check the scheme and port of the server URL\)$/,
    ],
  ])('%s', async (_, flags, line) => {
    expectOneLine(await rwx(['triage', ...flags()]), line);
  });
});

describe('a bad RWX_* value', () => {
  const snapshot = join(dir, 'empty.json');
  beforeAll(() => writeFileSync(snapshot, '{"apiVersion":"v1","kind":"List","items":[]}'));

  // drain-check reads the bot's settings to find its open incidents; before, a malformed one fell back silently.
  it.each([
    [{ RWX_FLEET: 'maybe' }, /^rwx drain-check: invalid configuration: RWX_FLEET: "maybe" is not true or false$/],
    [
      { RWX_REDIS_PREFIX: 'rwx prod' },
      /^rwx drain-check: invalid configuration: RWX_REDIS_PREFIX: "rwx prod": expected/,
    ],
    [
      { RWX_FLEET: 'true', RWX_CLUSTER_NAME: 'Prod EU' },
      /RWX_CLUSTER_NAME: "Prod EU" must be a DNS label with RWX_FLEET/,
    ],
  ])('drain-check with %o', async (env, line) => {
    expectOneLine(await rwx(['drain-check', 'node-1', '--snapshot', snapshot], { REDIS_URL, ...env }), line);
  });

  it('serve names the variable and the form it expects', async () => {
    const env = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', SLACK_CHANNEL: 'C0123ABCD' };
    const r = await rwx(['serve'], { ...env, RWX_GROUP_WAIT: '5 minutes' });
    expectOneLine(
      r,
      /^rwx serve: invalid configuration: RWX_GROUP_WAIT: "5 minutes" is not a duration \(expected e\.g\. 30s, 5m\)$/,
    );
  });
});

describe('rwx serve and the Slack tokens', () => {
  it('without any: names each variable, where the tokens come from, and the demo that needs none', async () => {
    const r = await rwx(['serve'], { REDIS_URL });
    expectOneLine(r, /^rwx serve: 3 configuration problems: SLACK_BOT_TOKEN: required .*SLACK_CHANNEL: required/);
    expect(r.stderr).toContain('(the Slack app and its tokens: docs/slack-app.md; rwx demo runs without Slack)');
  });

  let slack: FakeSlack;
  /** Opens a world (the simulator, the fake Slack, a Redis prefix) and returns serve's environment in it. */
  async function world(): Promise<Record<string, string>> {
    const w = await openWorld({
      name: 'test-first-run',
      scenario: 'scenarios/node-fault.yaml',
      clock: new ManualClock(T0),
    });
    cleanups.push(() => w.close());
    slack = w.slack;
    // LOG_LEVEL silent as in rwx(): the error line is all the process may print.
    return w.env({ LOG_LEVEL: 'silent', PORT: String(await freePort()), KUBECONFIG: w.sim.kubeconfigPath });
  }

  it('HTTP mode, a bot token Slack refuses: names SLACK_BOT_TOKEN, and the process ends (its port kept it alive)', async () => {
    const env = await world();
    slack.platformError('auth.test', 'invalid_auth', 100);
    const r = await rwx(['serve'], { ...env, SLACK_SIGNING_SECRET: 'secret' });
    expectOneLine(
      r,
      /^rwx serve: Slack refused SLACK_BOT_TOKEN \(invalid_auth\): .*Bot User OAuth Token .*docs\/slack-app\.md/,
    );
  }, 60_000);

  it('Socket Mode, an app token Slack refuses: names SLACK_APP_TOKEN and its scope', async () => {
    const env = await world();
    slack.platformError('apps.connections.open', 'invalid_auth', 100);
    const r = await rwx(['serve'], { ...env, SLACK_APP_TOKEN: 'xapp-first-run' });
    expectOneLine(
      r,
      /^rwx serve: Slack refused SLACK_APP_TOKEN \(invalid_auth\): .*connections:write.*docs\/slack-app\.md/,
    );
  }, 60_000);
});
