// Pods stuck Terminating follow rollouts too: the same 2x2 for unmount failures (new revision stuck, old not) makes a
// wave one FOLLOWS_ROLLOUT incident, not one FOLLOWS_NODE per node; silent pods (no event) are unmount suspects.
import { describe, expect, it } from 'vitest';
import type { ClusterIndex } from '../../src/domain/cluster-index.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { NOW } from '../detect/builders.js';
import { miniCluster, type Placed } from './mini-cluster.js';

const verdicts = (index: ClusterIndex) =>
  evaluate(index, { now: NOW }).incidents.map((i) => [i.key, i.verdict, i.pods.map((p) => p.pod.name).sort()]);
const term = (name: string, node: string, extra: Partial<Placed> = {}): Placed => ({
  name,
  node,
  terminating: true,
  ...extra,
});

describe('unmount failures and the rollout test', () => {
  it.each<[string, { onRevision2?: string[]; pods: Placed[] }, [string, string, string[]][]]>([
    // the wave: pods stuck Terminating on three revision-2 nodes, none on revision 1: one rollout incident
    [
      'a wave on the new revision',
      {
        onRevision2: ['n-01', 'n-02', 'n-03', 'n-04'],
        pods: [term('a', 'n-01'), term('b', 'n-02'), term('c', 'n-03')],
      },
      [['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT', ['a', 'b', 'c']]],
    ],
    // kubelets often log teardown failures only: pods without an event vote as unmount suspects
    [
      'silent pods count',
      {
        onRevision2: ['n-01', 'n-02', 'n-03'],
        pods: [term('a', 'n-01', { reason: 'none' }), term('b', 'n-02', { reason: 'none' })],
      },
      [['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT', ['a', 'b']]],
    ],
    // an old-revision node stuck too: not the rollout, the nodes stay node-local
    [
      'old revision stuck too',
      { onRevision2: ['n-01', 'n-02'], pods: [term('a', 'n-01'), term('b', 'n-05')] },
      [
        ['node/n-01', 'FOLLOWS_NODE', ['a']],
        ['node/n-05', 'FOLLOWS_NODE', ['b']],
      ],
    ],
    // no rollout at all: a stuck unmount follows its node, as before
    ['no rollout', { pods: [term('a', 'n-03')] }, [['node/n-03', 'FOLLOWS_NODE', ['a']]]],
    // mount and unmount failures of the same revision are one incident
    [
      'mounts and unmounts',
      { onRevision2: ['n-01', 'n-02', 'n-03'], pods: [term('a', 'n-01'), { name: 'm', node: 'n-02' }] },
      [['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT', ['a', 'm']]],
    ],
  ])('%s', (_name, o, want) => {
    expect(verdicts(miniCluster(o))).toEqual(want);
  });

  it('says unmounts, counts the silent pods, and blocks drains on the rollout nodes', () => {
    const index = miniCluster({
      onRevision2: ['n-01', 'n-02', 'n-03'],
      pods: [term('a', 'n-01'), term('b', 'n-02', { reason: 'none' })],
    });
    const { incidents, drain } = evaluate(index, { now: NOW });
    const [inc] = incidents;
    expect(inc?.title).toBe('ebs.csi.aws.com: stuck unmounts follow kube-system/ebs-csi-node revision 2');
    expect(inc?.explanations?.join('\n')).toMatch(/2 pods stuck Terminating: .* 1 pod of them show no event/);
    expect(drain('n-01').decision).toBe('BLOCK');
    expect(drain('n-02').decision).toBe('BLOCK');
    // the block still says not to force-delete the pods stuck Terminating there
    expect(drain('n-01').steps.join('\n')).toMatch(/Do not force-delete the pods stuck Terminating/);
  });
});
