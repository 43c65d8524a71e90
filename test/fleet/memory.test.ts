// §3 bounded memory per incident in the shared Redis: an incident over thousands of nodes is recorded through the
// evaluator's real path into the real Redis, and the record's size is read with MEMORY USAGE. Its node rows (and
// their drain advice) are capped at MAX_RECORDED_NODES and its stuck pods at MAX_RECORDED_PODS, the rest counted;
// the root and thread say how many, and a member beyond the caps that joins or leaves is still a change.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_RECORDED_NODES, keptNodeRows } from '../../src/domain/node-rows.js';
import { MAX_RECORDED_PODS, keptPods, stuckPodCount } from '../../src/domain/kept.js';
import { membersOf } from '../../src/domain/members.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { workloadLines } from '../../src/render/slack-members.js';
import { renderChangeReply, renderEvidenceReply, renderRepeatReply } from '../../src/render/slack-thread.js';
import { RedisIncidentStore } from '../../src/store/redis-store.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { cleanRedis, REDIS_URL } from '../serve/harness.js';

const redis = new Redis(REDIS_URL);
const prefix = `rwx-test-memory-${randomUUID()}`;

afterAll(async () => {
  await cleanRedis(prefix);
  await redis.quit();
});

// `n` more nodes with a stuck pod each, with realistic EC2 node names; a rollout incident over them.
const extras = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    node: `ip-10-0-${Math.floor(i / 250)}-${i % 250}.eu-west-1.compute.internal`,
    pod: `search-7d9f8c6b5-${i.toString(36).padStart(5, 'x')}`,
  }));
const wide = (n: number) => rolloutIncident(extras(n));

// Records `incident` under its own key and returns the record's MEMORY USAGE (bytes), the stored incident and the
// jobs the evaluation asked for (one when the notifiable hash changed).
async function recorded(incident: ReturnType<typeof wide>, key: string) {
  const store = new RedisIncidentStore(redis, prefix);
  const inc = { ...incident, key };
  const { jobs } = await recordEvaluation({ store, channel: 'C0INCIDENT', groupWait: 30_000 }, [inc], FIXTURE_NOW);
  const bytes = Number(await redis.call('MEMORY', 'USAGE', `${prefix}:incident:${key}`, 'SAMPLES', '0'));
  return { bytes, stored: (await store.get(key))!.observed.incident, jobs };
}
const blocksOf = (m: { blocks: unknown[] } | undefined) => JSON.stringify(m?.blocks ?? []);

