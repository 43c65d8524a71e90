// A tiny kubelet and provisioner. Claims created through the API bind at once to a new CSI volume. Pods waiting in
// ContainerCreating (created through the API, or scenario pods with a claim volume) start about a second after
// their node can mount, and on a node that cannot they stay ContainerCreating while FailedMount's count rises.
// A node cannot mount when the scenario lists it in `kubelet.brokenNodes` or its node plugin pod runs a revision
// hash listed in `kubelet.brokenRevisionHashes`. Pods annotated `sim.rwx.dev/kubelet: ignore` are left alone, and so
// are bulk-loaded pods nothing has changed since (bulk.ts).
import type { KubeObject, Pod, Rec } from './objects.js';
import { parseDuration } from './duration.js';
import type { Lookup } from './defaults.js';
import type { Resources } from './resources.js';
import type { Scheduler } from './scheduler.js';
import type { KubeletModel } from './scenario.js';
import type { ObjectStore } from './store.js';
import { materialize, resolveRefs } from './defaults.js';
import { stableUid } from './template.js';
import { podStatus } from './pod-status.js';
import { formatTime } from './times.js';

type StorageClass = KubeObject & { provisioner?: string };

/** What the kubelet works on: the cluster's store and scheduler, and a way to let controllers react. */
export interface KubeletHost {
  readonly store: ObjectStore;
  readonly scheduler: Scheduler;
  readonly resources: Resources;
  readonly lookup: Lookup;
  /** uids of pods created through the API. */
  readonly createdPods: Set<string>;
  /** Bulk-loaded pods nothing has changed since: left as they are. */
  readonly atRest: WeakSet<KubeObject>;
  kubelet: KubeletModel;
  /** Runs controllers and the kubelet after a change. */
  settle(now: number): void;
}

/** Annotation: how long a run-to-completion pod runs before Succeeded (default 500ms). */
export const RUNS_FOR = 'sim.rwx.dev/runs-for';

function claimVolumes(pod: Pod): string[] {
  return (pod.spec?.volumes ?? []).filter((v) => v.persistentVolumeClaim).map((v) => v.name ?? '');
}

function waitingToCreate(pod: Pod): boolean {
  return (
    pod.status?.phase === 'Pending' &&
    !!pod.spec?.nodeName &&
    (pod.status.containerStatuses ?? [{ state: { waiting: { reason: 'ContainerCreating' } } }]).some(
      (c) => c.state?.waiting?.reason === 'ContainerCreating',
    )
  );
}

function brokenNodes(c: KubeletHost): Set<string> {
  const out = new Set(c.kubelet.brokenNodes ?? []);
  const hashes = new Set(c.kubelet.brokenRevisionHashes ?? []);
  if (hashes.size === 0) return out;
  for (const p of c.store.list('/pods') as Pod[]) {
    const h = p.metadata?.labels?.['controller-revision-hash'];
    if (h && hashes.has(h) && p.spec?.nodeName && !p.metadata?.deletionTimestamp) out.add(p.spec.nodeName);
  }
  return out;
}

function failedMountMessage(pod: Pod): string {
  const unmounted = `unmounted volumes=[${claimVolumes(pod).join(' ')}]`;
  return `Unable to attach or mount volumes: ${unmounted}, unattached volumes=[], timed out waiting for the condition`;
}

