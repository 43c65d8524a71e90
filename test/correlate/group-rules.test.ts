// The grouping rules (src/correlate/group.ts GROUP_RULES), one case each: the smallest cluster that rule decides,
// and the incident it makes. Every rule in the list has a case here, so a new rule comes with its test.
import { describe, expect, it } from 'vitest';
import { GROUP_RULES } from '../../src/correlate/group.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { NOW, MIN, ago, cronJob, snapshotOf } from '../detect/builders.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { miniCluster, type MiniOpts } from './mini-cluster.js';

const keys = (o: MiniOpts | ClusterIndex): string[][] =>
  evaluate(o instanceof ClusterIndex ? o : miniCluster(o), { now: NOW }).incidents.map((i) => [
    i.key,
    i.verdict,
    i.pods.map((p) => p.pod.name).join(','),
  ]);

const CASES: Record<string, { cluster: MiniOpts | ClusterIndex; want: string[][] }> = {
  // A sandbox failure is not storage (a fault held by another node is test/scenarios/layers.test.ts's).
  'held by a node, not storage (0, 1)': {
    cluster: { pods: [{ name: 'a', node: 'n-04', reason: 'FailedCreatePodSandBox' }] },
    want: [['not-storage', 'NOT_STORAGE', 'a']],
  },
  // One claim failing on two nodes that mount other volumes of its driver: the volume's fault.
  'a volume fault (2b)': {
    cluster: {
      pods: [
        { name: 'a', node: 'n-01', claim: 'shared' },
        { name: 'b', node: 'n-02', claim: 'shared' },
        { name: 'ok1', node: 'n-01', runningFor: 10 * MIN },
        { name: 'ok2', node: 'n-02', runningFor: 10 * MIN },
      ],
    },
    want: [['volume/ns/shared', 'UNEXPLAINED', 'a,b']],
  },
  // Stuck mounts on the two revision-2 nodes, none on the eight revision-1 nodes: the rollout.
  'mounts follow a rollout (3)': {
    cluster: {
      onRevision2: ['n-01', 'n-02'],
      pods: [
        { name: 'a', node: 'n-01' },
        { name: 'b', node: 'n-02' },
      ],
    },
    want: [['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT', 'a,b']],
  },
  // No event at all, on a node off any rollout: cause unknown.
  'cause unknown (2)': {
    cluster: { pods: [{ name: 'a', node: 'n-04', reason: 'none' }] },
    want: [['unexplained/cause-unknown', 'UNEXPLAINED', 'a']],
  },
  // Unmounts stuck on the two revision-2 nodes only: the rollout.
  'unmounts follow a rollout (4)': {
    cluster: {
      onRevision2: ['n-01', 'n-02'],
      pods: [
        { name: 'a', node: 'n-01', terminating: true },
        { name: 'b', node: 'n-02', terminating: true },
      ],
    },
    want: [['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT', 'a,b']],
  },
  // Two workloads stuck on n-03 only, nothing mounts there: the node.
  'the node, else unexplained (5)': {
    cluster: {
      pods: [
        { name: 'a', node: 'n-03' },
        { name: 'b', node: 'n-03' },
      ],
    },
    want: [['node/n-03', 'FOLLOWS_NODE', 'a,b']],
  },
  // A CronJob with no stuck pod of its Jobs: its own group.
  'CronJobs join their pods (6)': {
    cluster: ClusterIndex.fromSnapshot(
      snapshotOf([cronJob('d', 'b', '0 2 * * *', { lastSuccess: ago(3 * 24 * 60 * MIN) })]),
    ),
    want: [['cronjob/d/b', 'UNEXPLAINED', '']],
  },
};

describe('grouping rules, one case each', () => {
  it('every rule in GROUP_RULES has a case, in the order they run', () => {
    expect(GROUP_RULES.map((r) => r.name)).toEqual(Object.keys(CASES).sort((a, b) => order(a) - order(b)));
  });

  it.each(Object.entries(CASES))('%s', (_name, { cluster, want }) => {
    expect(keys(cluster)).toEqual(want);
  });
});

/** A case's position in GROUP_RULES (the table above is in the file comment's order). */
function order(name: string): number {
  return GROUP_RULES.findIndex((r) => r.name === name);
}
