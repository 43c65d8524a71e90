// Small builders for cluster objects in detector, correlator and drain tests. Times are ISO strings relative
// to a fixed NOW so every table row reads like an incident seen live ("scheduled 23m ago").
import { parseAllDocuments } from 'yaml';
import type {
  ControllerRevision,
  CronJob,
  CSINode,
  DaemonSet,
  Job,
  KubeEvent,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodTemplate,
  VolumeAttachment,
} from '../../src/domain/objects.js';
import { emptySnapshot, type Snapshot } from '../../src/domain/snapshot.js';
import { readManifest, UPSTREAM_DIR } from '../policy/manifests.js';

/** The evaluation time of every fixture: 2026-11-30T09:15:00Z ("this morning" in every fixture). */
export const NOW = Date.parse('2026-11-30T09:15:00Z');
/** ISO time `ms` before NOW. */
export const ago = (ms: number): string => new Date(NOW - ms).toISOString();
export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

/** Where the real upstream CSI manifests live, when they do (one rule, RWX_CSI_MANIFESTS included: test/policy/manifests.ts). */
export const MANIFESTS = UPSTREAM_DIR;

/** Every document of a manifest file (the project's fixtures by name, else upstream) that parses as YAML (Helm templates may not). */
const parsed = new Map<string, Record<string, unknown>[]>();
export function manifestDocs(file: string): Record<string, unknown>[] {
  const hit = parsed.get(file);
  if (hit) return structuredClone(hit);
  const docs = parseAllDocuments(readManifest(file));
  const out = docs
    .map((d) => {
      try {
        return d.toJS() as Record<string, unknown>;
      } catch {
        return null;
      }
    })
    .filter((d): d is Record<string, unknown> => !!d && typeof d === 'object');
  parsed.set(file, out);
  return structuredClone(out);
}

export function node(name: string, unschedulable = false): Node {
  return { kind: 'Node', metadata: { name, uid: `uid-node-${name}` }, spec: { unschedulable } };
}

export interface PodOpts {
  ns?: string;
  node?: string;
  phase?: string;
  scheduled?: string;
  waiting?: string;
  init?: string;
  owner?: { kind: string; name: string; uid: string };
  labels?: Record<string, string>;
  claims?: Record<string, string>;
  deleted?: string;
  grace?: number;
  finalizers?: string[];
  created?: string;
  started?: string;
  ready?: boolean;
}

/** A pod; Pending+waiting by default when `waiting` is set, Running when `started` is set. */
export function pod(name: string, o: PodOpts = {}): Pod {
  const phase = o.phase ?? (o.started ? 'Running' : 'Pending');
  const conditions = [
    ...(o.scheduled ? [{ type: 'PodScheduled', status: 'True', lastTransitionTime: o.scheduled }] : []),
    ...(o.ready !== undefined || o.started
      ? [
          {
            type: 'Ready',
            status: (o.ready ?? true) ? 'True' : 'False',
            lastTransitionTime: o.started ?? o.scheduled ?? null,
          },
        ]
      : []),
  ];
  return {
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.ns ?? 'default',
      uid: `uid-pod-${o.ns ?? 'default'}-${name}`,
      creationTimestamp: o.created ?? o.scheduled ?? ago(DAY),
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.owner ? { ownerReferences: [{ ...o.owner, controller: true, apiVersion: 'v1' }] } : {}),
      ...(o.deleted ? { deletionTimestamp: o.deleted, deletionGracePeriodSeconds: o.grace ?? 30 } : {}),
      ...(o.finalizers ? { finalizers: o.finalizers } : {}),
    },
    spec: {
      ...(o.node ? { nodeName: o.node } : {}),
      volumes: Object.entries(o.claims ?? {}).map(([vol, claim]) => ({
        name: vol,
        persistentVolumeClaim: { claimName: claim },
      })),
      containers: [{ name: 'main', image: 'app:1' }],
      ...(o.init ? { initContainers: [{ name: 'init', image: 'init:1' }] } : {}),
    },
    status: {
      phase,
      conditions,
      ...(o.init ? { initContainerStatuses: [{ name: 'init', state: { waiting: { reason: o.init } } }] } : {}),
      containerStatuses: [
        {
          name: 'main',
          state: o.started
            ? { running: { startedAt: o.started } }
            : { waiting: { reason: o.waiting ?? (o.init ? 'PodInitializing' : 'ContainerCreating') } },
        },
      ],
    },
  };
}

