// Reopening a thread. An incident resolved automatically that the cluster reports again within the keep-firing
// window after its resolution, or while the CronJobs it missed are still awaited, is the same incident coming
// back, not a new one: what an SRE following the thread expects is that thread saying "it came back" (its
// evidence, the people who acked it and the follow-up still there), not a second root a minute after "Resolved".
// The evaluator decides when (src/notify/record.ts); later than that, a recurrence is a new incident with a new
// thread. Reopened, the root is the live incident again and the reply goes to the channel as the resolution did.
import { membersOf } from '../../domain/members.js';
import { renderReopenReply } from '../../render/slack-thread.js';
import type { IncidentRecord } from '../../store/record.js';
import { threadTsOf } from '../../store/record.js';
import { rootMessage, staleSent, stateHash, visibleState } from '../state.js';
import { editIfPresent } from './edit-root.js';
import { replyOnce } from './post-reply.js';
import { type StepFn, inPhase, write } from './step.js';

/** reopen: the root edited back to the live incident, then one "it came back" reply; the thread is open again. */
export const reopen: StepFn = async (ctx, record) => {
  const r = inPhase(record, 'reopen', 'following-up', 'resolved');
  const ts = threadTsOf(r.lifecycle);
  const resolvedAt = r.lifecycle.resolution.at;
  if (!ts) return write({ phase: 'pending' }); // nothing was posted: a first post, as for a new incident
  // The record as it reads once reopened: no resolution shown, the awaited CronJobs left to the next resolution.
  const open: IncidentRecord = { ...r, lifecycle: { phase: 'open', thread: { ts, sent: { hash: '', at: ctx.now } } } };
  const root = rootMessage(open, visibleState(open, ctx.now), { links: ctx.messages.links });
  if (!(await editIfPresent(ctx, r.channel, ts, root))) return write({ phase: 'pending' }); // deleted: a new root
  const reply = renderReopenReply(r.observed.incident, resolvedAt, ctx.now);
  await replyOnce(ctx, r, ts, reopenId(resolvedAt), reply, { broadcast: ctx.messages.broadcastResolution });
  const sent = { hash: stateHash(open, ctx.now), members: membersOf(r.observed.incident), at: ctx.now };
  return write({ phase: 'open', thread: { ts, sent: { ...sent, ...staleSent(open) } } });
};

/** The id of the reply reopening the thread after the resolution at `resolvedAt`: one per resolution. */
export function reopenId(resolvedAt: number): string {
  return `reopen:${resolvedAt}`;
}
