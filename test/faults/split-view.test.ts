// Replicas that see different clusters: one evaluator per cluster (src/serve/lease.ts). Two replicas on one Redis,
// one of them with a watch that froze (half-open: its cache stops, it does not know) or cut off from the API
// server (blackhole). Only the lease holder records incidents, and it gives the lease up once its view is not
// known to be current, so the root is never edited back and forth between two views. Edits per minute are
// printed for the report.
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { type EvaluatorLease, redisEvaluatorLease } from '../../src/serve/lease.js';
import { REDIS_URL } from '../serve/harness.js';
import { until } from '../support/until.js';
import { replicas, stuckCounts, type Replicas } from './replicas.js';
import { expectOneThread, sample } from './thread.js';

const SCENARIO = 'scenarios/propagation-loss.yaml';
// A short group_interval: every change a replica records is edited into the root at its next turn.
const TIMERS = { groupWait: '200ms', groupInterval: '1s' };
let r: Replicas | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

/** Whether a sequence ever goes back to a value it had left (6, 5, 6: two views taking turns). */
function flips(xs: number[]): number {
  let n = 0;
  for (let i = 2; i < xs.length; i++) if (xs[i] !== xs[i - 1] && xs.slice(0, i - 1).includes(xs[i]!)) n++;
  return n;
}

/** Runs the rollout for `minutes` of sim time, a minute a step; returns root edits per minute. */
async function drive(x: Replicas, minutes: number): Promise<{ editsPerMinute: number; counts: number[] }> {
  await until(() => x.slack.roots().length >= 1, 'the root');
  const ts = x.slack.roots()[0]!.ts;
  const before = x.slack.callsOf('chat.update').filter((c) => c.args.ts === ts).length;
  // Half a minute per replica, each evaluating in its own half, its notify job run before the next one's turn.
  for (let m = 0; m < minutes; m++)
    for (const serve of x.running.values()) {
      await x.sim.advance(60_000 / x.running.size);
      await new Promise((res) => setTimeout(res, 50));
      await serve.tick();
      await new Promise((res) => setTimeout(res, 150));
    }
  const edits = x.slack.callsOf('chat.update').filter((c) => c.args.ts === ts).length - before;
  return { editsPerMinute: edits / minutes, counts: stuckCounts(x.slack, ts) };
}

/** The /metrics text of replica `name`. */
async function metricsOf(x: Replicas, name: string): Promise<string> {
  return (await fetch(`http://127.0.0.1:${x.running.get(name)!.port}/metrics`)).text();
}

/** A lease every replica always holds: what the bot did before the lease (the control of these tests). */
const everyoneHolds: EvaluatorLease = {
  id: 'everyone',
  renew: async () => true,
  holds: async () => true,
  taken: async () => true,
  release: async () => undefined,
  heldUntil: () => undefined,
};

