// Findings: what the pure detectors report. One finding per stuck pod or per CronJob with a missed run.
// Keys are stable across evaluations so the incident store can tell new members from known ones.
import type { Location } from './location.js';

/** What a stuck pod is waiting on, decided from its events. */
export type Cause = 'storage' | 'network' | 'config' | 'image' | 'unknown';

/** An API object a configuration volume (secret, configMap, projected) needs, e.g. `secret "payments-tls"`. */
export interface ConfigObject {
  kind: 'secret' | 'configmap';
  name: string;
}

/**
 * For cause 'config' with nothing missing: the pod's own settings make the kubelet wait, no driver is at fault.
 * 'selinux': the volume is mounted on the node with another pod's SELinux label; 'fsgroup': the kubelet is changing
 * the ownership of every file on the volume to the pod's fsGroup.
 */
export interface ConfigWait {
  kind: 'selinux' | 'fsgroup';
  /** The pod volume the events name, and the claim behind it, when they can be told. */
  volume?: string;
  claim?: string;
  /** For 'selinux': the pod on the same node the SELinux warning controller names as the other user of the volume. */
  otherPod?: string;
}

/** A namespaced object by name. */
export interface NsName {
  namespace: string;
  name: string;
}

/** The workload a pod belongs to, followed up the owner chain (ReplicaSet -> Deployment, Job -> CronJob). */
export interface WorkloadRef extends NsName {
  /** Deployment, StatefulSet, DaemonSet, CronJob, Job, ReplicaSet, or Pod for bare pods. */
  kind: string;
}

/** One event as evidence: reason, message, how often, how recently. */
export interface EventEvidence {
  /** "Pod/ns/name" or "PersistentVolumeClaim/ns/name": the involved object. */
  object: string;
  type: string;
  reason: string;
  message: string;
  count: number;
  /** Last time seen (RFC 3339), if the event says. */
  lastSeen?: string;
  /** Seconds between lastSeen and evaluation time. */
  ageSeconds?: number;
}

/** The storage path behind one pod volume: volume -> claim -> PV -> CSI driver. Later links may be unknown. */
export interface StoragePath {
  /** The pod's volume name (as in "unmounted volumes=[data]"). */
  volume: string;
  claim?: NsName;
  pv?: string;
  driver?: string;
  /** The in-tree volume plugin ("nfs", "iscsi") when no CSI driver serves the volume: the kubelet mounts it. */
  inTree?: string;
  accessModes?: string[];
}

/** A pod stuck in ContainerCreating (kind 'stuck-creating') or Terminating ('stuck-terminating'). */
export interface StuckPodFinding {
  kind: 'stuck-creating' | 'stuck-terminating';
  /** "<kind>/<namespace>/<name>". */
  key: string;
  pod: NsName & { uid?: string };
  node?: string;
  workload: WorkloadRef;
  /** When the clock started: PodScheduled for creating, deletionTimestamp (already request time + grace) for terminating (RFC 3339). */
  since: string;
  /** Seconds stuck beyond `since` at evaluation time. */
  stuckSeconds: number;
  cause: Cause;
  /** The pod's volumes that the events name as unmounted (or all its claims when the events do not say). */
  storage: StoragePath[];
  /** For stuck-terminating: finalizers still on the pod. */
  finalizers?: string[];
  /** For cause 'config': the Secrets and ConfigMaps the kubelet says are missing (in the pod's namespace). */
  configObjects?: ConfigObject[];
  /** For cause 'config': the pod's volumes that failed (secret, configMap, projected, downwardAPI, emptyDir...). */
  configVolumes?: string[];
  /** For cause 'config': the pod setting the kubelet waits on (SELinux label, fsGroup ownership change), if any. */
  configWait?: ConfigWait;
  events: EventEvidence[];
  /** Where the pod is stuck: layer, actor, the node holding the fault (set by the correlator, src/correlate/locate.ts). */
  location?: Location;
}

/** A non-suspended CronJob whose latest scheduled run has not completed in time. */
export interface CronJobFinding {
  kind: 'cronjob-missed';
  /** "cronjob-missed/<namespace>/<name>". */
  key: string;
  cronJob: NsName;
  schedule: string;
  timeZone?: string;
  lastSuccessfulTime?: string;
  lastScheduleTime?: string;
  /** The most recent time the schedule says a run should have started (RFC 3339). */
  latestScheduled: string;
  /** Scheduled runs since lastSuccessfulTime (or since creation) that did not complete. */
  missedRuns: number;
  /**
   * Its Jobs, newest first, with their pods' keys ("namespace/name") so the correlator can link stuck pods, and for
   * a Job that failed, its Failed condition ("BackoffLimitExceeded: Job has reached the specified backoff limit").
   */
  jobs: {
    name: string;
    active: number;
    succeeded: number;
    failed: number;
    pods: string[];
    failure?: string;
    /** The Failed condition's reason alone (DeadlineExceeded, BackoffLimitExceeded...), with `failure`. */
    failureReason?: string;
  }[];
  /** Whether its Jobs' pods use storage volumes (claims, CSI, in-tree): whether storage can be involved at all. */
  storage?: boolean;
  /**
   * The newest Job's run when it is in progress (active, every pod Running): its Job, since when (RFC 3339), and
   * whether it overran (a later scheduled run's grace or its activeDeadlineSeconds passed: then counted as missed).
   */
  inProgress?: { job: string; since: string; overdue: boolean };
}

/** Anything a detector reports. */
export type Finding = StuckPodFinding | CronJobFinding;
