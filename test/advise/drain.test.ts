// Drain advice: BLOCK on the rollout's nodes, CAUTION for stuck terminations and stale attachments, OK otherwise.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { DrainAdvice } from '../../src/domain/incident.js';
import { isRwxError } from '../../src/errors.js';
import { adviseDrain, staleAttachments } from '../../src/advise/drain.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { ago, attachment, claim, DAY, event, MIN, NOW, pod, snapshotOf } from '../detect/builders.js';
import { miniCluster } from '../correlate/mini-cluster.js';
import { rolloutObjects } from '../correlate/rollout-fixture.js';

function advise(index: ClusterIndex, node: string): DrainAdvice {
  return adviseDrain(index, evaluate(index, { now: NOW }).incidents, node, NOW);
}

describe('adviseDrain on the rollout incident', () => {
  const index = ClusterIndex.fromSnapshot(snapshotOf(rolloutObjects()));

  it.each([
    // the node someone started draining: its stuck mount follows the rollout
    [
      'node-19',
      'BLOCK',
      /^Do not drain: the stuck mounts on node-19 follow kube-system\/ebs-csi-node revision 2, not the node; .*\(12 of 40\).*revision 2: 4 nodes stuck, 8 fine; revision 1: 0 stuck, 28 fine/,
    ],
    // on the bad revision without stuck pods: still BLOCK
    ['node-20', 'BLOCK', /node-20 runs kube-system\/ebs-csi-node revision 2, which does not mount new volumes/],
    // still on revision 1, nothing stuck
    ['node-02', 'OK', /^node-02 has no stuck mounts and its plugin is not on ebs-csi-node revision 2\.$/],
  ])('%s -> %s', (node, decision, reason) => {
    const a = advise(index, node);
    expect(a.decision).toBe(decision);
    expect(a.reason).toMatch(reason);
  });

  it('BLOCK says what to do instead', () => {
    expect(advise(index, 'node-19').steps).toEqual([
      'Stop the drain; keep node-19 cordoned but evict nothing more.',
      'Roll back to revision 1, the newest revision whose pod template the stuck nodes did not run (restores volumeMount kubelet-dir mountPropagation Bidirectional in container ebs-plugin): kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1',
      'Cordon the nodes on revision 2 while it rolls back: kubectl cordon node-15 node-16 node-17 node-18 node-19 node-20 node-21 node-22 node-23 node-24 node-25 node-26',
      'Leave stuck pods alone: the kubelet retries and they recover once the plugin is fixed.',
      'Drain node-19 later, if still needed, once its plugin pod is back on revision 1 and a test mount succeeds there.',
    ]);
  });

  it('an unknown node is a NOT_FOUND error', () => {
    let err: unknown;
    try {
      advise(index, 'node-99');
    } catch (e) {
      err = e;
    }
    expect(isRwxError(err, 'NOT_FOUND')).toBe(true);
  });
});

describe('CAUTION and OK', () => {
  const busy = 'UnmountVolume.TearDown failed for volume "shared" : umount: target is busy (device or resource busy)';

  it('a pod stuck Terminating on an RWX volume: the drain would hang', () => {
    const p = pod('writer', {
      ns: 'ns',
      node: 'n-02',
      scheduled: ago(DAY),
      started: ago(DAY),
      claims: { shared: 'shared' },
      deleted: ago(30 * MIN),
    });
    const index = miniCluster({
      extra: [
        ...claim('ns', 'shared', 'efs.csi.aws.com', ['ReadWriteMany']),
        p,
        event('ns', 'writer', 'FailedUnmount', busy, ago(MIN), 9),
      ],
    });
    const a = advise(index, 'n-02');
    expect([a.decision, a.reason]).toEqual([
      'CAUTION',
      '1 pod stuck Terminating (1 on RWX volumes) on n-02: the drain will hang on them.',
    ]);
    expect(a.steps[0]).toMatch(
      /^Do not force-delete the pods stuck Terminating \(ns\/writer\): force-deleting leaves the volume staged on the node with no pod using it/,
    );
  });

  it.each([
    // attached for a day, no pod on the node uses it
    ['unused', attachment('csi-old', 'pv-ns-orphan', 'n-03', true, ago(DAY)), true],
    // a detach error
    [
      'detach error',
      {
        ...attachment('csi-err', 'pv-ns-orphan', 'n-03'),
        status: { attached: true, detachError: { message: 'timeout' } },
      },
      true,
    ],
    // just attached: the pod may not be there yet
    ['fresh', attachment('csi-new', 'pv-ns-orphan', 'n-03', true, ago(MIN)), false],
  ])('stale attachment: %s', (_name, va, stale) => {
    const index = miniCluster({ extra: [...claim('ns', 'orphan', 'ebs.csi.aws.com'), va] });
    expect(staleAttachments(index, 'n-03', NOW, 5 * MIN).length).toBe(stale ? 1 : 0);
    expect(advise(index, 'n-03').decision).toBe(stale ? 'CAUTION' : 'OK');
  });

  it('an attachment in use by a pod on the node is not stale', () => {
    const index = miniCluster({
      pods: [{ name: 'db', node: 'n-03', runningFor: DAY }],
      extra: [attachment('csi-db', 'pv-ns-c-db', 'n-03', true, ago(DAY))],
    });
    expect(staleAttachments(index, 'n-03', NOW, 5 * MIN)).toEqual([]);
  });

  it.each([
    // a generic ephemeral volume's claim (not in the index by claim): found among the node's pods
    ['an ephemeral claim of a pod on the node', 'n-03', false],
    // the claim's pod runs elsewhere: stale here
    ['a claim whose pod is on another node', 'n-04', true],
  ])('an attachment for %s', (_name, podNode, stale) => {
    const db = {
      kind: 'Pod',
      metadata: { name: 'db', namespace: 'ns', uid: 'uid-db' },
      spec: { nodeName: podNode, volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: {} } }] },
      status: { phase: 'Running' },
    };
    const index = miniCluster({
      extra: [...claim('ns', 'db-scratch', 'ebs.csi.aws.com'), db, attachment('csi-db', 'pv-ns-db-scratch', 'n-03')],
    });
    expect(staleAttachments(index, 'n-03', NOW, 5 * MIN).length).toBe(stale ? 1 : 0);
  });

  it('a node whose own fault the stuck mounts follow: CAUTION, never OK (its stuck pods can hang the drain)', () => {
    const index = miniCluster({
      pods: [
        { name: 'a', node: 'n-03' },
        { name: 'b', node: 'n-03' },
      ],
    });
    const a = advise(index, 'n-03');
    expect([a.decision, a.reason]).toEqual([
      'CAUTION',
      'n-03 holds 2 stuck pods of incident node/n-03 (ns/a, ns/b): the fault follows n-03, so draining moves its pods to nodes where mounts work, but a pod stuck on a mount can hang the drain.',
    ]);
    expect(a.steps).toContain('Investigate the node after the drain: kubelet and node plugin logs, mount table.');
  });

  it('a quiet cluster: OK with a one-line reason', () => {
    expect(advise(miniCluster(), 'n-01')).toEqual({
      node: 'n-01',
      decision: 'OK',
      reason: 'No stuck mounts, stuck terminations or stale attachments on n-01, and no plugin rollout is implicated.',
      steps: [],
    });
  });
});
