// Redis stopped under a running `rwx serve` (its own redis-server, append-only file in a temp dir), then started
// again: one outage, with the checks every Redis row of the fault suite makes (redis-kill and redis-term tests).
// Liveness reflects the process (it stays 200, so the kubelet does not restart a bot that only has to wait),
// readiness names Redis; the process rides the outage out (no exit, no hang) and is back to work within 10 s of
// Redis answering; a change made in the cluster during the outage shows in the thread after. One root, no reply
// twice. The channel is told once (RWX_BLIND_AFTER 5s, or the test's): a notice during the outage when a tick ends in
// it, and the "could not reach Redis" line once it is back. The real CLI as a child process, the simulator in real time, the
// fake Slack.
import { expect } from 'vitest';
import type { FakeSlack } from '../support/fake-slack.js';
import type { FakeMessage } from '../support/fake-slack-methods.js';
import { until } from '../support/until.js';
import { type World, openWorld } from '../support/world.js';
import { startServeChild, type ServeChild } from './child.js';
import { ownRedis, redisServerTool, type OwnRedis } from './own-redis.js';
import { expectOneThread } from './thread.js';

/** RWX_BLIND_AFTER of the bench: how long without Redis before the channel is told. */
const BLIND_AFTER_MS = 5_000;
/**
 * How long an outage lasts unless a test needs longer: past RWX_BLIND_AFTER by a few ticks, so the notice is posted
 * during it on a machine that is not overloaded; the bot's Redis connection retries every 2 s at most (ioredis),
 * its BullMQ workers every second (src/store/ride-out.ts), so a longer outage ends the same way.
 */
export const OUTAGE_MS = BLIND_AFTER_MS + 3_000;

let world: World | undefined;
let redis: OwnRedis | undefined;
let child: ServeChild | undefined;
/** Stops what the last outage started (the test's afterEach). */
export async function cleanUp(): Promise<void> {
  child?.process.kill('SIGKILL');
  await child?.exited;
  await world?.close();
  await redis?.stop();
  child = world = redis = undefined;
}

const recovered = (s: FakeSlack, ts: string, pod: string): boolean =>
  s
    .replies(ts)
    .some((r) => JSON.stringify(r.blocks).includes(pod) && /recovered on its own/.test(JSON.stringify(r.blocks)));

/** What else an outage does. */
export interface OutageOptions {
  /**
   * Redis stops while a step is in flight (a root edit hangs in Slack, holding the incident lock and its BullMQ job),
   * and a second change is made during the outage: both show after it, in order.
   */
  inFlight?: boolean;
  /**
   * RWX_LOCK_TTL, shorter than the outage: the step in flight comes back with its job's lock expired, as with the
   * production TTL and a longer outage.
   */
  lockTtlMs?: number;
  /**
   * RWX_SLACK_REQUEST_TIMEOUT, shorter than lockTtlMs: with a step in flight, the hung edit gives up during the
   * outage (checked: Redis is gone before the edit's deadline), before the locks expire, as in production.
   */
  slackRequestTimeoutMs?: number;
  /** RWX_BLIND_AFTER, shorter than the outage (default BLIND_AFTER_MS): the channel is told once it is back. */
  blindAfterMs?: number;
}

/** One outage: `signal` stops Redis for `outageMs` with a change made in the cluster meanwhile. */
export async function outage(signal: NodeJS.Signals, outageMs = OUTAGE_MS, o: OutageOptions = {}): Promise<void> {
  redisServerTool.check();
  if (o.lockTtlMs) expect(outageMs).toBeGreaterThan(o.lockTtlMs);
  expect(outageMs).toBeGreaterThan(o.blindAfterMs ?? BLIND_AFTER_MS);
  const { c, own, w } = await startBench(o);
  const { sim, slack } = w;
  await until(() => slack.roots().length === 1 && slack.evidenceShown(slack.roots()[0]!.ts), 'the root');
  const root = slack.roots()[0]!;
  const told = (): FakeMessage[] => slack.messages.filter((m) => /could not reach Redis from/.test(m.text));
  const recover = (namespace: string, name: string) =>
    sim.apply({ set: [{ kind: 'Pod', namespace, name, fields: { 'status.phase': 'Running' } }] });
  if (o.inFlight) {
    slack.hang('chat.update', 1); // the edit for postgres-2's recovery is in flight when Redis goes
    recover('platform', 'postgres-2');
    await until(() => slack.callsOf('chat.update').length >= 1, 'the edit in flight', 20_000);
  }

  await own.stop(signal);
  const down = Date.now();
  if (o.inFlight && o.slackRequestTimeoutMs) {
    // The production order: Redis goes while the edit still hangs, so it gives up during the outage.
    expect(down).toBeLessThan(slack.callsOf('chat.update')[0]!.at + o.slackRequestTimeoutMs);
  }
  // The change happens while Redis is away (or, with a step in flight, a second one).
  await rideOut(c, down + outageMs, () =>
    o.inFlight ? recover('search', 'search-7c9d8f6b5-kccvl') : recover('platform', 'postgres-2'),
  );

  await own.start();
  const back = Date.now();
  await until(async () => (await c.status('/readyz')) === 200, 'ready again', 15_000);
  const readyAfter = Date.now() - back;
  await until(() => recovered(slack, root.ts, 'platform/postgres-2'), 'the change made during the outage', 15_000);
  if (o.inFlight) await expectSecondAfterFirst(slack, root.ts);
  const shownAfter = Date.now() - back;
  await until(() => told().length > 0, 'the channel told Redis is back', 15_000);
  const toldAfter = Date.now() - back;
  const notices = slack.roots().filter((m) => /cannot reach Redis/.test(m.text));
  const noticeAfter = notices[0] && Number(notices[0].ts.split('.')[0]) * 1000 - down;
  console.log(
    `redis ${signal} for ${outageMs} ms${o.inFlight ? ' (a step in flight)' : ''}: ready ${readyAfter} ms after Redis answered; ` +
      `the change${o.inFlight ? 's' : ''} shown ${shownAfter} ms after; ` +
      `notice ${noticeAfter === undefined ? 'not posted during the outage' : `about ${noticeAfter} ms after Redis went away`}; ` +
      `told it answers again ${toldAfter} ms after`,
  );
  // One notice at most (a tick must end within the outage to post it), and the line once, in its thread if any.
  expect(notices.length).toBeLessThanOrEqual(1);
  expect(told()).toHaveLength(1);
  if (notices[0]) expect(told()[0]!.thread_ts).toBe(notices[0].ts);
  expect(readyAfter).toBeLessThan(10_000);
  expect(shownAfter).toBeLessThan(10_000);
  expect(c.process.exitCode).toBeNull();
  expectOneThread(slack, root.ts, { noInventedChange: true }); // the Redis notice is not an incident's root
  await expectLogsAndMetrics(c, o);
}

