// Thread replies that survive a crash, and the first of them, the evidence. Each reply carries metadata with a
// stable id; the id is marked in the record just before the post, so a retry that finds it marked looks the reply
// up (conversations.replies) before posting it again. The step's own record write removes the mark.
//
// The proof hint (that proof from the nodes is possible, and how) is said once per channel, not in every thread:
// in the evidence reply of the first incident there none of whose nodes runs an agent. It is a fact about the
// installation, not the incident, so it is not in the evaluation: the store keeps which incident claimed it
// (IncidentStore.claimOnce, keyed by channel, no expiry), shared by every replica and kept across restarts. The
// claim names its incident, so a retry of that incident's reply renders the same message, hint included.
import { noAgentAnywhere } from '../../domain/proof.js';
import { renderEvidenceReply, renderEvidenceRest } from '../../render/slack-thread.js';
import type { SlackMessage } from '../../render/slack-blocks.js';
import { replyMetadata } from '../../slack/api.js';
import type { IncidentRecord, Lifecycle } from '../../store/record.js';
import { type StepContext, type StepFn, inPhase, write } from './step.js';

/** post-evidence: the evidence reply (events, revision diff, what each confusing observation means). */
export const postEvidence: StepFn = async (ctx, record) => {
  const r = inPhase(record, 'post-evidence', 'posting-evidence');
  const incident = r.observed.incident;
  const opts = { proofHint: await proofHint(ctx, r) };
  await replyOnce(ctx, r, r.lifecycle.thread.ts, 'evidence', renderEvidenceReply(incident, opts));
  // What it left out is the second reply's (post-rest.ts), the next step.
  const rest = renderEvidenceRest(incident, opts) ? { rest: {} } : {};
  return write({ phase: 'open', thread: { ts: r.lifecycle.thread.ts, sent: r.lifecycle.thread.sent, ...rest } });
};

/** Whether the evidence replies of `r` say that proof from the nodes is possible (see the header). */
export async function proofHint(ctx: StepContext, r: IncidentRecord): Promise<boolean> {
  return noAgentAnywhere(r.observed.incident.proof) && (await ctx.claimOnce(`proof-hint:${r.channel}`));
}

/**
 * Posts reply `id` in thread `ts` unless an interrupted attempt already did: the id is marked first, and an
 * attempt that finds it marked looks the reply up by its metadata before posting. A first attempt never looks.
 * Resolves with the reply's ts.
 */
export async function replyOnce(
  ctx: StepContext,
  r: IncidentRecord,
  ts: string,
  id: string,
  message: SlackMessage,
  opts: { broadcast?: boolean } = {},
): Promise<string> {
  const marked = replyingOf(r.lifecycle) === id;
  const found = marked ? await ctx.slack.findThreadReply(r.channel, ts, r.key, id) : undefined;
  if (found) return found;
  if (!marked) await ctx.mark(withReplying(r.lifecycle, id));
  const posted = await ctx.slack.postMessage({
    channel: r.channel,
    threadTs: ts,
    ...message,
    metadata: replyMetadata(r.key, id),
    ...(opts.broadcast ? { replyBroadcast: true } : {}),
  });
  return posted.ts;
}

function replyingOf(l: Lifecycle): string | undefined {
  if (l.phase === 'posting-evidence' || l.phase === 'open') return l.thread.replying;
  return l.phase === 'following-up' || l.phase === 'resolved' ? l.replying : undefined;
}

function withReplying(l: Lifecycle, id: string): Lifecycle {
  if (l.phase === 'posting-evidence' || l.phase === 'open') return { ...l, thread: { ...l.thread, replying: id } };
  return l.phase === 'following-up' || l.phase === 'resolved' ? { ...l, replying: id } : l;
}
