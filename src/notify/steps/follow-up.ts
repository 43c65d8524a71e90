// After the resolution: one reply when awaited CronJobs completed a run (or were deleted), or, when the wait is
// over with none done, one saying which still have not; then those stop being awaited.
import { renderCronJobFollowUp } from '../../render/slack-follow-up.js';
import { replyOnce } from './post-reply.js';
import { type StepFn, inPhase, write } from './step.js';

/**
 * follow-up: posts one follow-up (each reply once, by its id). Only CronJobs still awaited count, so a stale
 * cronJobsDone written by the evaluator never repeats a reply.
 */
export const followUp: StepFn = async (ctx, record) => {
  const r = inPhase(record, 'follow-up', 'following-up');
  const l = r.lifecycle;
  const awaiting = l.awaiting.cronJobs;
  const done = (r.observed.cronJobsDone ?? []).filter((c) => awaiting.includes(c.cronJob));
  const left = done.length > 0 ? awaiting.filter((a) => !done.some((d) => d.cronJob === a)) : [];
  const id =
    done.length > 0
      ? `follow-up:${done.map((c) => `${c.cronJob}@${c.at ?? 'gone'}`).join(',')}`
      : `follow-up:expired@${l.awaiting.until}`;
  const message = renderCronJobFollowUp(r.observed.incident, done, awaiting, l.resolution.at, l.awaiting.until);
  await replyOnce(ctx, r, l.threadTs, id, message);
  if (left.length === 0) return write({ phase: 'resolved', threadTs: l.threadTs, resolution: l.resolution });
  const { replying: _done, ...rest } = l;
  return write({ ...rest, awaiting: { cronJobs: left, until: l.awaiting.until } });
};
