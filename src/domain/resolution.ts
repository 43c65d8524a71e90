// What the cluster says about an incident's members once it cleared or was resolved by hand: the facts the
// resolution reply and its follow-up state. The notifier asks for them (ObserveResolution), the renderers say them.
import type { IncidentHistory } from './history.js';
import type { IncidentProof } from './proof.js';

/** What the caller observed when an incident cleared. Pods are "namespace/name"; each appears in one list. */
export interface ResolutionFacts {
  /** Same uid, now Running (or Succeeded): recovered without being deleted. */
  recovered: string[];
  /** Gone, or back with a new uid: deleted or replaced during the incident, so re-test it. */
  deleted: string[];
  /** First stuck Terminating and now gone: it finished terminating. */
  terminated?: string[];
  /** Same uid, still not Running. */
  notRunning?: string[];
  /** Not checked (nothing to check against when it cleared). */
  unchecked?: string[];
  /**
   * Per CronJob that missed runs ("namespace/name"): whether a run completed after it joined the incident
   * (status.lastSuccessfulTime moved on), and when; `running` when not yet but a run is in progress; `gone` when it
   * no longer exists; completedSince undefined when it was not checked; `nextRunAt` (when it has not completed
   * one) its next scheduled run, by which the thread follows it up.
   */
  cronJobs: {
    cronJob: string;
    completedSince?: boolean;
    at?: string;
    gone?: boolean;
    running?: boolean;
    nextRunAt?: string;
  }[];
  /** Set when someone pressed Resolve rather than every member recovering. */
  manual?: { user: string; at: number };
  /** The incident's nodes checked again by their agents at the resolution: are the mounts visible from the host now? */
  proof?: IncidentProof;
}

/**
 * What the cluster says now about an incident's members (its history). With `completionOnly` only whether its
 * CronJobs completed a run or went (no pods, no next scheduled run): the cheap question the notifier asks of a
 * resolved incident on every evaluation while it waits for a CronJob.
 */
export type ObserveResolution = (
  history: IncidentHistory,
  now: number,
  completionOnly?: boolean,
) => ResolutionFacts | undefined;

/** A CronJob seen to complete a run (`at`: its status.lastSuccessfulTime) or disappear after the resolution. */
export interface CronJobDone {
  cronJob: string;
  at?: string;
  gone?: boolean;
}

/** Facts when the caller observed nothing: every pod and CronJob unchecked. */
export function defaultFacts(history: IncidentHistory): ResolutionFacts {
  return {
    recovered: [],
    deleted: [],
    unchecked: history.pods.map((p) => p.pod),
    cronJobs: history.cronJobs.map((c) => ({ cronJob: c.cronJob })),
  };
}
