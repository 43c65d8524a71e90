// The bundled scenarios served by the API simulator: snapshots (simSnapshot) through detectors, correlator and drain advice.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { simSnapshot } from '../support/sim.js';
import { adviseDrain } from '../../src/advise/drain.js';
import { evaluate } from '../../src/evaluate/evaluate.js';

/** 09:15 on the morning of the incident: the scenario's offset 0. */
const T0 = Date.parse('2026-11-30T09:15:00Z');

describe('propagation-loss scenario', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'scenarios/propagation-loss.yaml', clock: new ManualClock(T0) });
  });
  afterAll(async () => {
    await sim?.stop();
  });

  it('yields exactly one FOLLOWS_ROLLOUT incident for ebs-csi-node@2 with postgres-2, the search pods and the backup', () => {
    const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
    const { incidents } = evaluate(index, { now: sim.now() });
    expect(incidents.map((i) => [i.key, i.verdict])).toEqual([
      ['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT'],
    ]);
    const inc = incidents[0]!;
    const pods = inc.pods.map((p) => `${p.pod.namespace}/${p.pod.name}`);
    expect(pods).toContain('platform/postgres-2');
    expect(pods.filter((p) => p.startsWith('search/')).length).toBeGreaterThan(0);
    expect(inc.cronJobs.map((c) => `${c.cronJob.namespace}/${c.cronJob.name}`)).toEqual(['data/nightly-backup']);
    expect(inc.rollout?.counts.oldStuck).toBe(0);
    expect(inc.rollout?.diff.map((d) => d.text)).toContain('kubelet-dir: mountPropagation Bidirectional -> none');
  });

  it('drain-check: node-19 is BLOCK, a revision-1 node with no stuck pods is OK', () => {
    const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
    const { incidents } = evaluate(index, { now: sim.now() });
    expect(adviseDrain(index, incidents, 'node-19', sim.now()).decision).toBe('BLOCK');
    const inc = incidents[0]!;
    const stuckNodes = new Set(inc.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node));
    const rev1 = inc.nodes.find((n) => n.plugin?.revision === 1 && !stuckNodes.has(n.node))?.node ?? 'node-02';
    expect(adviseDrain(index, incidents, rev1, sim.now()).decision).toBe('OK');
  });

  it('mid-rollback (revision 1 restored as 3) the incident keeps its key and counts the restored nodes as old', async () => {
    await sim.advance(14 * 60_000);
    const { incidents } = evaluate(ClusterIndex.fromSnapshot(simSnapshot(sim)), { now: sim.now() });
    const inc = incidents.find((i) => i.verdict === 'FOLLOWS_ROLLOUT');
    expect([
      inc?.key,
      inc?.rollout?.newRevision,
      inc?.rollout?.previousRevision,
      inc?.rollout?.counts.oldStuck,
    ]).toEqual(['rollout/kube-system/ebs-csi-node@2', 2, 3, 0]);
    expect(inc?.pods.map((p) => p.pod.name)).not.toContain('postgres-2');
  });

  it('once the rollback has reached every node the stuck pods recover and the backup runs: no incident', async () => {
    await sim.advance(8 * 60_000); // t+22m
    const { incidents } = evaluate(ClusterIndex.fromSnapshot(simSnapshot(sim)), { now: sim.now() });
    expect(incidents).toEqual([]);
  });
});

/** Scans a scenario at offset 0 plus `afterMs` of sim time. */
async function scanScenario(file: string, afterMs = 0) {
  const sim = await startSimulator({ scenario: file, clock: new ManualClock(T0) });
  try {
    if (afterMs > 0) await sim.advance(afterMs);
    return evaluate(ClusterIndex.fromSnapshot(simSnapshot(sim)), { now: sim.now() }).incidents;
  } finally {
    await sim.stop();
  }
}

describe('other scenarios (each skipped while its file is missing)', () => {
  it.skipIf(!existsSync('scenarios/node-fault.yaml'))(
    'node-fault.yaml yields FOLLOWS_NODE and no rollout',
    async () => {
      const incidents = await scanScenario('scenarios/node-fault.yaml');
      expect(incidents.map((i) => [i.key, i.verdict])).toEqual([['node/node-07', 'FOLLOWS_NODE']]);
      expect(incidents[0]?.summary).toMatch(/^FOLLOWS_NODE: 3 pods stuck mounting on node-07 across 2 drivers/);
    },
  );

  it.skipIf(!existsSync('scenarios/cni-sandbox.yaml'))('cni-sandbox.yaml yields no storage incident', async () => {
    const incidents = await scanScenario('scenarios/cni-sandbox.yaml');
    expect(incidents.length).toBeGreaterThan(0);
    expect(incidents.filter((i) => i.verdict !== 'NOT_STORAGE').map((i) => i.key)).toEqual([]);
  });
});
