// The decide stage: a pure function from an incident record, the hash of what would be sent now, and the time, to
// what the notifier does next. Alertmanager's timers: group_wait before the first post (let members gather),
// group_interval between updates, repeat_interval for a reminder when nothing changed.
import type { IncidentRecord } from '../store/incident-store.js';

/** Notification timers in ms. */
export interface Timers {
  groupWait: number;
  groupInterval: number;
  repeatInterval: number;
}

/** The defaults, in one place (Alertmanager's DefaultRouteOpts): 30s / 5m / 4h. */
export const DEFAULT_TIMERS: Readonly<Timers> = Object.freeze({
  groupWait: 30_000,
  groupInterval: 5 * 60_000,
  repeatInterval: 4 * 60 * 60_000,
});

/** What to do next. `wait` says when to decide again. */
export type Decision =
  | { action: 'none' }
  | { action: 'discard' }
  | { action: 'wait'; until: number }
  | { action: 'post' }
  | { action: 'update' }
  | { action: 'repeat' }
  | { action: 'resolve' }
  | { action: 'follow-up' }
  | { action: 'close' };

/**
 * Decides the next step for a record. `hash` is the hash of the root that would be sent now.
 * - resolution posted: none while the incident still fires (a person resolved it: it stays closed); once it
 *   cleared, follow-up when an awaited CronJob is done or the wait is over, wait while CronJobs are awaited,
 *   else close; cleared before anything was posted: discard; cleared after a post: resolve (even when muted:
 *   resolution is always posted);
 * - firing, no thread yet: wait for createdAt + groupWait, then post;
 * - muted: wait until the mute ends;
 * - content changed: update, no sooner than lastNotifiedAt + groupInterval;
 * - unchanged: repeat at lastNotifiedAt + repeatInterval.
 */
export function needsUpdate(
  record: IncidentRecord,
  hash: string,
  now: number,
  timers: Timers = DEFAULT_TIMERS,
): Decision {
  if (record.resolutionPosted) {
    if (record.firing) return { action: 'none' };
    const awaiting = record.awaitingCronJobs ?? [];
    if (awaiting.length === 0) return { action: 'close' };
    if ((record.cronJobsDone ?? []).some((c) => awaiting.includes(c.cronJob))) return { action: 'follow-up' };
    const until = record.awaitingUntil ?? 0;
    return now < until ? { action: 'wait', until } : { action: 'follow-up' };
  }
  const posted = record.threadTs !== undefined || record.rootPostStartedAt !== undefined;
  if (!record.firing) return posted ? { action: 'resolve' } : { action: 'discard' };
  if (!record.incident) return { action: 'none' };
  if (record.threadTs !== undefined && !record.evidencePosted) return { action: 'post' }; // finish a started post
  if (record.threadTs === undefined) {
    const due = record.createdAt + timers.groupWait;
    // A post that was started (crash mid-post) resumes at once: the group already waited.
    return record.rootPostStartedAt === undefined && now < due ? { action: 'wait', until: due } : { action: 'post' };
  }
  if (record.muteUntil !== undefined && now < record.muteUntil) return { action: 'wait', until: record.muteUntil };
  const last = record.lastNotifiedAt ?? record.createdAt;
  if (hash !== record.lastSentHash) {
    const due = last + timers.groupInterval;
    return now < due ? { action: 'wait', until: due } : { action: 'update' };
  }
  const repeatAt = last + timers.repeatInterval;
  return now < repeatAt ? { action: 'wait', until: repeatAt } : { action: 'repeat' };
}
