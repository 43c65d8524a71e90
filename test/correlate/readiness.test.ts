// Workload readiness (src/correlate/readiness.ts), one table. A pod counts as ready when its Ready condition is
// True, as Kubernetes decides it (pkg/api/v1/pod/util.go IsPodReady: the PodReady condition with status True;
// staging/src/k8s.io/api/core/v1/types.go: PodReady "means the pod is able to service requests"): False, Unknown
// (a node that stopped reporting) and no condition at all (a Pending pod) are not ready.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { DaemonSet, Pod } from '../../src/domain/objects.js';
import type { WorkloadRef } from '../../src/domain/findings.js';
import { isPodReady, workloadReadiness } from '../../src/correlate/readiness.js';
import { HOUR, ago, pod, snapshotOf } from '../detect/builders.js';

const started = ago(HOUR);
const rs = (name: string, uid = `uid-rs-${name}`) => ({ kind: 'ReplicaSet', name, uid });
/** A pod of Deployment `dep`'s ReplicaSet with pod-template-hash `hash`. */
const depPod = (name: string, dep: string, hash: string, ready: boolean | undefined): Pod =>
  pod(name, {
    ns: 'web',
    owner: rs(`${dep}-${hash}`),
    labels: { 'pod-template-hash': hash },
    ...(ready === undefined ? { waiting: 'ContainerCreating' } : { started, ready }),
  });
const withReady = (p: Pod, status: string): Pod => ({
  ...p,
  status: { ...p.status, conditions: [{ type: 'Ready', status }] },
});
const sts = { kind: 'StatefulSet', name: 'db', uid: 'uid-sts-db' };
const ds = (status?: DaemonSet['status']): DaemonSet => ({
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: 'web', uid: 'uid-ds-agent' },
  ...(status ? { status } : {}),
});
const dsOwner = { kind: 'DaemonSet', name: 'agent', uid: 'uid-ds-agent' };

const objects = [
  // Deployment frontend across two ReplicaSets (a rollout part-way): 3 ready of 5 that exist.
  depPod('frontend-aaa-1', 'frontend', 'aaa', true),
  depPod('frontend-aaa-2', 'frontend', 'aaa', true),
  depPod('frontend-bbb-1', 'frontend', 'bbb', true),
  depPod('frontend-bbb-2', 'frontend', 'bbb', undefined),
  withReady(depPod('frontend-bbb-3', 'frontend', 'bbb', true), 'Unknown'),
  // Deployment frontend-api: its ReplicaSet name starts with "frontend-" but the hash says whose it is.
  depPod('frontend-api-ccc-1', 'frontend-api', 'ccc', false),
  // A bare ReplicaSet (no pod-template-hash): its own workload, by owner uid.
  pod('batch-x1', { ns: 'web', owner: rs('batch'), started, ready: true }),
  pod('batch-x2', { ns: 'web', owner: rs('batch'), waiting: 'ContainerCreating' }),
  // StatefulSet db: 1 ready of 3.
  pod('db-0', { ns: 'web', owner: sts, started, ready: true }),
  pod('db-1', { ns: 'web', owner: sts, started, ready: false }),
  pod('db-2', { ns: 'web', owner: sts, waiting: 'ContainerCreating' }),
  // DaemonSet pods: 1 of 2 ready (counted only when the DaemonSet has no status).
  pod('agent-a', { ns: 'web', owner: dsOwner, started, ready: true }),
  pod('agent-b', { ns: 'web', owner: dsOwner, waiting: 'ContainerCreating' }),
];
const index = (extra: object[] = []) => ClusterIndex.fromSnapshot(snapshotOf([...objects, ...extra]));
const ref = (kind: string, name: string): WorkloadRef => ({ kind, namespace: 'web', name });

describe('isPodReady', () => {
  it.each([
    ['Ready True', withReady(pod('p'), 'True'), true],
    ['Ready False (a container failing its readiness probe)', withReady(pod('p'), 'False'), false],
    ['Ready Unknown (its node stopped reporting)', withReady(pod('p'), 'Unknown'), false],
    ['no Ready condition (Pending, ContainerCreating)', pod('p', { waiting: 'ContainerCreating' }), false],
  ])('%s', (_name, p, want) => {
    expect(isPodReady(p)).toBe(want);
  });
});

describe('workloadReadiness', () => {
  it.each([
    // Every pod of every ReplicaSet of the Deployment, by the name rule; Unknown and Pending are not ready.
    [
      'a Deployment across its ReplicaSets',
      ref('Deployment', 'frontend'),
      undefined,
      [],
      { ready: 3, of: 5, counted: 'existing' },
    ],
    // A name prefix is not ownership: only pods whose hash makes their ReplicaSet frontend-api's.
    [
      'a Deployment whose name extends another',
      ref('Deployment', 'frontend-api'),
      undefined,
      [],
      { ready: 0, of: 1, counted: 'existing' },
    ],
    [
      'a StatefulSet, by its owner uid',
      ref('StatefulSet', 'db'),
      'uid-sts-db',
      [],
      { ready: 1, of: 3, counted: 'existing' },
    ],
    [
      'a bare ReplicaSet, by its owner uid',
      ref('ReplicaSet', 'batch'),
      'uid-rs-batch',
      [],
      { ready: 1, of: 2, counted: 'existing' },
    ],
    // The DaemonSet is read: its status is the answer, of the nodes it should run on.
    [
      'a DaemonSet, from its status',
      ref('DaemonSet', 'agent'),
      'uid-ds-agent',
      [ds({ desiredNumberScheduled: 5, numberReady: 3 })],
      { ready: 3, of: 5, counted: 'desired' },
    ],
    [
      'a DaemonSet whose status has no numberReady yet',
      ref('DaemonSet', 'agent'),
      'uid-ds-agent',
      [ds({ desiredNumberScheduled: 4 })],
      { ready: 0, of: 4, counted: 'desired' },
    ],
    [
      'a DaemonSet without a status: its pods',
      ref('DaemonSet', 'agent'),
      'uid-ds-agent',
      [ds()],
      { ready: 1, of: 2, counted: 'existing' },
    ],
    ['a StatefulSet whose owner uid is unknown', ref('StatefulSet', 'db'), undefined, [], undefined],
    ['a Deployment with no pod in the cache', ref('Deployment', 'gone'), undefined, [], undefined],
    ['a bare pod', ref('Pod', 'db-0'), undefined, [], undefined],
    ['a Job', ref('Job', 'nightly'), 'uid-job', [], undefined],
    ['a CronJob (its missed runs are its state)', ref('CronJob', 'nightly'), undefined, [], undefined],
  ])('%s', (_name, w, uid, extra, want) => {
    expect(workloadReadiness(index(extra), w, uid)).toEqual(want);
  });
});
