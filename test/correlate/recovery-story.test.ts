// The propagation-loss story (scenarios/propagation-loss.yaml) played step by step as the bot sees it (its pods as
// the watch path projects them: a Running pod keeps no PodScheduled condition), every 30 seconds of simulated time
// from the start to after the last rollback step: one incident, the rollout's, and no second one at any step. In particular while the nightly backup that was stuck on node-36 runs after the
// rollback (its run is the recovery of the stuck pod: detect/cronjob-missed.ts), its failed run of the night before
// does not open an incident of its own.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { projectPod } from '../../src/watch/slim.js';
import { scenarioPath, simSnapshot, testSim } from '../support/sim.js';

const STEP = 30_000;
const END = 35 * 60_000;

describe('propagation-loss, every 30 s', () => {
  it('opens one incident and no second one, the backup run after the rollback included', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    let open = new Set<string>();
    const seen = new Map<string, number>();
    let backupRan = false;
    for (let at = 0; at <= END; at += STEP) {
      if (at > 0) await sim.advance(STEP);
      const snap = simSnapshot(sim);
      snap.pods = snap.pods.map(projectPod);
      const { incidents } = evaluate(ClusterIndex.fromSnapshot(snap), { now: sim.now(), openKeys: open });
      for (const i of incidents) if (!seen.has(i.key)) seen.set(i.key, at / 60_000);
      open = new Set(incidents.map((i) => i.key));
      const backup = snap.pods.find((p) => p.metadata?.name === 'nightly-backup-29411640-q7x2m');
      if (backup?.status?.phase === 'Running') backupRan = true;
    }
    expect(backupRan).toBe(true);
    expect(Object.fromEntries(seen)).toEqual({ 'rollout/kube-system/ebs-csi-node@2': 0 });
  }, 60_000);
});