describe('two replicas, one view frozen', () => {
  it('control: without the lease the two views take turns on the root', async () => {
    r = await replicas(SCENARIO, TIMERS);
    await r.start('a', { parts: { lease: everyoneHolds } });
    await r.start('b', { parts: { lease: everyoneHolds }, watchIdle: '1h' });
    await r.advance(1_000);
    r.sim.faults.halfOpenWatches({ client: 'b' }); // b's cache stops at 09:15 and it does not notice
    const { editsPerMinute, counts } = await drive(r, 12);
    console.log(`split view without lease: ${editsPerMinute.toFixed(2)} root edits/min, stuck counts ${counts}`);
    expect(flips(counts)).toBeGreaterThan(0);
  });

  it('a frozen standby never writes: the holder alone edits the root, in order', async () => {
    r = await replicas(SCENARIO, TIMERS);
    await r.start('a');
    await r.start('b', { watchIdle: '1h' });
    await r.advance(1_000);
    r.sim.faults.halfOpenWatches({ client: 'b' });
    const { editsPerMinute, counts } = await drive(r, 12);
    console.log(
      `split view (standby frozen) with lease: ${editsPerMinute.toFixed(2)} root edits/min, counts ${counts}`,
    );
    expect(flips(counts)).toBe(0);
    expectOneThread(r.slack, r.slack.roots()[0]!.ts); // clickhouse-1 joins for real: a change, not invented
    // clickhouse-1 got stuck at +10m: the holder's (current) view reached the root.
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(5);
    // Seen in the metrics: a evaluates and records, b evaluates and stands by.
    const [a, b] = [await metricsOf(r, 'a'), await metricsOf(r, 'b')];
    expect([sample(a, 'rwx_evaluator_active'), sample(b, 'rwx_evaluator_active')]).toEqual([1, 0]);
    expect(sample(b, 'rwx_evaluations_total{outcome="standby"}')).toBeGreaterThan(0);
    expect(sample(b, 'rwx_evaluations_total{outcome="ok"}')).toBe(0);
  });

  it('a frozen holder gives the lease up once its watch is stalled, and the standby takes over', async () => {
    r = await replicas(SCENARIO, TIMERS);
    await r.start('a'); // default RWX_WATCH_IDLE_TIMEOUT: 2m30s
    await r.start('b');
    await r.advance(1_000);
    expect(r.lines.join('')).toMatch(/"replica":"a"[^\n]*evaluator lease taken/);
    r.sim.faults.halfOpenWatches({ client: 'a' });
    const { editsPerMinute, counts } = await drive(r, 12);
    console.log(`split view (holder frozen) with lease: ${editsPerMinute.toFixed(2)} root edits/min, counts ${counts}`);
    expect(flips(counts)).toBe(0);
    expect(r.lines.join('')).toMatch(/"replica":"b"[^\n]*evaluator lease taken/);
    expect(r.lines.join('')).toMatch(/"replica":"a"[^\n]*evaluator lease given up: standby/);
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(5);
    expectOneThread(r.slack, r.slack.roots()[0]!.ts);
    expect(sample(await metricsOf(r, 'a'), 'rwx_evaluator_active')).toBe(0);
    expect(sample(await metricsOf(r, 'b'), 'rwx_evaluator_active')).toBe(1);
  });
});

describe('the evaluator dies', () => {
  it('the standby takes over within the lease TTL plus a tick', async () => {
    r = await replicas(SCENARIO, TIMERS);
    const redis = new Redis(REDIS_URL);
    try {
      // kill -9 of the holder: its lease is never released (stop() below stands for the process vanishing).
      const killed = { ...redisEvaluatorLease(redis, r.prefix, 3_000), release: async () => undefined };
      const a = await r.start('a', { parts: { lease: killed } });
      const b = await r.start('b', { leaseTtlMs: 3_000 });
      await r.advance(1_000);
      expect(await killed.holds()).toBe(true);
      r.running.delete('a');
      await a.stop();
      const t0 = Date.now();
      const taken = () => r!.lines.some((l) => l.includes('"replica":"b"') && l.includes('evaluator lease taken'));
      while (!taken() && Date.now() - t0 < 10_000) {
        await b.tick();
        await new Promise((res) => setTimeout(res, 250));
      }
      console.log(`evaluator failover after a kill: ${Date.now() - t0} ms (lease TTL 3000 ms, tick 250 ms)`);
      expect(taken()).toBe(true);
      expect(Date.now() - t0).toBeLessThan(3_000 + 1_000);
    } finally {
      redis.disconnect();
    }
  });
});

describe('two replicas, one partitioned from the API server', () => {
  it('the cut-off holder stands by and the other records; one root, no flapping', async () => {
    r = await replicas(SCENARIO, TIMERS);
    await r.start('a');
    await r.start('b');
    await r.advance(1_000);
    r.sim.faults.down('blackhole', { client: 'a' });
    const { editsPerMinute, counts } = await drive(r, 12);
    console.log(`partition with lease: ${editsPerMinute.toFixed(2)} root edits/min, counts ${counts}`);
    expect(flips(counts)).toBe(0);
    expect(r.lines.join('')).toMatch(/"replica":"b"[^\n]*evaluator lease taken/);
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(5);
    expectOneThread(r.slack, r.slack.roots()[0]!.ts);
    expect(r.lines.join('')).toMatch(/"replica":"a"[^\n]*evaluator lease given up: standby/);
    expect(sample(await metricsOf(r, 'a'), 'rwx_evaluator_active')).toBe(0);
    expect(sample(await metricsOf(r, 'b'), 'rwx_evaluator_active')).toBe(1);
  });
});