// Its own redis-server with an append-only file, a world on it, and `rwx serve` in it (RWX_BLIND_AFTER of the bench).
async function startBench(o: OutageOptions): Promise<{ c: ServeChild; own: OwnRedis; w: World }> {
  const own = (redis = await ownRedis(true));
  await own.start();
  const w = (world = await openWorld({ name: 'fault-redis', redisUrl: () => own.url, ownRedis: true }));
  const c = (child = await startServeChild(
    w.sim.kubeconfigPath,
    w.env({
      RWX_BLIND_AFTER: `${o.blindAfterMs ?? BLIND_AFTER_MS}ms`,
      ...(o.lockTtlMs ? { RWX_LOCK_TTL: `${o.lockTtlMs}ms` } : {}),
      ...(o.slackRequestTimeoutMs ? { RWX_SLACK_REQUEST_TIMEOUT: `${o.slackRequestTimeoutMs}ms` } : {}),
    }),
  ));
  return { c, own, w };
}

// The second change shows, after the one in flight when Redis went.
async function expectSecondAfterFirst(slack: FakeSlack, ts: string): Promise<void> {
  await until(() => recovered(slack, ts, 'search/search-7c9d8f6b5-kccvl'), 'the second change', 15_000);
  const order = slack.replies(ts).map((r) => JSON.stringify(r.blocks));
  const first = order.findIndex((b) => b.includes('platform/postgres-2') && /recovered on its own/.test(b));
  const second = order.findIndex((b) => b.includes('search/search-7c9d8f6b5-kccvl') && /recovered/.test(b));
  expect(first).toBeLessThanOrEqual(second);
}

// Until `untilMs` (wall clock) with Redis away: not ready naming Redis, metrics answering, `change` made in the
// cluster, and liveness 200 throughout; the process still running.
async function rideOut(c: ServeChild, untilMs: number, change: () => void): Promise<void> {
  await until(async () => (await c.get('/readyz')).status === 503, 'not ready', 10_000);
  const notReady = await c.get('/readyz');
  expect(notReady.body).toMatch(/^redis: /m);
  const during = await c.get('/metrics'); // a scrape answers (in time) while Redis is away, and says so
  expect(during.status).toBe(200);
  expect(during.body).toMatch(/^rwx_redis_up 0$/m);
  change();
  const live: number[] = [];
  while (Date.now() < untilMs) {
    live.push(await c.status('/healthz'));
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(live.filter((s) => s !== 200)).toEqual([]);
  expect(c.process.exitCode).toBeNull();
}

// Seen in the logs (once down, once back, not every reconnect attempt) and the metrics.
async function expectLogsAndMetrics(c: ServeChild, o: OutageOptions): Promise<void> {
  const log = c.lines.join('\n');
  expect(log).toMatch(/redis connection lost/);
  expect(log).toMatch(/redis connection back/);
  expect(log).not.toMatch(/ECONNREFUSED[^]*ECONNREFUSED[^]*ECONNREFUSED/);
  expect(log).not.toMatch(/notice failed/);
  // Past the lock TTL, the step in flight comes back either with its job's lock gone ("Missing lock" when the
  // worker moves it on: said once) or as a stalled job BullMQ hands out again (said nowhere): which one depends on
  // whether the worker or the stalled check reaches the job first. Never twice.
  if (o.lockTtlMs) expect((log.match(/Missing lock for job/g) ?? []).length).toBeLessThanOrEqual(1);
  const metrics = (await c.get('/metrics')).body;
  expect(metrics).toMatch(/rwx_evaluations_total\{[^}]*outcome="error"[^}]*\} [1-9]/);
  expect(metrics).toMatch(/^rwx_redis_up 1$/m);
}