function bumpFailedMount(c: KubeletHost, pod: Pod, now: number): void {
  const ns = pod.metadata?.namespace ?? 'default';
  const existing = c.store
    .list('/events')
    .find(
      (e) =>
        e.metadata?.namespace === ns &&
        e.reason === 'FailedMount' &&
        (e.involvedObject as Rec | undefined)?.name === pod.metadata?.name,
    );
  if (existing) {
    c.store.put('/events', {
      ...existing,
      count: Number(existing.count ?? 1) + 1,
      lastTimestamp: formatTime(now),
      message: existing.message,
    });
    return;
  }
  const ev = materialize(
    {
      kind: 'Event',
      metadata: { namespace: ns },
      involvedObject: {
        kind: 'Pod',
        namespace: ns,
        name: pod.metadata?.name,
        uid: pod.metadata?.uid,
        apiVersion: 'v1',
      },
      reason: 'FailedMount',
      type: 'Warning',
      message: failedMountMessage(pod),
      source: { component: 'kubelet', host: pod.spec?.nodeName },
      firstTimestamp: formatTime(now),
      lastTimestamp: formatTime(now),
    },
    now,
    `${pod.metadata?.uid}|failedmount`,
    c.resources,
  );
  c.store.put('/events', ev);
}

function setPodState(c: KubeletHost, uid: string, key: string, state: 'Running' | 'Succeeded', now: number): boolean {
  const pod = c.store.get('/pods', key) as Pod | undefined;
  if (!pod || pod.metadata?.uid !== uid || pod.metadata?.deletionTimestamp) return false;
  const start = Date.parse(pod.status?.startTime ?? '') || now;
  c.store.put('/pods', { ...pod, status: podStatus(pod, state, now, start) });
  return true;
}

function runsToCompletion(pod: Pod): boolean {
  return pod.spec?.restartPolicy !== 'Always' || pod.metadata?.annotations?.[RUNS_FOR] !== undefined;
}

/** Moves mount-waiting pods along: schedules start on healthy nodes, FailedMount bumps on broken ones. */
export function kubeletSync(c: KubeletHost, now: number): void {
  const broken = brokenNodes(c);
  const interval = parseDuration(c.kubelet.failedMountInterval ?? '2m', 'kubelet.failedMountInterval');
  for (const pod of c.store.list('/pods') as Pod[]) {
    const uid = pod.metadata?.uid ?? '';
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    const created = c.createdPods.has(uid);
    if (!waitingToCreate(pod) || pod.metadata?.deletionTimestamp || c.atRest.has(pod)) continue;
    if (pod.metadata?.annotations?.['sim.rwx.dev/kubelet'] === 'ignore') continue;
    // Scenario pods are the kubelet's only when they wait on a claim; other ContainerCreating causes are scripted.
    if (!created && claimVolumes(pod).length === 0) continue;
    if (broken.has(pod.spec?.nodeName ?? '')) {
      c.scheduler.cancel(`start:${uid}`);
      c.scheduler.schedule(
        now + interval,
        (t) => {
          const cur = c.store.get('/pods', key) as Pod | undefined;
          if (cur?.metadata?.uid === uid && waitingToCreate(cur) && brokenNodes(c).has(cur.spec?.nodeName ?? ''))
            bumpFailedMount(c, cur, t);
          c.settle(t);
        },
        `mount:${uid}`,
      );
      continue;
    }
    c.scheduler.cancel(`mount:${uid}`);
    c.scheduler.schedule(
      now + (created ? 300 : 1000),
      (t) => {
        if (!setPodState(c, uid, key, 'Running', t)) return;
        const cur = c.store.get('/pods', key) as Pod;
        if (runsToCompletion(cur)) {
          const runFor = parseDuration(cur.metadata?.annotations?.[RUNS_FOR] ?? '500ms', RUNS_FOR);
          c.scheduler.schedule(
            t + runFor,
            (t2) => {
              setPodState(c, uid, key, 'Succeeded', t2);
              c.settle(t2);
            },
            `finish:${uid}`,
          );
        }
        c.settle(t);
      },
      `start:${uid}`,
    );
  }
}

/** Drops pending kubelet work for a deleted pod. */
export function forgetPod(c: KubeletHost, pod: KubeObject): void {
  const uid = pod.metadata?.uid ?? '';
  for (const k of ['start', 'mount', 'finish']) c.scheduler.cancel(`${k}:${uid}`);
  c.createdPods.delete(uid);
}