describe('an incident record in the shared Redis', () => {
  it('keeps at most MAX_RECORDED_NODES node rows and their drain advice, the rest counted', async () => {
    const { stored, bytes } = await recorded(wide(2_000), 'rollout/kube-system/ebs-csi-node@2000');
    expect(stored.nodes).toHaveLength(MAX_RECORDED_NODES);
    expect(stored.nodesNotKept).toEqual({
      nodes: 2_004 - MAX_RECORDED_NODES,
      withStuckPods: 2_004 - MAX_RECORDED_NODES,
    });
    expect(stored.drain.every((d) => stored.nodes.some((n) => n.node === d.node))).toBe(true);
    // Stuck pods too: the longest stuck first (the fixture's four), each workload counting the pods it does not list.
    expect(stored.pods).toHaveLength(MAX_RECORDED_PODS);
    expect(stored.podsNotKept).toBe(2_004 - MAX_RECORDED_PODS);
    expect(stuckPodCount(stored)).toBe(2_004);
    expect(stored.pods.map((p) => p.pod.name)).toContain('nightly-backup-2911-x7k2p');
    const search = stored.workloads.find((w) => w.name === 'search')!;
    expect(search.pods.length + search.podsNotKept!).toBe(2_002);
    expect(bytes).toBeGreaterThan(0);
  });

  it('a small incident is kept as it is', async () => {
    const small = wide(10);
    expect(keptNodeRows(small)).toBe(small);
    const { stored } = await recorded(small, 'rollout/kube-system/ebs-csi-node@10');
    expect(stored.nodes).toHaveLength(14);
    expect(stored.nodesNotKept).toBeUndefined();
  });

  it('the root and the thread count the rows and pods left out', () => {
    const kept = keptPods(keptNodeRows(wide(2_000)));
    expect(blocksOf(renderIncidentRoot(kept))).toContain('...and 2001 more'); // 2004 stuck nodes, three named
    const evidence = blocksOf(renderEvidenceReply(kept));
    expect(evidence).toContain(
      `+1804 more nodes (1804 with stuck pods), not listed: an incident keeps its first ${MAX_RECORDED_NODES} node rows.`,
    );
    expect(evidence).toContain(`+1804 more stuck pods, not listed: an incident keeps ${MAX_RECORDED_PODS} stuck pods`);
    expect(workloadLines(kept).join('\n')).toContain('and 1804 more stuck pods, not listed');
    expect(renderRepeatReply(kept, FIXTURE_NOW - 3_600_000, FIXTURE_NOW).text).toContain(
      '2004 stuck pods on 2004 nodes',
    );
  });

  it('a pod beyond the caps that joins or leaves is a change, told by the counts', async () => {
    const key = 'rollout/kube-system/ebs-csi-node@join';
    const first = await recorded(wide(2_000), key);
    // The pod that joins has been stuck longest: it would be listed first, were the listed ones not kept listed.
    const bigger = wide(2_001);
    bigger.pods.find((p) => p.pod.name === extras(2_001)[2_000]!.pod)!.since = '2026-11-01T00:00:00Z';
    const joined = await recorded(bigger, key);
    expect(joined.jobs).toEqual([{ key, delayMs: 0 }]); // the notifiable hash moved: the root is edited, a reply posted
    expect(joined.stored.pods.map((p) => p.key)).toEqual(first.stored.pods.map((p) => p.key)); // nobody pushed out
    const grew = renderChangeReply(joined.stored, membersOf(first.stored))!;
    expect(blocksOf(grew)).toContain('2005 stuck pods in all: +1 not named here');
    expect(blocksOf(grew)).toContain('2005 nodes with stuck pods in all: +1 not named here');
    expect(blocksOf(grew)).not.toMatch(/newly stuck pod|new node/);

    const left = await recorded(wide(2_000), key);
    expect(left.jobs).toEqual([{ key, delayMs: 0 }]);
    const shrank = renderChangeReply(left.stored, membersOf(joined.stored))!;
    expect(blocksOf(shrank)).toContain('2004 stuck pods in all: -1 not named here');
    expect(blocksOf(shrank)).toContain('2004 nodes with stuck pods in all: -1 not named here');
  });

  it('a listed pod that leaves is named; the pod listed in its place is not called new', async () => {
    const key = 'rollout/kube-system/ebs-csi-node@leave';
    const first = await recorded(wide(2_000), key);
    const gone = first.stored.pods.find((p) => p.pod.name.startsWith('search-7d9f8c6b5-'))!;
    const rest = extras(2_000).filter((e) => e.pod !== gone.pod.name);
    const after = await recorded(rolloutIncident(rest), key);
    expect(after.stored.pods).toHaveLength(MAX_RECORDED_PODS); // the place refilled
    const name = `${gone.pod.namespace}/${gone.pod.name}`;
    const reply = blocksOf(
      renderChangeReply(after.stored, membersOf(first.stored), { recovered: [name], deleted: [], other: [] }),
    );
    expect(reply).toContain(`recovered on its own (still open for the others): \`${name}\``);
    expect(reply).not.toMatch(/newly stuck pod|new node|\d+ stuck pods in all/);
    // Its node was not one of the rows listed: it is counted.
    expect(reply).toContain('2003 nodes with stuck pods in all: -1 not named here');
  });

  it('measures bytes per record by node count (MEMORY USAGE)', async () => {
    const rows: string[] = [];
    for (const n of [10, 200, 1_000, 2_000, 5_000]) {
      const { bytes } = await recorded(wide(n), `rollout/kube-system/ebs-csi-node@m${n}`);
      const uncapped = Buffer.byteLength(JSON.stringify(wide(n)));
      rows.push(`${n + 4} nodes: record ${bytes} B (the uncapped incident alone is ${uncapped} B of JSON)`);
    }
    console.log(`incident record size, MEMORY USAGE:\n  ${rows.join('\n  ')}`);
  });
});
