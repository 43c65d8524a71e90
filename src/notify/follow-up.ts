// After the resolution: follows the CronJobs that had not completed a run yet (a missed backup is over only once
// a run completes), so the thread says when the missed backup finally ran, or that it still has not when the bot
// stops waiting.
import type { CronJobDone, ResolutionFacts } from '../domain/resolution.js';
import type { IncidentRecord, RecordPatch } from '../store/incident-store.js';
import { renderCronJobFollowUp } from '../render/slack-follow-up.js';
import { postReplyOnce } from './replies.js';
import type { StageDeps } from './deps.js';

const H = 60 * 60_000;
/** How long a run may take after its scheduled time before the follow-up says it has not completed. */
export const RUN_ALLOWANCE_MS = 2 * H;
/** The wait when no next run is known (suspended, unreadable schedule): a daily run plus slack. */
export const DEFAULT_FOLLOW_UP_MS = 26 * H;
/** Bounds of the wait: an hourly job still gets an hour, a monthly one is not followed for weeks. */
const MIN_WAIT_MS = H;
const MAX_WAIT_MS = 8 * 24 * H;

/**
 * The record fields that start following the CronJobs a resolution reported as not having completed a run: until
 * the latest of their next scheduled runs plus RUN_ALLOWANCE_MS (DEFAULT_FOLLOW_UP_MS for one with no known next
 * run), kept between one hour and eight days from `now`.
 */
export function awaitingFrom(facts: ResolutionFacts, now: number): RecordPatch {
  const awaited = facts.cronJobs.filter((c) => c.completedSince === false && !c.gone);
  if (awaited.length === 0) return {};
  const due = Math.max(
    ...awaited.map((c) => {
      const next = c.nextRunAt ? Date.parse(c.nextRunAt) : NaN;
      return Number.isFinite(next) ? next + RUN_ALLOWANCE_MS : now + DEFAULT_FOLLOW_UP_MS;
    }),
  );
  return {
    awaitingCronJobs: awaited.map((c) => c.cronJob),
    awaitingUntil: Math.min(now + MAX_WAIT_MS, Math.max(now + MIN_WAIT_MS, due)),
  };
}

/**
 * For the evaluator: which awaited CronJobs `facts` (observed now) show done, when that differs from what the
 * record already holds; undefined when there is nothing new to say.
 */
export function newlyDone(r: IncidentRecord, facts: ResolutionFacts | undefined): CronJobDone[] | undefined {
  const awaiting = r.awaitingCronJobs ?? [];
  if (awaiting.length === 0 || !facts) return undefined;
  const done: CronJobDone[] = [];
  for (const c of facts.cronJobs) {
    if (!awaiting.includes(c.cronJob)) continue;
    if (c.gone) done.push({ cronJob: c.cronJob, gone: true });
    else if (c.completedSince) done.push({ cronJob: c.cronJob, ...(c.at ? { at: c.at } : {}) });
  }
  const same = JSON.stringify(done) === JSON.stringify(r.cronJobsDone ?? []);
  return done.length > 0 && !same ? done : undefined;
}

/**
 * Posts one follow-up: the awaited CronJobs seen done (each reply once, by its id), or when none is and the wait
 * is over, those still waiting; then stops awaiting them. Only CronJobs still awaited count, so a stale write of
 * cronJobsDone never repeats a reply.
 */
export async function followUp(deps: StageDeps, r: IncidentRecord, now: number): Promise<void> {
  const awaiting = r.awaitingCronJobs ?? [];
  const done = (r.cronJobsDone ?? []).filter((c) => awaiting.includes(c.cronJob));
  const left = done.length > 0 ? awaiting.filter((a) => !done.some((d) => d.cronJob === a)) : [];
  if (r.threadTs) {
    const id =
      done.length > 0
        ? `follow-up:${done.map((c) => `${c.cronJob}@${c.at ?? 'gone'}`).join(',')}`
        : `follow-up:expired@${r.awaitingUntil ?? 0}`;
    await postReplyOnce(deps, r, r.threadTs, id, renderCronJobFollowUp(done, awaiting, r.resolvedAt, r.awaitingUntil));
  }
  await deps.store.patch(r.key, {
    awaitingCronJobs: left.length > 0 ? left : undefined,
    awaitingUntil: left.length > 0 ? r.awaitingUntil : undefined,
    cronJobsDone: undefined,
    replyStarted: undefined,
    updatedAt: now,
  });
}
