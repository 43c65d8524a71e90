// Workload resolution up the owner chain.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { WorkloadRef } from '../../src/domain/findings.js';
import type { Pod } from '../../src/domain/objects.js';
import { resolveWorkload } from '../../src/detect/owner.js';
import { deploymentFromReplicaSet } from '../../src/domain/refs.js';
import { cronJob, cronJobJob, pod, snapshotOf } from './builders.js';

const cj = cronJob('ns', 'nightly-backup', '0 2 * * *');
const cjJob = cronJobJob(cj, '2026-11-30T02:00:00Z');
const bareJob = { kind: 'Job', metadata: { name: 'migrate', namespace: 'ns', uid: 'uid-job-migrate' } };
const index = ClusterIndex.fromSnapshot(snapshotOf([cj, cjJob, bareJob]));
const owned = (kind: string, name: string, uid = `uid-${name}`, labels?: Record<string, string>): Pod =>
  pod('p', { ns: 'ns', owner: { kind, name, uid }, ...(labels ? { labels } : {}) });

describe('resolveWorkload', () => {
  it.each<[string, Pod, WorkloadRef]>([
    // ReplicaSet with the pod-template-hash suffix: the Deployment
    [
      'deployment',
      owned('ReplicaSet', 'search-7d9f8c6b5', 'u', { 'pod-template-hash': '7d9f8c6b5' }),
      { kind: 'Deployment', namespace: 'ns', name: 'search' },
    ],
    // ReplicaSet without the label: a bare ReplicaSet
    [
      'bare replicaset',
      owned('ReplicaSet', 'search-7d9f8c6b5'),
      { kind: 'ReplicaSet', namespace: 'ns', name: 'search-7d9f8c6b5' },
    ],
    // hash label that is not the name's suffix: do not guess
    [
      'mismatched hash',
      owned('ReplicaSet', 'search-abc', 'u', { 'pod-template-hash': 'xyz' }),
      { kind: 'ReplicaSet', namespace: 'ns', name: 'search-abc' },
    ],
    // Job owned by a CronJob, followed by uid
    [
      'cronjob',
      owned('Job', cjJob.metadata!.name!, cjJob.metadata!.uid!),
      { kind: 'CronJob', namespace: 'ns', name: 'nightly-backup' },
    ],
    // a Job nobody owns
    ['bare job', owned('Job', 'migrate', 'uid-job-migrate'), { kind: 'Job', namespace: 'ns', name: 'migrate' }],
    // a Job the cache does not hold
    ['unknown job', owned('Job', 'gone', 'uid-gone'), { kind: 'Job', namespace: 'ns', name: 'gone' }],
    ['statefulset', owned('StatefulSet', 'postgres'), { kind: 'StatefulSet', namespace: 'ns', name: 'postgres' }],
    ['daemonset', owned('DaemonSet', 'ebs-csi-node'), { kind: 'DaemonSet', namespace: 'ns', name: 'ebs-csi-node' }],
    // no owner: the pod itself
    ['bare pod', pod('lonely', { ns: 'ns' }), { kind: 'Pod', namespace: 'ns', name: 'lonely' }],
  ])('%s', (_name, p, want) => {
    expect(resolveWorkload(index, p)).toEqual(want);
  });

  it.each([
    ['web-5d4f7', '5d4f7', 'web'],
    ['web-5d4f7', undefined, undefined],
    ['-5d4f7', '5d4f7', undefined],
    ['my-app-v2-6b8c9', '6b8c9', 'my-app-v2'],
  ])('deploymentFromReplicaSet(%s, %s)', (rs, hash, want) => {
    expect(deploymentFromReplicaSet(rs, hash)).toBe(want);
  });
});
