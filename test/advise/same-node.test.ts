// The advice agrees with the incident on the same node: a node holding a stuck pod of any incident is never OK
// (CAUTION with the reason; BLOCK when it follows a rollout), and a step that compares two nodes tests both.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { rwx } from '../correlate/cli-run.js';
import { SIM_START, scenarioPath, simSnapshot, testSim } from '../support/sim.js';

const NOW = new Date(SIM_START).toISOString();

describe('rwx-strands: the UNEXPLAINED stuck pod on node-03', () => {
  it('drain-check node-03 is CAUTION (exit 4), naming the incident and its pod, not "OK: no stuck mounts"', async () => {
    const { sim } = await testSim(scenarioPath('rwx-strands'));
    const r = await rwx('drain-check', 'node-03', '--kubeconfig', sim.kubeconfigPath, '--now', NOW);
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(
      /^CAUTION: node-03\nnode-03 holds 1 stuck pod of incident unexplained\/vmstore\.csi\.tintri\.com \(media\/renderer-[a-z0-9]+\) whose cause is not known: the drain may hang on it, or move it onto the same fault on another node\.\n/,
    );
    expect(r.stdout).toMatch(/kubectl describe pod renderer-[a-z0-9]+ -n media/);
  });

  it('every node holding a stuck pod of any incident gets CAUTION or BLOCK, never OK', async () => {
    const { sim } = await testSim(scenarioPath('rwx-strands'));
    const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
    const { incidents, drain } = evaluate(index, { now: sim.now() });
    const busy = [
      ...new Set(incidents.flatMap((i) => i.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node))),
    ];
    expect(busy.length).toBeGreaterThan(1);
    for (const node of busy) expect([node, drain(node).decision]).toEqual([node, 'CAUTION']);
  });

  it('the comparison step tests the affected node and a node without stuck pods, as one runnable rwx gate', async () => {
    const { sim } = await testSim(scenarioPath('rwx-strands'));
    const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
    const { incidents } = evaluate(index, { now: sim.now() });
    const busy = new Set(incidents.flatMap((i) => i.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node)));
    const steps = incidents.flatMap((i) => i.nextSteps).filter((s) => s.includes('rwx gate'));
    expect(steps.length).toBeGreaterThanOrEqual(2);
    for (const s of steps) {
      const [, affected, other] = /--nodes ([a-z0-9-]+),([a-z0-9-]+)$/.exec(s) ?? [];
      expect(busy.has(affected ?? '')).toBe(true);
      expect(other && !busy.has(other) && index.get('nodes', other) !== undefined).toBe(true);
      const gate = s.slice(s.indexOf('rwx gate') + 'rwx '.length).split(' ');
      // The project's own parser accepts it (strict flags; --help stops before any cluster access).
      expect((await rwx(...gate, '--help')).code).toBe(0);
    }
    expect(steps.some((s) => s.includes('--nodes node-03,'))).toBe(true);
  });
});
