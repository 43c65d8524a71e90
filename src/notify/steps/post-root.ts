// The root of an incident's thread, posted once. Before posting, the root is looked up by its metadata
// (conversations.history) and adopted when found: a retry after a crash between Slack's answer and the record
// write (phase posting-root, written just before the post), or a record lost with Redis (phase pending again, the
// thread still open in Slack), never leaves a second root. A team channel's root is then named in the incident
// channel's thread, and a team channel that refuses it (the bot not invited) is named there too (tell-parent.ts).
import { membersOf } from '../../domain/members.js';
import { incidentMetadata } from '../../slack/api.js';
import type { IncidentRecord, Sent } from '../../store/record.js';
import { rootMessage, staleSent, stateHash, visibleState } from '../state.js';
import { type StepContext, type StepFn, inPhase, write } from './step.js';
import { sayRefused, tellParent } from './tell-parent.js';

/** post-root: posts the root, or adopts (and brings up to date) the one an interrupted attempt or a lost record left. */
export const postRoot: StepFn = async (ctx, record) => {
  const r = inPhase(record, 'post-root', 'pending', 'posting-root');
  const { ts, lost } = await sayRefused(ctx, r, () => findOrPost(ctx, r));
  await tellParent(ctx, r, ts);
  // A thread found again may hold its evidence already: marked, so the evidence step looks before it posts.
  const thread = { ts, sent: sentNow(r, ctx.now), ...(lost && ts ? { replying: 'evidence' } : {}) };
  return write({ phase: 'posting-evidence', thread });
};

/**
 * The root of record `r`: found by its metadata and brought up to date, or posted (phase posting-root first).
 * `lost`: found from pending, i.e. an open incident whose record was lost.
 */
async function findOrPost(ctx: StepContext, r: IncidentRecord): Promise<{ ts: string; lost: boolean }> {
  const state = visibleState(r, ctx.now);
  const { links, mentionUsergroup } = ctx.messages;
  // No time bound: the record's clock may not be Slack's; newest-first history finds a recent root quickly.
  let ts = await ctx.slack.findRootByIncidentKey(r.channel, r.key);
  // From pending, a root found is an open incident whose record was lost (Redis came back empty), unless its
  // thread holds the resolution: then it is a past one, and this recurrence gets a thread of its own.
  const lost = r.lifecycle.phase === 'pending' && ts !== undefined;
  if (lost && (await ctx.slack.findThreadReply(r.channel, ts!, r.key, 'resolution'))) ts = undefined;
  if (ts) await ctx.slack.update({ channel: r.channel, ts, ...rootMessage(r, state, { links }) });
  else {
    await ctx.mark({ phase: 'posting-root', startedAt: ctx.now });
    // Only the post mentions the user group: an edit would not notify anyone, and need not.
    const message = rootMessage(r, state, { links, ...(mentionUsergroup ? { mention: mentionUsergroup } : {}) });
    ts = (await ctx.slack.postMessage({ channel: r.channel, ...message, metadata: incidentMetadata(r.key) })).ts;
  }
  return { ts, lost };
}

/**
 * adopt-root: an incident cleared (or resolved by hand) while its root's post was interrupted. The root, if it
 * reached Slack, is adopted so the resolution goes in its thread; if not, a cleared incident is forgotten and one
 * resolved by hand goes back to pending (where its resolution is recorded with no thread).
 */
export const adoptRoot: StepFn = async (ctx, record) => {
  const r = inPhase(record, 'adopt-root', 'posting-root');
  const ts = await ctx.slack.findRootByIncidentKey(r.channel, r.key);
  if (ts) return write({ phase: 'posting-evidence', thread: { ts, sent: { hash: '', at: ctx.now } } });
  return r.observed.cleared ? { kind: 'delete' } : write({ phase: 'pending' });
};

/** What a root posted or edited now shows. */
export function sentNow(r: IncidentRecord, now: number): Sent {
  return { hash: stateHash(r, now), members: membersOf(r.observed.incident), at: now, ...staleSent(r) };
}
