// Readiness that does not lie, liveness that reflects the process only: `rwx serve` (runServe, the Bolt app on)
// against the simulator, the fake Slack (Web API + Socket Mode) and Redis, with each dependency failing in turn.
// /readyz names what is missing; /healthz stays 200 throughout, so the kubelet never restarts a bot that only
// needs to wait.
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '@rwx/kube-sim';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { connect } from '../../src/kube/index.js';
import type { RunningServe } from '../../src/serve/app.js';
import { runServe } from '../../src/serve/main.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { startFakeSocketMode, type FakeSocketMode } from '../support/fake-socket-mode.js';
import { freePort } from '../support/free-port.js';
import { ownRedis, redisServerTool } from '../faults/own-redis.js';
import { until } from '../support/until.js';
import { openWorld } from '../support/world.js';
import { memoryLogger } from './harness.js';

const BACKOFF = { initialMs: 50, maxMs: 200 };
const OUTAGE_MS = 60_000;
let skipped = 0;
/** Ends the fake Slack's outages now. */
const endOutages = () => (skipped += OUTAGE_MS);

interface Bot {
  serve: RunningServe;
  sim: Simulator;
  slack: FakeSlack;
  socket?: FakeSocketMode;
  lines: string[];
  get(path: string): Promise<{ status: number; text: string }>;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** Starts the bot in `mode` on the node-fault scenario; `before` runs once the fakes exist, before the bot. */
async function bot(
  mode: 'socket' | 'http',
  opts: { redisUrl?: string; before?: (b: Pick<Bot, 'slack' | 'sim'>) => void } = {},
): Promise<Bot> {
  const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
  const { redisUrl } = opts;
  const world = await openWorld({
    name: 'test-ready',
    scenario: 'scenarios/node-fault.yaml',
    clock,
    // The fake Slack's clock runs ahead when a test ends an outage (endOutages), so no test waits for one to pass.
    slackNow: () => Date.now() + skipped,
    ...(redisUrl ? { redisUrl: () => redisUrl, ownRedis: true } : {}),
  });
  cleanups.push(() => world.close());
  const { sim, slack } = world;
  const socket = mode === 'socket' ? await startFakeSocketMode() : undefined;
  if (socket) {
    slack.socketModeUrl = socket.url;
    cleanups.push(() => socket.close());
  }
  opts.before?.({ slack, sim });
  const port = await freePort();
  const config = loadConfig({
    env: world.env({ ...(mode === 'socket' ? { SLACK_APP_TOKEN: 'xapp-test' } : {}), PORT: String(port) }),
  });
  const { log, lines } = memoryLogger();
  const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
  const serve = await runServe(config, log, {
    source: new KubeClusterSource(conn),
    port,
    parts: { clock, tickMs: 0, reflector: { backoffInitialMs: 50 } },
    slackBackoff: BACKOFF,
  });
  cleanups.push(() => serve.stop());
  const get = async (path: string) => {
    const r = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: r.status, text: await r.text() };
  };
  return { serve, sim, slack, ...(socket ? { socket } : {}), lines, get };
}

/** Waits until /readyz answers `status` and returns its body. */
async function readyz(b: Bot, status: number, what: string): Promise<string> {
  let last = '';
  await until(async () => {
    const r = await b.get('/readyz');
    last = r.text;
    return r.status === status;
  }, what).catch((e: Error) => {
    throw new Error(`${e.message}; last /readyz: ${last}`);
  });
  return last;
}

describe('readiness names the missing dependency; liveness reflects the process only', () => {
  it('Socket Mode: not ready while Slack is unreachable at start-up, ready once connected, again after a drop', async () => {
    const outage = (slack: FakeSlack) => slack.outage(OUTAGE_MS, { methods: ['apps.connections.open'] });
    const b = await bot('socket', { before: ({ slack }) => outage(slack) });
    await b.serve.watcher.waitSynced(10_000);
    // Between attempts it says why the last one failed (during one: "Socket Mode connecting").
    const failed = /^slack: Socket Mode connection failed \(.*503.*\); retrying\n$/;
    await until(async () => failed.test((await b.get('/readyz')).text), 'the reason on /readyz');
    expect((await b.get('/readyz')).status).toBe(503);
    expect((await b.get('/healthz')).status).toBe(200);
    endOutages();
    await readyz(b, 200, 'ready once the outage is over');
    expect(b.slack.answered(503).length).toBeGreaterThan(0);
    // The connection is cut while Slack is out again: not ready until the bot has reconnected by itself.
    outage(b.slack);
    const [first] = b.socket!.connections;
    b.socket!.drop(first!.id);
    expect(await readyz(b, 503, 'not ready after the drop')).toMatch(/^slack: Socket Mode /);
    expect((await b.get('/healthz')).status).toBe(200);
    endOutages();
    await readyz(b, 200, 'ready after reconnecting');
    expect(b.socket!.connections.length).toBe(2);
  });

  it('HTTP mode: not ready until auth.test has succeeded, naming it', async () => {
    const b = await bot('http', { before: ({ slack }) => slack.outage(OUTAGE_MS, { methods: ['auth.test'] }) });
    await b.serve.watcher.waitSynced(10_000);
    expect(await b.get('/readyz')).toEqual({
      status: 503,
      text: expect.stringMatching(/^slack: auth\.test failed \(.*\); retrying\n$/),
    });
    expect((await b.get('/healthz')).status).toBe(200);
    endOutages();
    await readyz(b, 200, 'ready once auth.test succeeded');
  });

  it('a wrong bot token fails the start-up with its reason (retrying would not help)', async () => {
    await expect(
      bot('http', { before: ({ slack }) => slack.platformError('auth.test', 'invalid_auth', 100) }),
    ).rejects.toThrow(/invalid_auth/);
  });

  it.each(['refused', 'unavailable'] as const)('API down (%s): not ready naming the API, alive', async (how) => {
    const b = await bot('http');
    await readyz(b, 200, 'ready');
    b.sim.faults.down(how);
    const body = await readyz(b, 503, 'not ready while the API is down');
    expect(body).toContain('kubernetes: API server unreachable');
    expect((await b.get('/healthz')).status).toBe(200);
    b.sim.faults.up();
    await readyz(b, 200, 'ready again once the API answers');
  });

  it('Redis down: not ready naming Redis, alive; ready again within seconds of Redis answering', async () => {
    redisServerTool.check();
    const redis = await ownRedis();
    await redis.start();
    cleanups.push(() => redis.stop());
    const b = await bot('http', { redisUrl: redis.url });
    await readyz(b, 200, 'ready');
    await redis.stop('SIGKILL');
    const body = await readyz(b, 503, 'not ready while Redis is down');
    expect(body).toMatch(/^redis: /m);
    expect((await b.get('/healthz')).status).toBe(200);
    await redis.start();
    const back = Date.now();
    await readyz(b, 200, 'ready again');
    // Not a timing assertion on the bot: a bound on the test, reported by its failure message.
    expect(Date.now() - back).toBeLessThan(10_000);
  });
});
