// The decision: a pure function from an incident record and the time to the one step the notifier takes next.
// Alertmanager's timers: group_wait before the first post (let members gather), group_interval between updates,
// repeat_interval for a reminder when nothing changed. decide.test.ts walks every case.
import { defaultMs } from '../config/defaults.js';
import type { CronJobDone } from '../domain/resolution.js';
import { type IncidentRecord, type Lifecycle, type Thread, isResolved } from '../store/record.js';
import { staleShown, stateHash } from './state.js';

/** Notification timers in ms. */
export interface NotifyTimers {
  groupWait: number;
  groupInterval: number;
  repeatInterval: number;
  /**
   * RWX_KEEP_FIRING, Prometheus' keep_firing_for: an incident that fired at least this long is kept open until it has
   * been absent this long (record.ts); a resolved incident that comes back within it reopens its thread.
   */
  keepFiring: number;
}

/** The defaults (Alertmanager's DefaultRouteOpts), from the configuration's key table: 30s / 5m / 4h, kept firing for 60s. */
export const DEFAULT_TIMERS: Readonly<NotifyTimers> = Object.freeze({
  groupWait: defaultMs('groupWait'),
  groupInterval: defaultMs('groupInterval'),
  repeatInterval: defaultMs('repeatInterval'),
  keepFiring: defaultMs('keepFiring'),
});

/**
 * How long a team channel's first root waits past group_wait for the incident channel's root, whose thread it
 * links, and how often it looks meanwhile. Past the wait it is posted without the link (a later edit adds it): a
 * team is never left untold because the incident channel's post is late or failing.
 */
export const PARENT_WAIT_MS = 30_000;
export const PARENT_POLL_MS = 1_000;

/** What to do next: nothing, wait until a time (then decide again), or one step (src/notify/steps/). */
export type Step = { step: 'none' } | { step: 'wait'; until: number } | { step: StepName };

/** The steps, each one file under steps/ (see STEPS in steps-run.ts). */
export type StepName =
  | 'post-root'
  | 'adopt-root'
  | 'post-evidence'
  | 'post-rest'
  | 'update'
  | 'repeat'
  | 'stale'
  | 'resolve'
  | 'reopen'
  | 'follow-up'
  | 'close'
  | 'discard';

/**
 * The next step for a record at `now`. Resolved: reopen the thread when the evaluator recorded the incident firing
 * again (it does so only within the keep-firing window or while CronJobs are awaited, record.ts); silent while a
 * person's Resolve holds and the cluster still reports the incident; else follow up the awaited CronJobs, then close
 * once the window after the resolution is over (a person's Resolve: at once). Not yet resolved: cleared (or Resolve
 * pressed) means resolve, even when muted, except that nothing posted is discarded and a root whose post was
 * interrupted is looked up first; firing means post the root after group_wait, then its evidence (and what the
 * first evidence reply left out, in a second one), then edit the
 * root when the notifiable state changed (no sooner than group_interval after the last notification) or repeat
 * after repeat_interval, while not muted; and, muted or not, at once, add or remove the stale line when the bot
 * stopped or started seeing the cluster again (an edit that notifies no one and is not a change). A team channel's
 * record (channels.ts) posts its root once the incident channel's root is in Slack (at most PARENT_WAIT_MS later).
 */
export function decide(r: IncidentRecord, now: number, timers: NotifyTimers = DEFAULT_TIMERS): Step {
  const l = r.lifecycle;
  const cleared = r.observed.cleared !== undefined;
  if (l.phase === 'closed') return { step: 'none' };
  if (isResolved(l) && !cleared && l.resolution.by === undefined) return { step: 'reopen' };
  if (l.phase === 'resolved') return cleared ? closeAfterWindow(l, now, timers) : { step: 'none' };
  if (l.phase === 'following-up') return cleared ? followUp(l, r.observed.cronJobsDone, now) : { step: 'none' };
  const resolving = cleared || r.buttons.resolved !== undefined;
  if (l.phase === 'pending') {
    if (cleared) return { step: 'discard' };
    if (r.buttons.resolved) return { step: 'resolve' };
    const due = r.createdAt + timers.groupWait;
    if (now < due) return { step: 'wait', until: due };
    if (r.parent && !r.parent.threadTs && now < due + PARENT_WAIT_MS) {
      return { step: 'wait', until: Math.min(due + PARENT_WAIT_MS, now + PARENT_POLL_MS) };
    }
    return { step: 'post-root' };
  }
  if (l.phase === 'posting-root') return { step: resolving ? 'adopt-root' : 'post-root' };
  if (resolving) return { step: 'resolve' };
  if (l.phase === 'posting-evidence') return { step: 'post-evidence' };
  return openThread(r, l.thread, now, timers);
}

// An open thread: the second evidence reply when it is due, then the stale line; hold while muted; edit on a change,
// or remind when nothing changed for repeat_interval.
function openThread(r: IncidentRecord, thread: Thread, now: number, timers: NotifyTimers): Step {
  if (thread.rest && thread.rest.ts === undefined) return { step: 'post-rest' };
  if (!staleShown(r, thread.sent)) return { step: 'stale' };
  const mute = r.buttons.mute?.until;
  if (mute !== undefined && now < mute) return { step: 'wait', until: mute };
  const changed = stateHash(r, now) !== thread.sent.hash;
  const due = thread.sent.at + (changed ? timers.groupInterval : timers.repeatInterval);
  if (now < due) return { step: 'wait', until: due };
  return { step: changed ? 'update' : 'repeat' };
}

// Resolved and cleared: closed once the keep-firing window after the resolution is over, so an incident that comes
// back within it still finds its thread (record.ts reopens it); a person's Resolve is final, closed at once.
function closeAfterWindow(l: Extract<Lifecycle, { phase: 'resolved' }>, now: number, timers: NotifyTimers): Step {
  const until = l.resolution.at + timers.keepFiring;
  return l.resolution.by === undefined && now < until ? { step: 'wait', until } : { step: 'close' };
}

// Resolved and cleared, CronJobs awaited: reply when one is done, or when the wait is over.
function followUp(
  l: Extract<Lifecycle, { phase: 'following-up' }>,
  done: CronJobDone[] | undefined,
  now: number,
): Step {
  if ((done ?? []).some((c) => l.awaiting.cronJobs.includes(c.cronJob))) return { step: 'follow-up' };
  return now < l.awaiting.until ? { step: 'wait', until: l.awaiting.until } : { step: 'follow-up' };
}