/** A bound claim and its CSI PV (name `pv-<ns>-<claim>`). */
export function claim(
  ns: string,
  name: string,
  driver: string,
  modes = ['ReadWriteOnce'],
  sc = 'gp3',
): [PersistentVolumeClaim, PersistentVolume] {
  const pvName = `pv-${ns}-${name}`;
  return [
    {
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: ns, uid: `uid-pvc-${ns}-${name}` },
      spec: { accessModes: modes, storageClassName: sc, volumeName: pvName },
      status: { phase: 'Bound', accessModes: modes },
    },
    {
      kind: 'PersistentVolume',
      metadata: { name: pvName, uid: `uid-${pvName}` },
      spec: {
        accessModes: modes,
        storageClassName: sc,
        claimRef: { namespace: ns, name },
        csi: { driver, volumeHandle: `vol-${name}` },
      },
      status: { phase: 'Bound' },
    },
  ];
}

/** A pod event. */
export function event(
  ns: string,
  podName: string,
  reason: string,
  message: string,
  last: string,
  count = 1,
  type = 'Warning',
): KubeEvent {
  return {
    kind: 'Event',
    metadata: { name: `${podName}.${reason}.${last}`, namespace: ns },
    involvedObject: { kind: 'Pod', namespace: ns, name: podName },
    reason,
    message,
    type,
    count,
    lastTimestamp: last,
    firstTimestamp: last,
  };
}

/** The kubelet's FailedMount message (a mount timeout) for the given volumes. */
export const failedMount = (vols: string[]) =>
  `Unable to attach or mount volumes: unmounted volumes=[${vols.join(' ')}], unattached volumes=[], timed out waiting for the condition`;

/** A VolumeAttachment of a PV to a node. */
export function attachment(
  name: string,
  pv: string,
  nodeName: string,
  attached = true,
  created = ago(DAY),
): VolumeAttachment {
  return {
    kind: 'VolumeAttachment',
    metadata: { name, uid: `uid-va-${name}`, creationTimestamp: created },
    spec: { attacher: 'ebs.csi.aws.com', nodeName, source: { persistentVolumeName: pv } },
    status: { attached },
  };
}

/** The aws-ebs-csi-driver node DaemonSet's shape (test/support/plugin-fixtures.ts) with a uid. */
export function ebsDaemonSet(): DaemonSet {
  const doc = manifestDocs('ebs-csi-node.yaml').find((d) => d.kind === 'DaemonSet') as DaemonSet;
  return { ...doc, metadata: { ...doc.metadata, namespace: 'kube-system', uid: 'uid-ds-ebs' } };
}

/** A copy of a template with mountPropagation removed from the named volumeMount of every container. */
export function withoutPropagation(t: PodTemplate, mount: string): PodTemplate {
  const copy = structuredClone(t);
  for (const c of copy.spec?.containers ?? [])
    for (const m of c.volumeMounts ?? []) if (m.name === mount) delete m.mountPropagation;
  return copy;
}

/** A ControllerRevision of a DaemonSet following the COMMON.md convention. */
export function revision(
  ds: DaemonSet,
  hash: string,
  rev: number,
  template: PodTemplate,
  created: string,
): ControllerRevision {
  const name = `${ds.metadata?.name}-${hash}`;
  return {
    kind: 'ControllerRevision',
    revision: rev,
    data: { spec: { template } },
    metadata: {
      name,
      namespace: ds.metadata?.namespace,
      uid: `uid-cr-${name}`,
      creationTimestamp: created,
      labels: { 'controller-revision-hash': hash },
      ownerReferences: [{ kind: 'DaemonSet', name: ds.metadata?.name, uid: ds.metadata?.uid, controller: true }],
    },
  };
}

/** A node plugin pod of a DaemonSet on a node, on the revision with `hash`, Running and Ready since `created`. */
export function pluginPod(ds: DaemonSet, nodeName: string, hash: string, created: string): Pod {
  const p = pod(`${ds.metadata?.name}-${nodeName}`, {
    ns: ds.metadata?.namespace ?? '',
    node: nodeName,
    scheduled: created,
    started: created,
    created,
    owner: { kind: 'DaemonSet', name: ds.metadata?.name ?? '', uid: ds.metadata?.uid ?? '' },
    labels: { app: ds.metadata?.name ?? '', 'controller-revision-hash': hash },
  });
  return p;
}

