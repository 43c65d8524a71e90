// Realistic objects in the shapes `kubectl get -o json` prints (nulls and missing fields included), for the
// triage and kube tests. Each builder takes the fields a case varies; the rest are plausible defaults.
import { emptySnapshot, type Snapshot } from '../../src/domain/snapshot.js';
import type {
  CSIDriver,
  CSINode,
  KubeEvent,
  Lease,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
  VolumeAttachment,
} from '../../src/domain/objects.js';

/** Evaluation time used by every triage test. */
export const NOW = Date.parse('2026-11-30T02:00:00Z');
/** The driver under test. */
export const DRIVER = 'csi.vmstore.tintri.com';

/** RFC 3339 time `secondsAgo` before NOW, as the API prints it. */
export const ago = (secondsAgo: number): string =>
  new Date(NOW - secondsAgo * 1000).toISOString().replace('.000Z', 'Z');

export function storageClass(
  name: string,
  mode: 'Immediate' | 'WaitForFirstConsumer' | null = 'Immediate',
  provisioner = DRIVER,
): StorageClass {
  const sc: StorageClass = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name,
      uid: `uid-sc-${name}`,
      resourceVersion: '101',
      creationTimestamp: ago(86400 * 30),
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"huge":"json"}\n' },
    },
    provisioner,
    parameters: { vmstore: 'vmstore-01.example.com' },
    reclaimPolicy: 'Delete',
    allowVolumeExpansion: true,
  };
  if (mode) sc.volumeBindingMode = mode; // absent means Immediate, as the API defaults it
  return sc;
}

export function pvc(
  ns: string,
  name: string,
  o: { phase?: string; volume?: string | null; sc?: string | null; modes?: string[] } = {},
): PersistentVolumeClaim {
  const volume = o.volume === undefined ? `pvc-${name}` : o.volume;
  const phase = o.phase ?? (volume ? 'Bound' : 'Pending');
  const c: PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: ns,
      uid: `uid-pvc-${ns}-${name}`,
      resourceVersion: '202',
      creationTimestamp: ago(7200),
      finalizers: ['kubernetes.io/pvc-protection'],
      annotations: { 'volume.kubernetes.io/storage-provisioner': DRIVER },
    },
    spec: {
      accessModes: o.modes ?? ['ReadWriteMany'],
      storageClassName: o.sc === undefined ? 'vmstore-rwx' : o.sc,
      volumeMode: 'Filesystem',
      resources: { requests: { storage: '10Gi' } },
    } as PersistentVolumeClaim['spec'],
    status: phase === 'Bound' ? { phase, accessModes: o.modes ?? ['ReadWriteMany'] } : { phase },
  };
  if (volume) c.spec!.volumeName = volume;
  return c;
}

export function pv(
  name: string,
  claim: { ns: string; name: string },
  driver: string | null = DRIVER,
): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name,
      uid: `uid-${name}`,
      creationTimestamp: ago(7100),
      finalizers: ['kubernetes.io/pv-protection'],
      annotations: { 'pv.kubernetes.io/provisioned-by': DRIVER },
    },
    spec: {
      accessModes: ['ReadWriteMany'],
      storageClassName: 'vmstore-rwx',
      persistentVolumeReclaimPolicy: 'Delete',
      claimRef: { namespace: claim.ns, name: claim.name, uid: `uid-pvc-${claim.ns}-${claim.name}` },
      ...(driver
        ? { csi: { driver, volumeHandle: `vmstore-01:/tintri/${name}` } }
        : { nfs: { server: '10.0.0.9', path: '/export' } }),
    },
    status: { phase: 'Bound' },
  };
}

export type PodState = 'running' | 'creating' | 'terminating' | 'succeeded' | 'pending-unscheduled';

export function pod(
  ns: string,
  name: string,
  o: {
    claim?: string;
    node?: string | null;
    state?: PodState;
    startedAgo?: number;
    deletedAgo?: number;
    finalizers?: string[] | null;
  } = {},
): Pod {
  const state = o.state ?? 'running';
  const node = o.node === undefined ? 'node-01' : o.node;
  const start = ago(o.startedAgo ?? 3600);
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      uid: `uid-pod-${ns}-${name}`,
      resourceVersion: '303',
      creationTimestamp: start,
      labels: { app: 'web', 'pod-template-hash': '5d9c8f7b6' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d9c8f7b6', uid: 'uid-rs-web', controller: true },
      ],
      managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:metadata': {} } }],
    } as Pod['metadata'],
    spec: {
      volumes: [
        ...(o.claim ? [{ name: 'data', persistentVolumeClaim: { claimName: o.claim } }] : []),
        { name: 'kube-api-access-x1', projected: { defaultMode: 420, sources: [] } },
      ],
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          volumeMounts: o.claim ? [{ name: 'data', mountPath: '/data' }] : null,
          resources: {},
        },
      ],
      terminationGracePeriodSeconds: 30,
      serviceAccountName: 'default',
      tolerations: null,
    },
    status: {
      phase: 'Running',
      startTime: start,
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: start }],
      containerStatuses: [
        { name: 'web', ready: true, restartCount: 0, image: 'nginx:1.27', state: { running: { startedAt: start } } },
      ],
    },
  };
  if (node) p.spec!.nodeName = node;
  if (state === 'creating') {
    p.status = {
      phase: 'Pending',
      startTime: start,
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: start }],
      containerStatuses: [
        {
          name: 'web',
          ready: false,
          restartCount: 0,
          image: 'nginx:1.27',
          state: { waiting: { reason: 'ContainerCreating' } },
        },
      ],
    };
  }
  if (state === 'pending-unscheduled')
    p.status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] };
  if (state === 'succeeded') p.status = { phase: 'Succeeded', containerStatuses: null };
  if (state === 'terminating') {
    p.metadata!.deletionTimestamp = ago(o.deletedAgo ?? 600);
    p.metadata!.deletionGracePeriodSeconds = 30;
    p.metadata!.finalizers = o.finalizers === undefined ? ['example.com/drain-guard'] : o.finalizers;
  }
  return p;
}

