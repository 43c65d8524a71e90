// The scenarios made for three fault classes, each evaluated as the bot sees it at offset 0 (they have no timeline):
// a missing Secret is configuration, not storage; pods stuck Terminating after a plugin rollout follow the rollout;
// a pod terminating in a terminal phase still holds its claim. The advice invariants over every scenario and step
// are test/advise/invariants.test.ts.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { triage } from '../../src/triage/index.js';
import { scenarioPath, simSnapshot, testSim } from '../support/sim.js';

/** The scenario's cluster at offset 0, indexed as the bot reads it. */
async function at0(name: string): Promise<{ index: ClusterIndex; now: number }> {
  const { sim } = await testSim(scenarioPath(name));
  return { index: ClusterIndex.fromSnapshot(simSnapshot(sim)), now: sim.now() };
}

describe('scenarios for the fault classes', () => {
  it('config-not-storage: a missing Secret is a NOT_STORAGE config incident with its own next step', async () => {
    const { index, now } = await at0('config-not-storage');
    const { incidents, drain } = evaluate(index, { now });
    expect(incidents.map((i) => [i.key, i.verdict])).toEqual([['config/api/secret/payments-tls', 'NOT_STORAGE']]);
    const [incident] = incidents;
    expect(incident!.pods.map((p) => [p.key, p.cause, p.storage])).toEqual([
      ['stuck-creating/api/payments-6d8f7c9b5-x9q7m', 'config', []],
    ]);
    expect(incident!.nextSteps.join('\n')).toContain('kubectl get secret payments-tls -n api');
    expect(incident!.nextSteps.join('\n')).not.toMatch(/plugin|logs/i);
    const caution = drain('node-03');
    expect(caution.decision).toBe('CAUTION');
    expect(caution.reason).toMatch(/Secret or ConfigMap that does not exist/);
    expect(caution.reason).not.toMatch(/network|sandbox/);
  });

  it('terminating-rollout: one FOLLOWS_ROLLOUT incident, new-revision nodes BLOCK, old-revision nodes OK', async () => {
    const { index, now } = await at0('terminating-rollout');
    const { incidents, drain } = evaluate(index, { now });
    expect(incidents.map((i) => [i.key, i.verdict])).toEqual([
      ['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT'],
    ]);
    const [incident] = incidents;
    expect(incident!.rollout?.counts).toMatchObject({ newStuck: 3, newFine: 0, oldStuck: 0, oldFine: 3 });
    // Only shop/orders-0 has a FailedUnmount event; the other two count as unmount suspects without one.
    expect(incident!.pods.map((p) => [p.key, p.cause])).toEqual([
      ['stuck-terminating/ml/features-0', 'storage'],
      ['stuck-terminating/ml/scores-0', 'storage'],
      ['stuck-terminating/shop/orders-0', 'storage'],
    ]);
    expect(['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6'].map((n) => drain(n).decision)).toEqual([
      'BLOCK',
      'BLOCK',
      'BLOCK',
      'OK',
      'OK',
      'OK',
    ]);
  });

  it('terminal-phase-terminating: phase Failed with a deletionTimestamp is UNPUBLISH_STUCK and counted by drain', async () => {
    const { index, now } = await at0('terminal-phase-terminating');
    expect(triage(index, { now }).claims.map((c) => [c.namespace, c.name, c.phase])).toEqual([
      ['batch', 'reports', 'UNPUBLISH_STUCK'],
    ]);
    const { incidents, drain } = evaluate(index, { now });
    expect(incidents.flatMap((i) => i.pods.map((p) => p.key))).toEqual(['stuck-terminating/batch/report-builder-0']);
    const advice = drain('node-2');
    expect(advice.decision).toBe('CAUTION');
    expect(advice.reason).toMatch(/^1 pod stuck Terminating/);
    expect(drain('node-1').decision).toBe('OK');
  });
});
