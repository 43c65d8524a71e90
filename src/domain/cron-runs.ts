// The words for what a CronJob's runs did (a CronJobFinding's Jobs and its run in progress), one place for the
// incident's explanation, the Slack thread and the terminal, so they say the same thing.
import type { CronJobFinding } from './findings.js';
import { nameList } from './names.js';

/**
 * What its Jobs failed with, one group per failure, newest Job first: "3 failed with DeadlineExceeded: Job was
 * active longer than specified deadline (b-3, b-2, b-1)"; "" when no Job failed.
 */
export function failedRunsPhrase(c: CronJobFinding): string {
  const byFailure = new Map<string, string[]>();
  for (const j of c.jobs) if (j.failure) byFailure.set(j.failure, [...(byFailure.get(j.failure) ?? []), j.name]);
  return [...byFailure]
    .map(([failure, jobs]) => `${jobs.length} failed with ${failure} (${nameList(jobs, 3, ', ')})`)
    .join('; ');
}

/**
 * "a run is in progress since T", or for one that overran "a run in progress since T has overrun its schedule,
 * counted as missed"; "" when no run is in progress. `date` renders T (Slack's date token, or as is).
 */
export function inProgressPhrase(c: CronJobFinding, date: (iso: string) => string = (iso) => iso): string {
  const r = c.inProgress;
  if (!r) return '';
  return r.overdue
    ? `a run in progress since ${date(r.since)} has overrun its schedule, counted as missed`
    : `a run is in progress since ${date(r.since)}`;
}

/** The short form of the failures, reasons without messages: "3 failed: DeadlineExceeded"; "" when none failed. */
export function failedReasonsPhrase(c: CronJobFinding): string {
  const reasons = [...new Set(c.jobs.flatMap((j) => (j.failureReason ? [j.failureReason] : [])))];
  const failed = c.jobs.filter((j) => j.failure).length;
  return failed > 0 ? `${failed} failed: ${reasons.join(', ')}` : '';
}

/** Whether its Jobs' pods use storage, and what that means, by CronJobFinding.storage. */
const STORAGE = new Map([
  [true, { brief: 'its pods use storage volumes', means: 'read their events for a mount failure' }],
  [false, { brief: 'its pods use no storage volume', means: 'not a storage fault' }],
]);

/** Whether storage can be involved, in words: " Its pods use storage volumes: ..."; "" when not known. */
export function storagePhrase(c: CronJobFinding): string {
  const s = c.storage === undefined ? undefined : STORAGE.get(c.storage);
  return s ? ` ${s.brief[0]!.toUpperCase()}${s.brief.slice(1)}: ${s.means}.` : '';
}

/**
 * The summary's short form: " (3 failed: DeadlineExceeded; a run is in progress since T; its pods use storage
 * volumes)"; "" when no Job failed and no run is in progress.
 */
export function runsInBrief(c: CronJobFinding): string {
  const r = c.inProgress;
  const said = [failedReasonsPhrase(c), r ? (r.overdue ? 'a run in progress overran' : inProgressPhrase(c)) : ''];
  if (!said.some(Boolean)) return '';
  const storage = c.storage === undefined ? '' : (STORAGE.get(c.storage)?.brief ?? '');
  return ` (${[...said, storage].filter(Boolean).join('; ')})`;
}
