// The incident record: the source of truth for posting, one per incident key. Three writers, three groups of
// fields, so none overwrites another's (each group is stored apart, see redis-store.ts):
// - `observed`: the evaluator (src/notify/record.ts), after every evaluation that changed something;
// - `lifecycle`: the steps (src/notify/steps/), always under the incident lock, each after Slack succeeded;
// - `buttons`: the button handlers (src/notify/actions.ts), under the incident lock.
// The lifecycle is a phase with exactly the fields that phase has: a root that may be in Slack without its ts,
// a thread with no root, a resolution without a thread to follow up in cannot be written down.
import type { IncidentHistory } from '../domain/history.js';
import type { Incident } from '../domain/incident.js';
import type { PostedMembers } from '../domain/members.js';
import type { CronJobDone, ResolutionFacts } from '../domain/resolution.js';

/** One incident's record. Times are epoch ms. */
export interface IncidentRecord {
  key: string;
  channel: string;
  createdAt: number;
  observed: Observation;
  lifecycle: Lifecycle;
  buttons: Buttons;
  /**
   * Only on a team channel's record (RWX_TEAM_CHANNELS) as the notifier reads it, never stored: the incident
   * channel's record it follows (src/notify/channels.ts), whose buttons it shows and whose thread its root links.
   */
  parent?: ParentThread;
}

/** The incident channel's record of an incident, as a team channel's record sees it. */
export interface ParentThread {
  /** The incident's own key (that record's key). */
  key: string;
  /** That record's channel and thread root, when they exist. */
  channel?: string;
  threadTs?: string;
}

/** What the evaluator last saw of the incident (cluster facts only; nothing about Slack). */
export interface Observation {
  /** The latest incident the evaluation reported: what the next post renders. */
  incident: Incident;
  /** notifiableHash(incident): the evaluator writes the incident and starts a job only when it changes. */
  hash: string;
  /** Every member the incident ever had (bounded): what the resolution reply and the resolved root speak for. */
  history: IncidentHistory;
  /** Set while the evaluation no longer reports the incident: since when, and what the cluster said then. */
  cleared?: { at: number; facts?: ResolutionFacts };
  /**
   * Set while an established incident is not reported but kept open (the keep-firing window, src/notify/record.ts
   * keptFiring): since when. A fact in Redis, so every replica, and one that restarted, keeps or clears it alike.
   */
  absentSince?: number;
  /** When the incident came back after its resolution and its thread reopened (the latest time). */
  reopenedAt?: number;
  /** After a resolution: the awaited CronJobs the evaluator saw complete a run (or go), not yet followed up. */
  cronJobsDone?: CronJobDone[];
  /**
   * Set while the bot cannot see the cluster (the dead-man notice, src/serve/dead-man.ts): since when. The root
   * says so; it is not part of the notifiable hash, so it is never a change of the incident.
   */
  stale?: number;
}

/** Where the incident's thread is, phase by phase. */
export type Lifecycle =
  /** Nothing sent yet: the first post waits for group_wait. */
  | { phase: 'pending' }
  /** The root's post was started and its ts not recorded: it may be in Slack, so it is looked up before posting. */
  | { phase: 'posting-root'; startedAt: number }
  /** The root is in Slack; its evidence reply is next. */
  | { phase: 'posting-evidence'; thread: Thread }
  /** Root and evidence are in Slack: the root is edited on changes, replies say what joined. */
  | { phase: 'open'; thread: Thread }
  /** The resolution is in the thread; it waits for CronJobs that had not completed a run yet. */
  | {
      phase: 'following-up';
      threadTs: string;
      resolution: Resolution;
      awaiting: Awaiting;
      /** As Thread.replying, for the follow-up reply. */
      replying?: string;
    }
  /**
   * The resolution is posted (or, when nothing had been posted, recorded): nothing more to say, unless the incident
   * comes back within the keep-firing window and its thread reopens (`replying`: as Thread.replying, for that reply).
   */
  | { phase: 'resolved'; threadTs?: string; resolution: Resolution; replying?: string }
  /** Resolved and out of the open set: the record only waits to expire. */
  | { phase: 'closed'; threadTs?: string; resolution: Resolution };

/** The phase names, in lifecycle order. */
export type Phase = Lifecycle['phase'];

/** A posted root. */
export interface Thread {
  ts: string;
  /** What the last notification showed. */
  sent: Sent;
  /**
   * The id of the thread reply whose post was started and not yet recorded: a retry about to post the same id
   * looks it up by its metadata first, since it may already be in Slack.
   */
  replying?: string;
  /**
   * The second evidence reply (what the first left out, steps/post-rest.ts): due (no ts) once the first reply left
   * something out, then the reply's ts, edited in place on each update. Absent: the first reply held everything.
   */
  rest?: { ts?: string };
}

/** What a notification (root post or edit) showed, and when: the change and repeat timers count from `at`. */
export interface Sent {
  /** stateHash of the record when it was sent (the notifiable incident plus the ack / mute state). */
  hash: string;
  /** The members shown, to tell new nodes and workloads in the next change reply. */
  members?: PostedMembers;
  at: number;
  /** The `observed.stale` the root showed (absent: no stale line); the stale step edits the root when it differs. */
  stale?: number;
}

/** When the incident was resolved, and by whom when a person pressed Resolve. */
export interface Resolution {
  at: number;
  by?: string;
}

/** CronJobs ("namespace/name") the resolution said had not completed a run, followed until `until`. */
export interface Awaiting {
  cronJobs: string[];
  until: number;
}

/** What the buttons recorded. The first ack wins; a mute only ever extends; Resolve says who and when. */
export interface Buttons {
  ack?: { user: string; at: number };
  mute?: { until: number; by: string };
  resolved?: { by: string; at: number };
}

/** What one write changes: fields of `observed` and `buttons` one by one (undefined removes), the lifecycle whole. */
export interface RecordPatch {
  observed?: Partial<Observation>;
  lifecycle?: Lifecycle;
  buttons?: Partial<Buttons>;
}

/** The phases after the resolution. */
export const RESOLVED_PHASES: ReadonlySet<Phase> = new Set(['following-up', 'resolved', 'closed']);

/** Whether the incident's resolution is done (posted, or recorded when nothing was posted). */
export function isResolved(l: Lifecycle): l is Extract<Lifecycle, { resolution: Resolution }> {
  return RESOLVED_PHASES.has(l.phase);
}

/** The thread's root ts, when there is one. */
export function threadTsOf(l: Lifecycle): string | undefined {
  if (l.phase === 'posting-evidence' || l.phase === 'open') return l.thread.ts;
  if (l.phase === 'following-up' || l.phase === 'resolved' || l.phase === 'closed') return l.threadTs;
  return undefined;
}
