// Editing the root in place: on a change (update, with a reply naming what joined and which pods left, and the
// second evidence reply edited to match, post-rest.ts), as a reminder (repeat), and
// at once after a button (refreshRoot, no reply) or when the bot stops or starts seeing the cluster (markStale, no reply). A root someone deleted in Slack is forgotten, so the next step
// posts a fresh thread for the still-open incident.
import { isRwxError } from '../../errors.js';
import { membersOf } from '../../domain/members.js';
import {
  renderChangeReply,
  renderEvidenceRest,
  renderNoEvidenceRest,
  renderRepeatReply,
} from '../../render/slack-thread.js';
import type { SlackMessage } from '../../render/slack-blocks.js';
import type { IncidentRecord, Sent, Thread } from '../../store/record.js';
import { threadTsOf } from '../../store/record.js';
import { departedMembers } from '../departed.js';
import { rootMessage, staleSent, stateHash, visibleState } from '../state.js';
import { proofHint, replyOnce } from './post-reply.js';
import { type StepContext, type StepFn, type StepResult, inPhase, write } from './step.js';

/** update / repeat: edits the root to the incident as it is now, then replies (what joined, or still open). */
export async function editRoot(
  ctx: StepContext,
  record: IncidentRecord,
  kind: 'update' | 'repeat',
): Promise<StepResult> {
  const r = inPhase(record, kind, 'open');
  const { thread } = r.lifecycle;
  const incident = r.observed.incident;
  if (!(await editIfPresent(ctx, r.channel, thread.ts, liveRoot(ctx, r)))) return write({ phase: 'pending' });
  const hash = stateHash(r, ctx.now);
  const reply =
    kind === 'repeat'
      ? renderRepeatReply(incident, r.createdAt, ctx.now)
      : thread.sent.members &&
        renderChangeReply(incident, thread.sent.members, departedMembers(r, thread.sent.members, ctx.now, ctx.observe));
  if (reply) await replyOnce(ctx, r, thread.ts, replyId(thread.sent, kind, hash), reply);
  if (kind === 'update') await editRest(ctx, r, thread);
  const sent = { hash, members: membersOf(incident), at: ctx.now, ...staleSent(r) };
  return write({ phase: 'open', thread: { ts: thread.ts, sent, ...(thread.rest ? { rest: thread.rest } : {}) } });
}

/**
 * stale: adds the "stale since" line to the root when the bot stopped seeing the cluster, or removes it when it
 * sees again. One edit, no reply; it records only which line the root shows, so the change and repeat timers and
 * the change hash stay as they were.
 */
export const markStale: StepFn = async (ctx, record) => {
  const r = inPhase(record, 'stale', 'open');
  const { thread } = r.lifecycle;
  if (!(await editIfPresent(ctx, r.channel, thread.ts, liveRoot(ctx, r)))) return write({ phase: 'pending' });
  const { stale: _, ...sent } = thread.sent;
  return write({ phase: 'open', thread: { ...thread, sent: { ...sent, ...staleSent(r) } } });
};

/**
 * After a button: the root shows the new ack / mute state at once, not after group_interval. Records the new hash
 * (so the next decision sees nothing to do) without moving the timers; undefined when there is nothing to record.
 */
export async function refreshRoot(ctx: StepContext, r: IncidentRecord): Promise<StepResult | undefined> {
  const ts = threadTsOf(r.lifecycle);
  if (!ts) return undefined;
  await ctx.slack.update({
    channel: r.channel,
    ts,
    ...rootMessage(r, visibleState(r, ctx.now), { links: ctx.messages.links }),
  });
  const l = r.lifecycle;
  if (l.phase !== 'open' && l.phase !== 'posting-evidence') return undefined;
  const { stale: _, ...sent } = l.thread.sent;
  return write({ ...l, thread: { ...l.thread, sent: { ...sent, hash: stateHash(r, ctx.now), ...staleSent(r) } } });
}

/** Edits the root `ts` to `message`; false when it no longer exists in Slack (someone deleted it). */
export async function editIfPresent(
  ctx: StepContext,
  channel: string,
  ts: string,
  message: SlackMessage,
): Promise<boolean> {
  try {
    await ctx.slack.update({ channel, ts, ...message });
    return true;
  } catch (e) {
    if (!isRwxError(e, 'NOT_FOUND')) throw e;
    return false;
  }
}

/**
 * On an update: the second evidence reply edited to what the first reply would leave out now (or that nothing is
 * left out). A reply someone deleted is left alone; the thread keeps its ts, and the next update tries again.
 */
async function editRest(ctx: StepContext, r: IncidentRecord, thread: Thread): Promise<void> {
  if (!thread.rest?.ts) return;
  const incident = r.observed.incident;
  const message =
    renderEvidenceRest(incident, { proofHint: await proofHint(ctx, r) }) ?? renderNoEvidenceRest(incident);
  await editIfPresent(ctx, r.channel, thread.rest.ts, message);
}

// The root as the record reads now, with the link buttons.
function liveRoot(ctx: StepContext, r: IncidentRecord): SlackMessage {
  return rootMessage(r, visibleState(r, ctx.now), { links: ctx.messages.links });
}

// The id of the reply of an update or repeat: the kind, the notification it follows (sent.at, which only this
// step's own record write moves on) and, for a change, the root it goes with. A retry of the step computes the
// same id; any later step, or a retry after the incident changed again (new content), a new one.
function replyId(sent: Sent, kind: 'update' | 'repeat', hash: string): string {
  return kind === 'repeat' ? `repeat:${sent.at}` : `change:${sent.at}:${hash.slice(0, 16)}`;
}
