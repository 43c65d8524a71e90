// `rwx serve` as a command, in-process: config from the environment, --kubeconfig to the simulator, Bolt in HTTP
// mode owning PORT with /healthz /readyz /metrics mounted on it, and a clean stop on SIGTERM (exit 0).
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { ManualClock } from '../../src/domain/clock.js';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { cleanRedis, REDIS_URL, until } from './harness.js';
import { freePort } from '../support/free-port.js';

let sim: Simulator | undefined;
let slack: FakeSlack | undefined;
const prefix = `rwx-test-cli-${process.pid}`;
afterEach(async () => {
  await sim?.stop();
  await slack?.close();
  await cleanRedis(prefix);
});

describe('rwx serve', () => {
  it('becomes ready, serves metrics on PORT next to /slack/events, and exits 0 on SIGTERM', async () => {
    sim = await startSimulator({
      scenario: 'scenarios/cni-sandbox.yaml',
      clock: new ManualClock(Date.parse('2026-11-30T09:15:00Z')),
    });
    slack = await startFakeSlack();
    const port = await freePort();
    let err = '';
    const io = {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (err += s) },
      stdin: new PassThrough(),
      env: {
        SLACK_BOT_TOKEN: 'xoxb-cli-test',
        SLACK_SIGNING_SECRET: 'secret',
        SLACK_CHANNEL: 'C0INCIDENT',
        SLACK_API_URL: slack.apiUrl,
        REDIS_URL,
        RWX_REDIS_PREFIX: prefix,
        PORT: String(port),
        LOG_LEVEL: 'silent',
      },
    };
    const exit = main(['serve', '--kubeconfig', sim.kubeconfigPath], io);
    const get = async (path: string) => {
      try {
        const r = await fetch(`http://127.0.0.1:${port}${path}`);
        return { status: r.status, text: await r.text() };
      } catch {
        return { status: 0, text: '' };
      }
    };
    await until(async () => (await get('/readyz')).status === 200, '/readyz 200');
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/metrics')).text).toContain('rwx_watch_restarts_total');
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    expect(err).toBe('');
    expect((await get('/healthz')).status).toBe(0); // the port is closed
  });

  it('handles SIGTERM from the start of the process: one arriving while it still starts stops it, exit 0', async () => {
    sim = await startSimulator({
      scenario: 'scenarios/cni-sandbox.yaml',
      clock: new ManualClock(Date.parse('2026-11-30T09:15:00Z')),
    });
    slack = await startFakeSlack();
    // Slack holds the start-up: the first auth.test never answers (the attempt's deadline ends it).
    slack.hang('auth.test', 1);
    const port = await freePort();
    const env = {
      SLACK_BOT_TOKEN: 'xoxb-cli-test',
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_CHANNEL: 'C0INCIDENT',
      SLACK_API_URL: slack.apiUrl,
      REDIS_URL,
      RWX_REDIS_PREFIX: prefix,
      PORT: String(port),
      LOG_LEVEL: 'silent',
    };
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, stdin: new PassThrough(), env };
    const before = process.listenerCount('SIGTERM');
    const exit = main(['serve', '--kubeconfig', sim.kubeconfigPath], io);
    await until(() => process.listenerCount('SIGTERM') > before, 'the SIGTERM handler');
    await until(() => slack!.callsOf('auth.test').length > 0, 'start-up waiting on Slack');
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    expect(process.listenerCount('SIGTERM')).toBe(before);
  }, 20_000);

  it('fails with one line naming the variable when configuration is missing', async () => {
    let err = '';
    const io = {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (err += s) },
      stdin: new PassThrough(),
      env: { REDIS_URL },
    };
    expect(await main(['serve'], io)).toBe(1);
    expect(err).toMatch(/SLACK_BOT_TOKEN/);
  });
});
