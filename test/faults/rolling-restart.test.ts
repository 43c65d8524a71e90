// A rolling restart near the recovery of an incident with a missed CronJob: the keep-firing window is a fact of the
// incident's record in Redis (since when it is absent), so the replica that takes over, which never saw the
// incident established, decides as the one that left would have: the incident that comes back within the window
// stays the same thread, unresolved; once it is gone for the whole window it is resolved once, the missed backup
// is awaited across a second restart, and its follow-up comes once. The record is created once and never deleted
// and recreated (Redis MONITOR on the test's own redis-server). Real processes (the compiled CLI), the simulator in
// real time, the fake Slack.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '@rwx/kube-sim';
import type { FakeSlack } from '../support/fake-slack.js';
import { until } from '../support/until.js';
import { childWorld } from './child-world.js';
import { ownRedis, redisServerTool, type OwnRedis } from './own-redis.js';
import { sample } from './thread.js';

const KEY = 'rollout/kube-system/ebs-csi-node@2';
/**
 * RWX_KEEP_FIRING, scaled from the 60s default: long enough that the restart's blip (a replica started, the other
 * stopped, the lease taken over: 4 s on a loaded 2-core machine) falls well inside it, checked below.
 */
const KEEP_MS = 12_000;
const STUCK = [
  ['platform', 'postgres-2'],
  ['search', 'search-7c9d8f6b5-kccvl'],
  ['search', 'search-7c9d8f6b5-khvpc'],
  ['data', 'nightly-backup-29411640-q7x2m'],
] as const;

let redis: OwnRedis | undefined;
let monitor: Redis | undefined;
// The world's children stop first (its afterEach was registered first, so it runs last: stop them here).
const w = childWorld('roll', { url: () => redis!.url, own: true });
afterEach(async () => {
  for (const c of w.children.splice(0)) {
    c.process.kill('SIGKILL');
    await c.exited;
  }
  monitor?.disconnect();
  await redis?.stop();
});

/** Sets the phase of `pods`: Running is a recovery, Pending (ContainerCreating on a broken node) stuck again. */
function phase(s: Simulator, pods: readonly (readonly [string, string])[], to: 'Running' | 'Pending'): void {
  s.apply({ set: pods.map(([namespace, name]) => ({ kind: 'Pod', namespace, name, fields: { 'status.phase': to } })) });
}

/** Creates and deletes of the incident's record, as Redis executes them. */
async function recordWrites(url: string, prefix: string): Promise<{ creates: number; deletes: number; m: Redis }> {
  const counts = { creates: 0, deletes: 0 };
  const conn = new Redis(url);
  const m = await conn.monitor();
  conn.disconnect();
  m.on('monitor', (_time: string, args: string[]) => {
    const [cmd, key, member] = args.map(String);
    // Only the create script adds a record to the open set; a delete removes its hash.
    if (cmd?.toLowerCase() === 'sadd' && key === `${prefix}:open` && member === KEY) counts.creates++;
    if (cmd?.toLowerCase() === 'del' && key === `${prefix}:incident:${KEY}`) counts.deletes++;
  });
  return Object.assign(counts, { m });
}

const ids = (s: FakeSlack, ts: string): string[] =>
  s.replies(ts).map((r) => String(r.metadata?.event_payload.reply ?? ''));

