// What an incident record remembers of every member the incident ever had: the correlator reports only the
// current members, but the resolution speaks for the whole incident (seed verification steps 3 and 5: which pods
// recovered on their own, which were deleted, whether each missed CronJob completed a run since). Bounded, so a
// 150k-pod incident keeps a record of known size; merging lives in src/notify/history.ts.
import type { WorkloadRef } from '../domain/findings.js';

/** Members kept per incident (pods and CronJobs together); more are counted, not kept. */
export const MAX_HISTORY_MEMBERS = 500;

/** Node names kept per incident; more are counted, not kept. */
export const MAX_HISTORY_NODES = 500;

/** A pod that was stuck at some point of the incident, as first seen. */
export interface HistoryPod {
  /** "namespace/name". */
  pod: string;
  /** The uid it had when first seen stuck: a different uid later means it was replaced. */
  uid?: string;
  /** How it was first stuck: a pod stuck Terminating that is gone later has finished terminating. */
  kind: 'stuck-creating' | 'stuck-terminating';
  node?: string;
  workload: WorkloadRef;
  /** When it became stuck (cluster time, RFC 3339). */
  since: string;
}

/** A CronJob that had missed runs at some point of the incident. */
export interface HistoryCronJob {
  /** "namespace/name". */
  cronJob: string;
  schedule: string;
  /** The most missed runs seen at once. */
  missedRuns: number;
  /** Its status.lastSuccessfulTime when first seen: a later one means a run completed since (cluster time). */
  lastSuccessfulTime?: string;
  /** When the notifier first saw it (epoch ms, the notifier's clock). */
  firstSeen: number;
}

/** The most the incident had at once. */
export interface HistoryPeak {
  pods: number;
  /** Nodes with stuck pods. */
  nodes: number;
  cronJobs: number;
  /** The incident's one-line summary when it had the most stuck pods (e.g. the rollout's 2x2 counts then). */
  summary: string;
}

/** Every member an incident ever had, bounded. Times in cluster time unless said otherwise. */
export interface IncidentHistory {
  pods: HistoryPod[];
  cronJobs: HistoryCronJob[];
  /** Nodes that had stuck pods, in the order they joined. */
  nodes: string[];
  /** Members seen but not kept (MAX_HISTORY_MEMBERS reached): at least this many, more if they came and went. */
  omittedPods: number;
  omittedCronJobs: number;
  omittedNodes: number;
  peak: HistoryPeak;
  /** Earliest `since` of any stuck pod (epoch ms, cluster time). */
  firstStuckAt?: number;
  /** Latest evaluation time at which a pod was seen stuck (epoch ms, cluster time; advanced a minute at a time). */
  lastStuckAt?: number;
}
