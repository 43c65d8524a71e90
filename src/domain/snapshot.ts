// A Snapshot is the cluster state at one moment: lists of objects per kind, plus which kinds could not be read.
import type { KindKey } from './kinds.js';
import type {
  CronJob,
  ControllerRevision,
  CSIDriver,
  CSINode,
  DaemonSet,
  Job,
  KubeEvent,
  Lease,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
  VolumeAttachment,
} from './objects.js';

/** The object type stored under each snapshot field. */
export interface ObjectsByKind {
  pods: Pod;
  pvcs: PersistentVolumeClaim;
  pvs: PersistentVolume;
  nodes: Node;
  events: KubeEvent;
  storageClasses: StorageClass;
  volumeAttachments: VolumeAttachment;
  csiDrivers: CSIDriver;
  csiNodes: CSINode;
  daemonSets: DaemonSet;
  controllerRevisions: ControllerRevision;
  jobs: Job;
  cronJobs: CronJob;
  leases: Lease;
}

/** Why a kind is missing from a snapshot: not permitted, or not present in the input at all. */
export interface UnreadableKind {
  kind: KindKey;
  reason: string;
}

/** Cluster state at one moment. Arrays are never null; `unreadable` lists kinds whose absence means "unknown". */
export type Snapshot = { [K in KindKey]: ObjectsByKind[K][] } & {
  unreadable: UnreadableKind[];
};

/** A snapshot with no objects; the starting point for loaders and tests. */
export function emptySnapshot(): Snapshot {
  return {
    pods: [],
    pvcs: [],
    pvs: [],
    nodes: [],
    events: [],
    storageClasses: [],
    volumeAttachments: [],
    csiDrivers: [],
    csiNodes: [],
    daemonSets: [],
    controllerRevisions: [],
    jobs: [],
    cronJobs: [],
    leases: [],
    unreadable: [],
  };
}
