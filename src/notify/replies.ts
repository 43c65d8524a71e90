// Thread replies that survive a crash: each carries metadata with a stable reply id, so a retry can find out
// whether Slack already has it before posting again (the root has the same guarantee, see stages.ts).
import type { IncidentRecord } from '../store/incident-store.js';
import type { SlackMessage } from '../render/slack-blocks.js';
import { replyMetadata } from '../slack/api.js';
import type { StageDeps } from './deps.js';

/**
 * Posts reply `id` in thread `ts` unless an interrupted attempt already did: replyStarted is written before the
 * post, and an attempt that finds it set to this id looks the reply up by its metadata first. The caller's
 * record write for the reply removes replyStarted.
 */
export async function postReplyOnce(
  deps: Pick<StageDeps, 'store' | 'slack'>,
  r: IncidentRecord,
  ts: string,
  id: string,
  message: SlackMessage,
): Promise<void> {
  if (r.replyStarted === id && (await deps.slack.findThreadReply(r.channel, ts, r.key, id))) return;
  if (r.replyStarted !== id) await deps.store.patch(r.key, { replyStarted: id });
  await deps.slack.postMessage({ channel: r.channel, threadTs: ts, ...message, metadata: replyMetadata(r.key, id) });
}
