// What every step is: given the record and a context, make the Slack calls the step is for, then say what to
// record. Each Slack call in a step is safe to repeat: an edit is idempotent, and a post carries an id it can be
// found by (the root's metadata, a reply's metadata), written down just before it (StepContext.mark), so a retry
// looks it up instead of posting twice. What Slack accepted is recorded by the runner (steps-run.ts) after the step
// returned, never before: a step that throws leaves the record as it was, and its retry starts from there.
import { RwxError } from '../../errors.js';
import type { ObserveResolution } from '../../domain/resolution.js';
import type { MessageOptions } from '../deps.js';
import type { SlackApi } from '../../slack/api.js';
import type { IncidentRecord, Lifecycle, Phase } from '../../store/record.js';

/** What a step may use. */
export interface StepContext {
  slack: SlackApi;
  /** Links, mention and broadcast settings of the messages posted. */
  messages: MessageOptions;
  /** The time the step runs at (the notifier's clock). */
  now: number;
  /** What the cluster says now about the incident's members (a manual Resolve asks). */
  observe?: ObserveResolution;
  /**
   * Records `lifecycle` before a post a retry can find by its metadata: the only write a step makes itself.
   * It says "this post may be in Slack", never that it is.
   */
  mark(lifecycle: Lifecycle): Promise<void>;
  /** IncidentStore.claimOnce: whether this incident is the one that says `name` (said once per name). */
  claimOnce(name: string): Promise<boolean>;
}

/** What the runner records once the step's Slack calls succeeded. */
export type StepResult =
  /** The record's new lifecycle. */
  | { kind: 'write'; lifecycle: Lifecycle }
  /** The last lifecycle; then the record leaves the open set and expires. */
  | { kind: 'close'; lifecycle: Lifecycle }
  /** Nothing of the incident is in Slack: the record goes. */
  | { kind: 'delete' };

/** A step: the record as read under the incident lock, and the context. */
export type StepFn = (ctx: StepContext, r: IncidentRecord) => Promise<StepResult>;

/** A record whose lifecycle is in one of the given phases. */
export type RecordIn<P extends Phase> = IncidentRecord & { lifecycle: Extract<Lifecycle, { phase: P }> };

/** The record, typed by its phase; throws when decide() asked a step of a phase it does not handle (a bug). */
export function inPhase<P extends Phase>(r: IncidentRecord, step: string, ...phases: P[]): RecordIn<P> {
  if ((phases as Phase[]).includes(r.lifecycle.phase)) return r as RecordIn<P>;
  throw new RwxError('INTERNAL', `step ${step} cannot run in phase ${r.lifecycle.phase} (incident ${r.key})`);
}

/** A StepResult that records `lifecycle`. */
export function write(lifecycle: Lifecycle): StepResult {
  return { kind: 'write', lifecycle };
}