export function event(
  ns: string,
  kind: string,
  name: string,
  reason: string,
  message: string,
  o: { count?: number | null; lastAgo?: number; type?: string; series?: boolean } = {},
): KubeEvent {
  const e: KubeEvent = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${name}.18a${reason.length}${o.lastAgo ?? 60}`,
      namespace: ns,
      uid: `uid-ev-${name}-${reason}-${o.lastAgo ?? 60}`,
      creationTimestamp: ago(3600),
    },
    involvedObject: { kind, namespace: ns, name, uid: `uid-${name}` },
    reason,
    message,
    type: o.type ?? 'Warning',
    count: o.count === undefined ? 7 : o.count,
    firstTimestamp: ago(3600),
    lastTimestamp: o.series ? null : ago(o.lastAgo ?? 60),
    eventTime: null,
    source: { component: kind === 'Pod' ? 'kubelet' : 'csi-provisioner' },
  };
  if (o.series) {
    e.series = { count: 42, lastObservedTime: ago(o.lastAgo ?? 60) };
    e.eventTime = ago(3600);
  }
  return e;
}

export function va(
  name: string,
  pvName: string,
  node: string,
  attached = true,
  o: { deleting?: boolean; detachError?: string } = {},
): VolumeAttachment {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: {
      name,
      uid: `uid-${name}`,
      creationTimestamp: ago(86400),
      ...(o.deleting ? { deletionTimestamp: ago(300) } : {}),
    },
    spec: { attacher: DRIVER, nodeName: node, source: { persistentVolumeName: pvName } },
    status: { attached, ...(o.detachError ? { detachError: { message: o.detachError, time: ago(200) } } : {}) },
  };
}

export function node(name: string, o: { unschedulable?: boolean; taint?: string } = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-${name}`, labels: { 'kubernetes.io/hostname': name } },
    spec: {
      ...(o.unschedulable ? { unschedulable: true } : {}),
      taints: o.taint ? [{ key: o.taint, effect: 'NoSchedule' }] : null,
    },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

export function csiNode(name: string, drivers: string[] | null): CSINode {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name, uid: `uid-csinode-${name}` },
    spec: { drivers: drivers === null ? null : drivers.map((d) => ({ name: d, nodeID: name })) },
  };
}

export function csiDriver(
  name = DRIVER,
  spec: CSIDriver['spec'] = { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Persistent'] },
): CSIDriver {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name, uid: `uid-csidriver-${name}` }, spec };
}

export function lease(
  name: string,
  o: { holder?: string | null; renewedAgo?: number | null; duration?: number | null; ns?: string } = {},
): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: o.ns ?? 'vmstore-csi', uid: `uid-lease-${name}` },
    spec: {
      holderIdentity: o.holder === undefined ? 'vmstore-csi-controller-7d9f-0' : o.holder,
      leaseDurationSeconds: o.duration === undefined ? 15 : o.duration,
      renewTime: o.renewedAgo === null ? null : ago(o.renewedAgo ?? 5),
      acquireTime: ago(86400),
    },
  };
}

/**
 * A healthy base cluster: two nodes with the driver registered, the CSIDriver, a live leader Lease and an
 * Immediate and a WaitForFirstConsumer class; no claims. Cases add their objects to it.
 */
export function baseCluster(): Snapshot {
  const s = emptySnapshot();
  s.nodes.push(node('node-01'), node('node-02'));
  s.csiNodes.push(csiNode('node-01', [DRIVER]), csiNode('node-02', [DRIVER]));
  s.csiDrivers.push(csiDriver());
  s.leases.push(lease('csi-vmstore-tintri-com'));
  s.storageClasses.push(
    storageClass('vmstore-rwx', 'Immediate'),
    storageClass('vmstore-rwx-wffc', 'WaitForFirstConsumer'),
  );
  return s;
}

/** A bound claim with its PV and a running pod on node-01. */
export function healthyClaim(s: Snapshot, ns: string, name: string): void {
  s.pvcs.push(pvc(ns, name));
  s.pvs.push(pv(`pvc-${name}`, { ns, name }));
  s.pods.push(pod(ns, `${name}-web-0`, { claim: name }));
}
