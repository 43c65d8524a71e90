// Thread replies that survive a crash, and the first of them, the evidence. Each reply carries metadata with a
// stable id; the id is marked in the record just before the post, so a retry that finds it marked looks the reply
// up (conversations.replies) before posting it again. The step's own record write removes the mark.
import { renderEvidenceReply } from '../../render/slack-thread.js';
import type { SlackMessage } from '../../render/slack-blocks.js';
import { replyMetadata } from '../../slack/api.js';
import type { IncidentRecord, Lifecycle } from '../../store/record.js';
import { type StepContext, type StepFn, inPhase, write } from './step.js';

/** post-evidence: the evidence reply (events, revision diff, what each confusing observation means). */
export const postEvidence: StepFn = async (ctx, record) => {
  const r = inPhase(record, 'post-evidence', 'posting-evidence');
  await replyOnce(ctx, r, r.lifecycle.thread.ts, 'evidence', renderEvidenceReply(r.observed.incident));
  return write({ phase: 'open', thread: { ts: r.lifecycle.thread.ts, sent: r.lifecycle.thread.sent } });
};

/**
 * Posts reply `id` in thread `ts` unless an interrupted attempt already did: the id is marked first, and an
 * attempt that finds it marked looks the reply up by its metadata before posting. A first attempt never looks.
 */
export async function replyOnce(
  ctx: StepContext,
  r: IncidentRecord,
  ts: string,
  id: string,
  message: SlackMessage,
  opts: { broadcast?: boolean } = {},
): Promise<void> {
  const marked = replyingOf(r.lifecycle) === id;
  if (marked && (await ctx.slack.findThreadReply(r.channel, ts, r.key, id))) return;
  if (!marked) await ctx.mark(withReplying(r.lifecycle, id));
  await ctx.slack.postMessage({
    channel: r.channel,
    threadTs: ts,
    ...message,
    metadata: replyMetadata(r.key, id),
    ...(opts.broadcast ? { replyBroadcast: true } : {}),
  });
}

function replyingOf(l: Lifecycle): string | undefined {
  if (l.phase === 'posting-evidence' || l.phase === 'open') return l.thread.replying;
  return l.phase === 'following-up' || l.phase === 'resolved' ? l.replying : undefined;
}

function withReplying(l: Lifecycle, id: string): Lifecycle {
  if (l.phase === 'posting-evidence' || l.phase === 'open') return { ...l, thread: { ...l.thread, replying: id } };
  return l.phase === 'following-up' || l.phase === 'resolved' ? { ...l, replying: id } : l;
}
