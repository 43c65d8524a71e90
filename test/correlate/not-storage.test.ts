// Only storage is storage: pods stuck on a Secret, ConfigMap, projected, downward API or emptyDir volume, or on a
// slow image pull, never join a storage incident (not even a rollout's, on its bad nodes) and never get node plugin
// advice; a configuration fault gets its own incident and the command that checks the missing object.
import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/domain/incident.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { ago, event, MIN, NOW, pod } from '../detect/builders.js';
import { miniCluster } from './mini-cluster.js';

/** A pod of namespace api on `node` with a claim-less secret volume, stuck creating for 10 minutes. */
function secretPod(name: string, node: string) {
  const p = pod(name, { ns: 'api', node, scheduled: ago(10 * MIN) });
  p.spec!.volumes = [
    { name: 'tls', secret: { secretName: 'payments-tls' } },
    { name: 'kube-api-access', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }] } },
  ];
  return [
    p,
    event(
      'api',
      name,
      'FailedMount',
      'MountVolume.SetUp failed for volume "tls" : secret "payments-tls" not found',
      ago(MIN),
      6,
    ),
  ];
}

describe('configuration faults', () => {
  // a rollout is breaking n-01..n-03; the secret pods sit on n-01 (bad revision) and n-07 (good one)
  const index = miniCluster({
    onRevision2: ['n-01', 'n-02', 'n-03'],
    pods: [
      { name: 'db-0', node: 'n-01' },
      { name: 'db-1', node: 'n-02' },
    ],
    extra: [...secretPod('api-0', 'n-01'), ...secretPod('api-1', 'n-07')],
  });
  const { incidents, drain } = evaluate(index, { now: NOW });
  const byKey = new Map<string, Incident>(incidents.map((i) => [i.key, i]));

  it('form their own NOT_STORAGE incident, apart from the rollout', () => {
    expect(incidents.map((i) => [i.key, i.verdict, i.pods.map((p) => p.pod.name).sort()])).toEqual([
      ['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT', ['db-0', 'db-1']],
      ['config/api/secret/payments-tls', 'NOT_STORAGE', ['api-0', 'api-1']],
    ]);
  });

  it('name the missing object and the command that checks it, never a node plugin', () => {
    const inc = byKey.get('config/api/secret/payments-tls')!;
    expect(inc.title).toBe('api: secret api/payments-tls not found (configuration, not storage)');
    expect(inc.nextSteps[0]).toContain('kubectl get secret payments-tls -n api');
    const text = [inc.title, inc.summary, ...(inc.explanations ?? []), ...inc.nextSteps].join('\n');
    expect(text).not.toMatch(/node plugin logs|showmount|rpcinfo|rollout undo|rwx gate|cordon/);
    expect(inc.pods.every((f) => f.storage.length === 0)).toBe(true);
  });

  it('do not make a node without stuck pods unsafe to drain', () => {
    expect(drain('n-08').decision).toBe('OK');
  });
});

describe('slow image pulls', () => {
  it('are NOT_STORAGE, even on a node the rollout has reached', () => {
    const index = miniCluster({
      onRevision2: ['n-01', 'n-02', 'n-03'],
      pods: [
        { name: 'db-0', node: 'n-01' },
        { name: 'big', node: 'n-02', reason: 'none' },
      ],
      extra: [event('ns', 'big', 'Pulling', 'Pulling image "registry.example/big:1"', ago(8 * MIN), 1, 'Normal')],
    });
    expect(evaluate(index, { now: NOW }).incidents.map((i) => [i.key, i.verdict])).toEqual([
      ['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT'],
      ['not-storage/image-pull', 'NOT_STORAGE'],
    ]);
  });
});
