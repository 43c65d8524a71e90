// After the resolution, the CronJobs that had not completed a run yet are followed (a missed backup is over only
// once a run completes): how long the record waits for them, and which the evaluator sees done. The reply itself
// is the follow-up step (steps/follow-up.ts).
import type { CronJobDone, ResolutionFacts } from '../domain/resolution.js';
import type { Awaiting } from '../store/record.js';

const H = 60 * 60_000;
/** How long a run may take after its scheduled time before the follow-up says it has not completed. */
export const RUN_ALLOWANCE_MS = 2 * H;
/** The wait when no next run is known (suspended, unreadable schedule): a daily run plus slack. */
export const DEFAULT_FOLLOW_UP_MS = 26 * H;
/** Bounds of the wait: an hourly job still gets an hour, a monthly one is not followed for weeks. */
const MIN_WAIT_MS = H;
const MAX_WAIT_MS = 8 * 24 * H;

/**
 * The CronJobs a resolution reported as not having completed a run, to follow until the latest of their next
 * scheduled runs plus RUN_ALLOWANCE_MS (DEFAULT_FOLLOW_UP_MS for one with no known next run), kept between one
 * hour and eight days from `now`; undefined when there are none.
 */
export function awaitingFrom(facts: ResolutionFacts, now: number): Awaiting | undefined {
  const awaited = facts.cronJobs.filter((c) => c.completedSince === false && !c.gone);
  if (awaited.length === 0) return undefined;
  const due = Math.max(
    ...awaited.map((c) => {
      const next = c.nextRunAt ? Date.parse(c.nextRunAt) : NaN;
      return Number.isFinite(next) ? next + RUN_ALLOWANCE_MS : now + DEFAULT_FOLLOW_UP_MS;
    }),
  );
  return {
    cronJobs: awaited.map((c) => c.cronJob),
    until: Math.min(now + MAX_WAIT_MS, Math.max(now + MIN_WAIT_MS, due)),
  };
}

/**
 * For the evaluator: which of the `awaiting` CronJobs `facts` (observed now) show done, when that differs from
 * what the record already holds (`known`); undefined when there is nothing new to say.
 */
export function newlyDone(
  awaiting: readonly string[],
  known: readonly CronJobDone[] | undefined,
  facts: ResolutionFacts | undefined,
): CronJobDone[] | undefined {
  if (awaiting.length === 0 || !facts) return undefined;
  const done: CronJobDone[] = [];
  for (const c of facts.cronJobs) {
    if (!awaiting.includes(c.cronJob)) continue;
    if (c.gone) done.push({ cronJob: c.cronJob, gone: true });
    else if (c.completedSince) done.push({ cronJob: c.cronJob, ...(c.at ? { at: c.at } : {}) });
  }
  const same = JSON.stringify(done) === JSON.stringify(known ?? []);
  return done.length > 0 && !same ? done : undefined;
}