describe.runIf(redisServerTool.run)(`rolling restart near a recovery${redisServerTool.note}`, () => {
  it('the window outlives the replica: one thread, one resolution, the follow-up once, no record churn', async () => {
    redis = await ownRedis(false);
    await redis.start();
    await w.open();
    const { sim, slack, prefix } = w;
    const writes = await recordWrites(redis.url, prefix);
    monitor = writes.m;
    const env = (replica: string) => w.env({ RWX_KEEP_FIRING: `${KEEP_MS / 1000}s`, RWX_REPLICA_ID: replica });
    const a = await w.start(env('rwx-a'));
    await until(() => slack.roots().length === 1 && ids(slack, slack.roots()[0]!.ts).includes('evidence'), 'root');
    const root = slack.roots()[0]!;
    expect(root.metadata?.event_payload.key).toBe(KEY);
    await new Promise((r) => setTimeout(r, KEEP_MS + 1_000)); // the incident is established: kept through a blip

    // The new pod of the rolling update starts (standby), every stuck pod mounts, then the old pod stops.
    const b = await w.start(env('rwx-b'));
    const recovered = Date.now();
    phase(sim, STUCK, 'Running');
    await new Promise((r) => setTimeout(r, 2_000));
    a.process.kill('SIGTERM');
    await a.exited;
    w.forget(a);
    await until(() => b.lines.some((l) => /evaluator lease taken/.test(l)), 'the new replica evaluating', 10_000);
    expect(sample((await b.get('/metrics')).body, 'rwx_evaluator_active')).toBe(1);
    await new Promise((r) => setTimeout(r, 1_500));
    // Two pods are stuck again within the window: it was a blip, and the new replica knows the window from Redis.
    const blip = Date.now() - recovered;
    expect(blip).toBeLessThan(KEEP_MS - 2_000); // else the machine was too slow for the test to say anything
    phase(sim, STUCK.slice(0, 2), 'Pending');
    await new Promise((r) => setTimeout(r, 4_000));
    expect(slack.roots()).toHaveLength(1);
    expect(ids(slack, root.ts)).not.toContain('resolution');

    // They mount again, for good: resolved once the incident has been absent for the whole window.
    phase(sim, STUCK.slice(0, 2), 'Running');
    const gone = Date.now();
    await until(() => ids(slack, root.ts).includes('resolution'), 'the resolution', KEEP_MS + 15_000);
    const resolvedAfter = Date.now() - gone;
    expect(resolvedAfter).toBeGreaterThanOrEqual(KEEP_MS - 1_000);
    const resolution = JSON.stringify(
      slack.replies(root.ts).find((r) => r.metadata?.event_payload.reply === 'resolution'),
    );
    expect(resolution).toMatch(/nightly-backup/);
    // The resolved root states the peak and how long pods were stuck.
    const rootText = (): string => JSON.stringify(slack.roots()[0]!.blocks);
    await until(() => /Resolved/.test(rootText()), 'the resolved root', 10_000);
    const resolvedRoot = rootText();
    expect(resolvedRoot).toMatch(/At its worst: 4 stuck pods on 4 nodes/);
    expect(resolvedRoot).toMatch(/Pods stuck from <!date[^>]*> to <!date[^>]*> \(\d/);

    // Another rolling restart while the backup is awaited; then the backup completes a run.
    await w.start(env('rwx-a'));
    b.process.kill('SIGTERM');
    await b.exited;
    w.forget(b);
    const now = new Date(sim.now()).toISOString();
    sim.apply({
      set: [
        {
          kind: 'Job',
          namespace: 'data',
          name: 'nightly-backup-29411640',
          fields: {
            'status.active': 0,
            'status.succeeded': 1,
            'status.completionTime': now,
            'status.conditions': [{ type: 'Complete', status: 'True', lastTransitionTime: now }],
          },
        },
        {
          kind: 'CronJob',
          namespace: 'data',
          name: 'nightly-backup',
          fields: { 'status.lastSuccessfulTime': now, 'status.active': [] },
        },
      ],
    });
    const done = Date.now();
    await until(() => ids(slack, root.ts).some((i) => i.startsWith('follow-up:')), 'the follow-up', 20_000);
    const followUpAfter = Date.now() - done;
    await new Promise((r) => setTimeout(r, 3_000)); // nothing more comes
    console.log(
      `rolling restart near recovery: blip ${blip} ms after the recovery; resolved ${resolvedAfter} ms after the last pod mounted (window ${KEEP_MS} ms); follow-up ${followUpAfter} ms after the backup completed; record creates ${writes.creates}, deletes ${writes.deletes}`,
    );
    expect(slack.roots()).toHaveLength(1);
    const replies = ids(slack, root.ts);
    expect(new Set(replies).size).toBe(replies.length);
    expect(replies.filter((i) => i === 'resolution')).toHaveLength(1);
    expect(replies.filter((i) => i.startsWith('follow-up:'))).toHaveLength(1);
    expect([writes.creates, writes.deletes]).toEqual([1, 0]);
  }, 180_000);
});
