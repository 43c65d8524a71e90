// §3 bounded memory per incident in the shared Redis: an incident over thousands of nodes is recorded through the
// evaluator's real path into the real Redis, and the record's size is read with MEMORY USAGE. Its node rows (and
// their drain advice) are capped at MAX_RECORDED_NODES, the rest counted, and the root and thread say how many.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_RECORDED_NODES, keptNodeRows } from '../../src/domain/node-rows.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { renderEvidenceReply } from '../../src/render/slack-thread.js';
import { RedisIncidentStore } from '../../src/store/redis-store.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { cleanRedis, REDIS_URL } from '../serve/harness.js';

const redis = new Redis(REDIS_URL);
const prefix = `rwx-test-memory-${randomUUID()}`;

afterAll(async () => {
  await cleanRedis(prefix);
  await redis.quit();
});

// A rollout incident with a stuck pod on each of `n` more nodes, with realistic EC2 node names.
const wide = (n: number) =>
  rolloutIncident(
    Array.from({ length: n }, (_, i) => ({
      node: `ip-10-0-${Math.floor(i / 250)}-${i % 250}.eu-west-1.compute.internal`,
      pod: `search-7d9f8c6b5-${i.toString(36).padStart(5, 'x')}`,
    })),
  );

// Records `incident` under its own key and returns the record's MEMORY USAGE (bytes) and the stored incident.
async function recorded(incident: ReturnType<typeof wide>, key: string) {
  const store = new RedisIncidentStore(redis, prefix);
  const inc = { ...incident, key };
  await recordEvaluation({ store, channel: 'C0INCIDENT', groupWait: 30_000 }, [inc], FIXTURE_NOW);
  const bytes = Number(await redis.call('MEMORY', 'USAGE', `${prefix}:incident:${key}`, 'SAMPLES', '0'));
  return { bytes, stored: (await store.get(key))!.observed.incident };
}

describe('an incident record in the shared Redis', () => {
  it('keeps at most MAX_RECORDED_NODES node rows and their drain advice, the rest counted', async () => {
    const { stored, bytes } = await recorded(wide(2_000), 'rollout/kube-system/ebs-csi-node@2000');
    expect(stored.nodes).toHaveLength(MAX_RECORDED_NODES);
    expect(stored.nodesNotKept).toEqual({
      nodes: 2_004 - MAX_RECORDED_NODES,
      withStuckPods: 2_004 - MAX_RECORDED_NODES,
    });
    expect(stored.drain.every((d) => stored.nodes.some((n) => n.node === d.node))).toBe(true);
    // Pods are kept whole: what departed-pod replies and the resolution speak for.
    expect(stored.pods).toHaveLength(2_004);
    expect(bytes).toBeGreaterThan(0);
  });

  it('a small incident is kept as it is', async () => {
    const small = wide(10);
    expect(keptNodeRows(small)).toBe(small);
    const { stored } = await recorded(small, 'rollout/kube-system/ebs-csi-node@10');
    expect(stored.nodes).toHaveLength(14);
    expect(stored.nodesNotKept).toBeUndefined();
  });

  it('the root and the thread count the rows left out', () => {
    const kept = keptNodeRows(wide(2_000));
    const text = (m: { blocks: unknown[] }) => JSON.stringify(m.blocks);
    expect(text(renderIncidentRoot(kept))).toContain('...and 1999 more in the thread');
    expect(text(renderEvidenceReply(kept))).toContain(
      `+1804 more nodes (1804 with stuck pods), not listed: an incident keeps its first ${MAX_RECORDED_NODES} node rows.`,
    );
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
