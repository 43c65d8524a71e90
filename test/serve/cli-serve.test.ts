// `rwx serve` as a command, in-process: config from the environment, --kubeconfig to the simulator, Bolt in HTTP
// mode owning PORT with /healthz /readyz /metrics mounted on it, and a clean stop on SIGTERM (exit 0).
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { ManualClock } from '../../src/domain/clock.js';
import { freePort } from '../support/free-port.js';
import { until } from '../support/until.js';
import { REDIS_URL, openWorld, type World } from '../support/world.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

// The cni-sandbox cluster on a clock that stands still, the fake Slack, the product's group timers.
const open = async (): Promise<World> =>
  (world = await openWorld({
    name: 'test-cli',
    scenario: 'scenarios/cni-sandbox.yaml',
    clock: new ManualClock(Date.parse('2026-11-30T09:15:00Z')),
    timers: { groupWait: '30s', groupInterval: '5m' },
  }));

/** RWX_SLACK_REQUEST_TIMEOUT where a hung Slack call holds the start-up. */
const SLACK_REQUEST_TIMEOUT_MS = 1_000;

describe('rwx serve', () => {
  it('becomes ready, serves metrics on PORT next to /slack/events, and exits 0 on SIGTERM', async () => {
    const w = await open();
    const port = await freePort();
    let err = '';
    const io = {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (err += s) },
      stdin: new PassThrough(),
      env: w.env({ PORT: String(port), LOG_LEVEL: 'silent' }),
    };
    const exit = main(['serve', '--kubeconfig', w.sim.kubeconfigPath], io);
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
    const w = await open();
    const { slack } = w;
    // Slack holds the start-up: the first auth.test never answers (the attempt's deadline, RWX_SLACK_REQUEST_TIMEOUT,
    // ends it; 1 s here instead of the 10 s default, so the stop does not wait out the default).
    slack.hang('auth.test', 1);
    const port = await freePort();
    const env = w.env({
      PORT: String(port),
      LOG_LEVEL: 'silent',
      RWX_SLACK_REQUEST_TIMEOUT: `${SLACK_REQUEST_TIMEOUT_MS}ms`,
    });
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, stdin: new PassThrough(), env };
    const before = process.listenerCount('SIGTERM');
    const exit = main(['serve', '--kubeconfig', w.sim.kubeconfigPath], io);
    await until(() => process.listenerCount('SIGTERM') > before, 'the SIGTERM handler');
    await until(() => slack.callsOf('auth.test').length > 0, 'start-up waiting on Slack');
    // The signal arrives while the hung auth.test still holds the start-up.
    expect(Date.now()).toBeLessThan(slack.callsOf('auth.test')[0]!.at + SLACK_REQUEST_TIMEOUT_MS);
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

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
