// The rollout incident on the simulator: /rwx drain node-19 answers BLOCK with the 2x2 counts, and a node still on
// revision 1 with no stuck pods answers OK. The cluster view is the simulator's objects as a snapshot in a ClusterIndex,
// exactly what the bot's watchers keep; the engines are the real triage, detectors, correlator and drain advice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommand, runCommand, type CommandServices } from '../../src/commands/index.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { triage } from '../../src/triage/index.js';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { SIM_START, simSnapshot } from '../support/sim.js';

// One simulator for the file: every test only reads its state.
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ scenario: 'scenarios/propagation-loss.yaml', clock: new ManualClock(SIM_START) });
});
afterAll(async () => {
  await sim.stop();
});

async function rolloutServices(): Promise<CommandServices> {
  const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
  const clock = new ManualClock(sim.now());
  return {
    clock,
    cluster: { index: () => index },
    triage,
    evaluate: (idx, now) => evaluate(idx, { now }),
    openIncidents: async () => [],
  };
}

describe('/rwx drain on the propagation-loss scenario', () => {
  it('node-19 (stuck mounts, plugin on revision 2): BLOCK, with the 2x2 counts and what to do instead', async () => {
    const svc = await rolloutServices();
    const { response } = await runCommand(parseCommand('drain node-19'), svc);
    expect(response.text).toContain(':no_entry: *BLOCK*');
    expect(response.text).toMatch(/Do not drain/);
    // The counts shown are the correlator's, and they have the rollout's shape: every stuck mount on revision 2,
    // none on revision 1 (the scenario file decides the exact numbers; it is still being tuned).
    const rollout = (await svc.evaluate(svc.cluster.index(), svc.clock.now())).incidents.find(
      (i) => i.verdict === 'FOLLOWS_ROLLOUT',
    )?.rollout;
    expect(rollout?.counts.newStuck).toBeGreaterThan(0);
    expect(rollout?.counts.oldStuck).toBe(0);
    expect(rollout?.nodesOnNewRevision).toContain('node-19');
    const c = rollout!.counts;
    expect(response.text).toContain(`${rollout!.updatedNodes} of ${rollout!.desiredNodes} nodes updated`);
    expect(response.text).toContain(`revision 2 (new): ${c.newStuck} with stuck mounts, ${c.newFine} mounting fine\n`);
    expect(response.text).toContain(`revision 1 (previous): 0 with stuck mounts, ${c.oldFine} mounting fine`);
    expect(response.text).toContain('kubectl rollout undo daemonset/ebs-csi-node -n kube-system');
    expect(response.text).toMatch(/Leave stuck pods alone/);
    if (process.env.RWX_SHOW) console.log(response.text);
  });

  it('node-02 (revision 1, no stuck pods): OK', async () => {
    const svc = await rolloutServices();
    const { incidents } = await svc.evaluate(svc.cluster.index(), svc.clock.now());
    expect(incidents.find((i) => i.verdict === 'FOLLOWS_ROLLOUT')?.rollout?.nodesOnNewRevision).not.toContain(
      'node-02',
    );
    expect(incidents.flatMap((i) => i.pods).filter((p) => p.node === 'node-02')).toEqual([]);
    const { response } = await runCommand(parseCommand('drain node-02'), svc);
    expect(response.text).toContain(':white_check_mark: *OK*');
    expect(response.text).not.toContain('BLOCK');
  });

  it('an unknown node is a clear message', async () => {
    const svc = await rolloutServices();
    const { response } = await runCommand(parseCommand('drain node-99'), svc);
    expect(response.text).toContain('There is no node `node-99` in the cluster');
  });

  it("/rwx triage search: the search Deployment's RWX claim is MOUNT_FAILED, with evidence and next step", async () => {
    const svc = await rolloutServices();
    const { response } = await runCommand(parseCommand('triage search'), svc);
    const all = (response.blocks ?? []).map((b) => JSON.stringify(b)).join('\n');
    expect(all).toContain('*search/search-shards* — `MOUNT_FAILED`');
    expect(all).toContain('FailedMount');
    expect(all).toContain('*Next:*');
  });
});
