// A team channel's root (channels.ts), once in Slack, is named in the incident channel's thread with a link to it,
// so the incident thread says which team channels were told, as the team root links the incident thread. Part of
// the root's step: posted once, looked up by its metadata (the team record's key, reply "team-root") before every
// post, since a retry of the step (after a crash, a lost answer) runs it again.
import { isRwxError } from '../../errors.js';
import { teamToldLine } from '../../render/slack-links.js';
import { replyMetadata } from '../../slack/api.js';
import type { IncidentRecord } from '../../store/record.js';
import type { StepContext } from './step.js';

/** The reply id of the line in the incident channel's thread. */
export const TOLD_REPLY = 'team-root';

/**
 * Posts the line naming team root `ts` of record `r` in its incident channel's thread, unless it is there; nothing
 * for the incident channel's own record, or while that thread is not known. A channel the bot cannot post in is
 * left alone: the incident channel's own steps report it, and the team's thread goes on without the line.
 */
export async function tellParent(ctx: StepContext, r: IncidentRecord, ts: string): Promise<void> {
  const p = r.parent;
  if (!p?.channel || !p.threadTs) return;
  try {
    if (await ctx.slack.findThreadReply(p.channel, p.threadTs, r.key, TOLD_REPLY)) return;
    await ctx.slack.postMessage({
      channel: p.channel,
      threadTs: p.threadTs,
      text: teamToldLine({ channel: r.channel, threadTs: ts }),
      metadata: replyMetadata(r.key, TOLD_REPLY),
    });
  } catch (e) {
    if (!isRwxError(e, 'SLACK_CHANNEL')) throw e;
  }
}