/** A CronJob. */
export function cronJob(
  ns: string,
  name: string,
  schedule: string,
  o: { lastSuccess?: string; created?: string; tz?: string; suspend?: boolean; deadline?: number } = {},
): CronJob {
  return {
    kind: 'CronJob',
    metadata: { name, namespace: ns, uid: `uid-cj-${ns}-${name}`, creationTimestamp: o.created ?? ago(30 * DAY) },
    spec: {
      schedule,
      ...(o.tz ? { timeZone: o.tz } : {}),
      ...(o.suspend ? { suspend: true } : {}),
      ...(o.deadline !== undefined ? { startingDeadlineSeconds: o.deadline } : {}),
    },
    status: { ...(o.lastSuccess ? { lastSuccessfulTime: o.lastSuccess } : {}) },
  };
}

/** A Job owned by a CronJob, scheduled at `scheduled` (name suffix = unix minutes, as the CronJob controller names them). */
export function cronJobJob(
  cj: CronJob,
  scheduled: string,
  o: { active?: number; succeeded?: number; completed?: string } = {},
): Job {
  const minutes = Math.floor(Date.parse(scheduled) / 60_000);
  const name = `${cj.metadata?.name}-${minutes}`;
  return {
    kind: 'Job',
    metadata: {
      name,
      namespace: cj.metadata?.namespace,
      uid: `uid-job-${name}`,
      creationTimestamp: scheduled,
      ownerReferences: [{ kind: 'CronJob', name: cj.metadata?.name, uid: cj.metadata?.uid, controller: true }],
    },
    status: {
      active: o.active ?? 0,
      succeeded: o.succeeded ?? 0,
      failed: 0,
      ...(o.completed ? { completionTime: o.completed, conditions: [{ type: 'Complete', status: 'True' }] } : {}),
    },
  };
}

/** The CSINode of `name`, listing `drivers` as registered by its kubelet. */
export function csiNode(name: string, drivers: string[]): CSINode {
  return {
    kind: 'CSINode',
    metadata: { name, uid: `uid-csinode-${name}` },
    spec: { drivers: drivers.map((d) => ({ name: d, nodeID: `${name}-id` })) },
  };
}

/** A snapshot holding the given objects, sorted into their kinds. */
export function snapshotOf(objects: readonly { kind?: string }[]): Snapshot {
  const s = emptySnapshot();
  const field: Record<string, keyof Snapshot> = {
    Pod: 'pods',
    PersistentVolumeClaim: 'pvcs',
    PersistentVolume: 'pvs',
    Node: 'nodes',
    Event: 'events',
    VolumeAttachment: 'volumeAttachments',
    DaemonSet: 'daemonSets',
    ControllerRevision: 'controllerRevisions',
    Job: 'jobs',
    CronJob: 'cronJobs',
    StorageClass: 'storageClasses',
    CSINode: 'csiNodes',
  };
  for (const o of objects) {
    const f = field[o.kind ?? ''];
    if (!f) throw new Error(`builders: no snapshot field for kind ${o.kind}`);
    (s[f] as unknown[]).push(o);
  }
  return s;
}

/**
 * A Job of `cj` that failed with the Job controller's Failed condition (pkg/controller/job/job_controller.go:
 * BackoffLimitExceeded, DeadlineExceeded), and its one Failed pod `podName` on n1.
 */
export function failedCronJobJob(
  cj: CronJob,
  scheduled: string,
  reason: string,
  message: string,
  podName: string,
): [Job, Pod] {
  const job = cronJobJob(cj, scheduled);
  job.status = { failed: 1, conditions: [{ type: 'Failed', status: 'True', reason, message }] };
  return [job, runPod(job, podName, { phase: 'Failed', scheduled: ago(70 * MIN) })];
}

/** The pod `name` of Job `job`, in its namespace, on n1 unless `o` says otherwise. */
export function runPod(job: Job, name: string, o: PodOpts = {}): Pod {
  return pod(name, {
    ns: job.metadata?.namespace ?? 'default',
    node: 'n1',
    ...o,
    owner: { kind: 'Job', name: job.metadata!.name!, uid: job.metadata!.uid! },
  });
}
