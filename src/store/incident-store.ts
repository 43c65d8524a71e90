// The incident record: the source of truth for posting. One record per incident key, holding where its thread
// lives, what was last sent, and the ack / mute / resolve state. Fields are written independently (a Redis hash)
// so the evaluator, the workers and the buttons never overwrite each other's fields.
import type { Incident } from '../domain/incident.js';
import type { IncidentHistory } from '../domain/history.js';
import type { PostedMembers } from '../domain/members.js';
import type { CronJobDone, ResolutionFacts } from '../domain/resolution.js';

/** One incident's record. Times are epoch ms. */
export interface IncidentRecord {
  key: string;
  channel: string;
  createdAt: number;
  updatedAt: number;
  /** The latest incident the evaluator reported (what the next post renders). */
  incident?: Incident;
  /** Hash of `incident` as last submitted: submit enqueues only when it changes. */
  observedHash?: string;
  /** Every member the incident ever had (bounded): what the resolution reply and the resolved root speak for. */
  history?: IncidentHistory;
  /** Whether the latest evaluation still reports the incident. */
  firing: boolean;
  /** When the evaluation stopped reporting it, and what the caller observed then. */
  clearedAt?: number;
  resolution?: ResolutionFacts;
  /** Set just before the root post: with no threadTs it means "a post may have reached Slack, look it up first". */
  rootPostStartedAt?: number;
  threadTs?: string;
  evidencePosted?: boolean;
  /** Members shown by the last post (to tell new nodes/workloads). */
  members?: PostedMembers;
  lastSentHash?: string;
  lastNotifiedAt?: number;
  ack?: { user: string; at: number };
  muteUntil?: number;
  mutedBy?: string;
  resolvedAt?: number;
  /** Set when a person pressed Resolve. */
  resolvedBy?: string;
  /** Set once the resolution reply is in the thread, so a retry of the root edit does not post it again. */
  resolutionReplied?: boolean;
  /**
   * The id of the thread reply whose post was started and not yet recorded (set just before chat.postMessage,
   * removed by the write that records the reply): when a retry is about to post the same id, the reply may
   * already be in Slack, so it is looked up by its metadata first.
   */
  replyStarted?: string;
  resolutionPosted?: boolean;
  /**
   * CronJobs ("namespace/name") the resolution said had not completed a run since they joined: the record stays
   * open and the thread gets a follow-up when each completes (or is deleted), or when awaitingUntil passes.
   */
  awaitingCronJobs?: string[];
  awaitingUntil?: number;
  /** Written by the evaluator: those of awaitingCronJobs seen completed (or deleted) since, not yet replied. */
  cronJobsDone?: CronJobDone[];
}

/** Fields a patch may set; `undefined` removes the field. */
export type RecordPatch = Partial<Omit<IncidentRecord, 'key' | 'createdAt'>>;

/** Where incident records live. Redis in production (redis-store.ts), memory in pure tests (memory-store.ts). */
export interface IncidentStore {
  /** The record, or undefined. */
  get(key: string): Promise<IncidentRecord | undefined>;
  /** Creates the record if absent (and adds it to the open set); true when this call created it. */
  create(record: IncidentRecord): Promise<boolean>;
  /** Sets (or with undefined removes) the given fields of an existing record; false when there is none. */
  patch(key: string, fields: RecordPatch): Promise<boolean>;
  /** Sets `ack` only if not already set (double clicks keep the first); true when this call set it. */
  setAckIfAbsent(key: string, ack: { user: string; at: number }): Promise<boolean>;
  /** Removes the record, and drops it from the open set. */
  delete(key: string): Promise<void>;
  /** Drops the record from the open set and lets it expire after `ttlMs` (resolved incidents are kept a while). */
  close(key: string, ttlMs: number): Promise<void>;
  /** Keys of records not yet closed. */
  listOpen(): Promise<string[]>;
  /** Takes the per-incident lock for `ttlMs`; resolves with a token, or undefined when someone else holds it. */
  tryLock(key: string, ttlMs: number): Promise<string | undefined>;
  /** Releases the lock if `token` still holds it. */
  unlock(key: string, token: string): Promise<void>;
}
