// The log stream of a real `rwx serve` process is JSON lines only: the Slack SDK's own output (Bolt, web-api,
// Socket Mode) goes through pino like ours, also at debug level where the SDK is chattiest, and also for a genuine
// SDK warning (an event Bolt cannot classify). Child process on the compiled CLI, Socket Mode against the fake
// server, the simulator over HTTP, real Redis.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { LogLevel } from '@slack/bolt';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger, slackLogger } from '../../src/serve/log.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { startFakeSocketMode, type FakeSocketMode } from '../support/fake-socket-mode.js';
import { cleanRedis, REDIS_URL, until } from './harness.js';

const BIN = join(import.meta.dirname, '../../bin/rwx.js');
const prefix = `rwx-test-logs-${process.pid}`;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let sim: Simulator | undefined;
let slack: FakeSlack | undefined;
let socket: FakeSocketMode | undefined;
afterEach(async () => {
  await socket?.close();
  await sim?.stop();
  await slack?.close();
  await cleanRedis(prefix);
});

describe('slackLogger', () => {
  it('one JSON line per SDK call, at its level; pino decides the level, not the SDK', () => {
    const lines: string[] = [];
    const dest = new Writable({
      write(c: Buffer, _e, cb) {
        lines.push(c.toString());
        cb();
      },
    });
    const sdk = slackLogger(createLogger('info', dest as never), 'web-api');
    sdk.setLevel(LogLevel.DEBUG); // ignored
    sdk.setName('web-api:WebClient:3'); // ignored
    expect(sdk.getLevel()).toBe(LogLevel.INFO);
    sdk.debug('not shown');
    sdk.warn('chat.postMessage warnings:', ['missing_charset'], new Error('with xoxb-123-secret'));
    expect(lines.map((l) => JSON.parse(l) as object)).toEqual([
      expect.objectContaining({
        level: 40,
        component: 'slack',
        sdk: 'web-api',
        msg: 'chat.postMessage warnings: ["missing_charset"] with [REDACTED]',
      }),
    ]);
  });
});

describe('rwx serve log stream', () => {
  it('every line on stdout and stderr is one JSON object, the Slack SDK included', async () => {
    sim = await startSimulator({
      scenario: 'scenarios/cni-sandbox.yaml',
      clock: new ManualClock(Date.parse('2026-11-30T09:15:00Z')),
    });
    slack = await startFakeSlack();
    socket = await startFakeSocketMode();
    slack.socketModeUrl = socket.url;
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'serve', '--kubeconfig', sim.kubeconfigPath], {
      env: {
        PATH: process.env.PATH,
        SLACK_BOT_TOKEN: 'xoxb-logs-test-secret',
        SLACK_APP_TOKEN: 'xapp-1-logs-test-secret',
        SLACK_CHANNEL: 'C0INCIDENT',
        SLACK_API_URL: slack.apiUrl,
        REDIS_URL,
        RWX_REDIS_PREFIX: prefix,
        PORT: String(port),
        LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await socket.connected;
      await until(async () => {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return r?.status === 200;
      }, '/readyz 200');
      // An envelope Bolt cannot classify: it warns, through its logger (and never acks it).
      socket.send('interactive', { type: 'mystery' }, 1000).catch(() => undefined);
      await until(() => /Could not determine the type/.test(stdout + stderr), 'the SDK warning');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);

    const lines = (stdout + stderr).split('\n').filter((l) => l.trim() !== '');
    const notJson = lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(stderr).toBe(''); // the JSON stream is stdout; nothing else is written beside it
    const entries = lines.map((l) => JSON.parse(l) as { level: number; component?: string; sdk?: string; msg: string });
    const warning = entries.find((e) => /Could not determine the type/.test(e.msg));
    expect(warning).toMatchObject({ level: 40, component: 'slack', sdk: 'bolt' });
    // The SDK's debug output (Socket Mode frames, Web API calls) is there too, as JSON.
    expect(entries.filter((e) => e.component === 'slack' && e.level === 20).length).toBeGreaterThan(0);
    expect(stdout).not.toMatch(/logs-test-secret/);
  });
});
