// A team channel's root (channels.ts), once in Slack, is named in the incident channel's thread with a link to it,
// so the incident thread says which team channels were told, as the team root links the incident thread. Part of
// the root's step: posted once, looked up by its metadata (the team record's key, reply "team-root") before every
// post, since a retry of the step (after a crash, a lost answer) runs it again.
import { isRwxError } from '../../errors.js';
import { teamRefusedLine, teamToldLine } from '../../render/slack-links.js';
import { replyMetadata } from '../../slack/api.js';
import type { IncidentRecord } from '../../store/record.js';
import type { StepContext } from './step.js';

/** The reply id of the line in the incident channel's thread. */
export const TOLD_REPLY = 'team-root';
/** The reply id of the line saying the team channel refused the root (the bot is not in it). */
export const REFUSED_REPLY = 'team-refused';

/**
 * Posts the line naming team root `ts` of record `r` in its incident channel's thread, unless it is there; nothing
 * for the incident channel's own record, or while that thread is not known. A channel the bot cannot post in is
 * left alone: the incident channel's own steps report it, and the team's thread goes on without the line.
 */
export async function tellParent(ctx: StepContext, r: IncidentRecord, ts: string): Promise<void> {
  await tellOnce(ctx, r, TOLD_REPLY, teamToldLine({ channel: r.channel, threadTs: ts }));
}

/**
 * Runs `post` (a team record's root step); when the team channel refuses it (SLACK_CHANNEL: the bot is not in it),
 * says so once in the incident channel's thread, so the people reading it know a team was not told and what to do,
 * then rethrows (the worker asks again later). Nothing for the incident channel's own record.
 */
export async function sayRefused<T>(ctx: StepContext, r: IncidentRecord, post: () => Promise<T>): Promise<T> {
  try {
    return await post();
  } catch (e) {
    if (isRwxError(e, 'SLACK_CHANNEL')) await tellOnce(ctx, r, REFUSED_REPLY, teamRefusedLine(r.channel));
    throw e;
  }
}

/** Posts `text` in record `r`'s incident channel thread as reply `reply`, unless it is there (or no thread yet). */
async function tellOnce(ctx: StepContext, r: IncidentRecord, reply: string, text: string): Promise<void> {
  const p = r.parent;
  if (!p?.channel || !p.threadTs) return;
  try {
    if (await ctx.slack.findThreadReply(p.channel, p.threadTs, r.key, reply)) return;
    await ctx.slack.postMessage({
      channel: p.channel,
      threadTs: p.threadTs,
      text,
      metadata: replyMetadata(r.key, reply),
    });
  } catch (e) {
    if (!isRwxError(e, 'SLACK_CHANNEL')) throw e;
  }
}