/** Binds a newly created claim to a fresh CSI volume when its StorageClass exists; else a ProvisioningFailed event. */
export function provisionClaim(c: KubeletHost, pvc: KubeObject, now: number): void {
  const spec = (pvc.spec ?? {}) as Rec;
  const classes = c.store.list('storage.k8s.io/storageclasses') as StorageClass[];
  const sc =
    typeof spec.storageClassName === 'string'
      ? classes.find((s) => s.metadata?.name === spec.storageClassName)
      : classes.find((s) => s.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
  const ns = pvc.metadata?.namespace ?? 'default';
  if (!sc) {
    const ev = materialize(
      {
        kind: 'Event',
        metadata: { namespace: ns },
        type: 'Warning',
        reason: 'ProvisioningFailed',
        involvedObject: {
          kind: 'PersistentVolumeClaim',
          namespace: ns,
          name: pvc.metadata?.name,
          uid: pvc.metadata?.uid,
          apiVersion: 'v1',
        },
        message: `storageclass.storage.k8s.io "${String(spec.storageClassName ?? '')}" not found`,
        source: { component: 'persistentvolume-controller' },
      },
      now,
      `${pvc.metadata?.uid}|provision`,
      c.resources,
    );
    c.store.put('/events', ev);
    return;
  }
  const pvName = `pvc-${pvc.metadata?.uid}`;
  const storage = ((spec.resources as Rec | undefined)?.requests as Rec | undefined)?.storage ?? '1Gi';
  const pv = materialize(
    {
      kind: 'PersistentVolume',
      metadata: {
        name: pvName,
        annotations: {
          'pv.kubernetes.io/provisioned-by': sc.provisioner ?? '',
          'volume.kubernetes.io/provisioner-deletion-secret-name': '',
          'volume.kubernetes.io/provisioner-deletion-secret-namespace': '',
        },
        finalizers: ['external-provisioner.volume.kubernetes.io/finalizer', 'kubernetes.io/pv-protection'],
      },
      spec: {
        accessModes: spec.accessModes,
        capacity: { storage },
        claimRef: {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          name: pvc.metadata?.name,
          namespace: ns,
          resourceVersion: pvc.metadata?.resourceVersion,
          uid: pvc.metadata?.uid,
        },
        csi: {
          driver: sc.provisioner,
          fsType: 'ext4',
          volumeHandle: `vol-${stableUid(pvName).replace(/-/g, '').slice(0, 17)}`,
        },
        persistentVolumeReclaimPolicy: (sc as Rec).reclaimPolicy ?? 'Delete',
        storageClassName: sc.metadata?.name,
        volumeMode: spec.volumeMode ?? 'Filesystem',
      },
      status: { lastPhaseTransitionTime: formatTime(now), phase: 'Bound' },
    },
    now,
    'provisioner',
    c.resources,
  );
  // Dynamically provisioned volumes are deleted with their claim; no finalizer controller runs here.
  delete pv.metadata?.finalizers;
  resolveRefs(pv, c.lookup, c.resources);
  c.store.put('/persistentvolumes', pv);
  const cur = c.store.get('/persistentvolumeclaims', `${ns}/${pvc.metadata?.name}`) ?? pvc;
  c.store.put('/persistentvolumeclaims', {
    ...cur,
    metadata: {
      ...cur.metadata,
      annotations: {
        ...cur.metadata?.annotations,
        'pv.kubernetes.io/bind-completed': 'yes',
        'pv.kubernetes.io/bound-by-controller': 'yes',
        'volume.beta.kubernetes.io/storage-provisioner': sc.provisioner ?? '',
        'volume.kubernetes.io/storage-provisioner': sc.provisioner ?? '',
      },
    },
    spec: { ...spec, volumeName: pvName },
    status: { accessModes: spec.accessModes, capacity: { storage }, phase: 'Bound' },
  });
}
