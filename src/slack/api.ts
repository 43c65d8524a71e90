// The Slack Web API as the bot uses it: a small interface we own. Production wraps @slack/web-api's WebClient
// (web-api.ts); pure tests use MemorySlack (memory-slack.ts); the demo prints to a terminal (terminal-slack.ts).
import type { Block } from '../render/slack-blocks.js';

/** The metadata event type that marks an incident's root message and the bot's replies in its thread. */
export const INCIDENT_EVENT_TYPE = 'rwx_incident';

/** Message metadata as chat.postMessage takes it. */
export interface MessageMetadata {
  event_type: string;
  event_payload: Record<string, string | number | boolean>;
}

/** A message to post (a thread reply when threadTs is set). */
export interface PostMessageArgs {
  channel: string;
  text: string;
  blocks?: Block[];
  threadTs?: string;
  metadata?: MessageMetadata;
  /** With threadTs: the reply is also shown in the channel (Slack's reply_broadcast). */
  replyBroadcast?: boolean;
}

/** An edit of a posted message. */
export interface UpdateArgs {
  channel: string;
  ts: string;
  text: string;
  blocks?: Block[];
}

/** A message only `user` sees. */
export interface EphemeralArgs {
  channel: string;
  user: string;
  text: string;
  blocks?: Block[];
  threadTs?: string;
}

/** A file shared into a channel (and thread). */
export interface UploadArgs {
  channel: string;
  threadTs?: string;
  filename: string;
  content: string | Uint8Array;
  title?: string;
  initialComment?: string;
}

/**
 * What the bot needs from Slack. Every method throws RwxError: SLACK_RATE_LIMITED (retryable, with
 * retryAfterSeconds), NOT_FOUND (update of a message that no longer exists) or SLACK_API (retryable only for
 * server-side failures).
 */
export interface SlackApi {
  /** Posts a message; resolves with its ts and the channel id Slack reports. */
  postMessage(args: PostMessageArgs): Promise<{ ts: string; channel: string }>;
  /** Edits a message in place. */
  update(args: UpdateArgs): Promise<void>;
  /** Posts an ephemeral message to one user. */
  postEphemeral(args: EphemeralArgs): Promise<void>;
  /**
   * Finds the ts of the root posted for incident `key` (message metadata rwx_incident {key}) among the channel's
   * recent history, newest first; `sinceMs` bounds the search. Undefined when there is none.
   */
  findRootByIncidentKey(channel: string, key: string, sinceMs?: number): Promise<string | undefined>;
  /**
   * Finds the ts of the reply `replyId` of incident `key` (metadata rwx_incident {key, reply}) in the thread of
   * `threadTs`; the newest when there are several. Undefined when there is none, or no such thread.
   */
  findThreadReply(channel: string, threadTs: string, key: string, replyId: string): Promise<string | undefined>;
  /** The permanent https link of message `ts` in `channel` (chat.getPermalink). */
  permalink(channel: string, ts: string): Promise<string>;
  /** Uploads a file (getUploadURLExternal, upload, completeUploadExternal); resolves with the file id. */
  uploadFile(args: UploadArgs): Promise<{ fileId: string }>;
}

/** The metadata that marks the root of incident `key`. */
export function incidentMetadata(key: string): MessageMetadata {
  return { event_type: INCIDENT_EVENT_TYPE, event_payload: { key } };
}

/** The metadata that marks the reply `replyId` in the thread of incident `key` (ids are stable across retries). */
export function replyMetadata(key: string, replyId: string): MessageMetadata {
  return { event_type: INCIDENT_EVENT_TYPE, event_payload: { key, reply: replyId } };
}

/** Whether a message's metadata marks it as the root of incident `key` (a reply of that incident is not). */
export function isIncidentRoot(metadata: unknown, key: string): boolean {
  const p = incidentPayload(metadata, key);
  return p !== undefined && p.reply === undefined;
}

/** Whether a message's metadata marks it as the reply `replyId` of incident `key`. */
export function isIncidentReply(metadata: unknown, key: string, replyId: string): boolean {
  return incidentPayload(metadata, key)?.reply === replyId;
}

// The event payload when the metadata is ours and names incident `key`.
function incidentPayload(metadata: unknown, key: string): { key?: unknown; reply?: unknown } | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const m = metadata as { event_type?: unknown; event_payload?: { key?: unknown; reply?: unknown } | null };
  return m.event_type === INCIDENT_EVENT_TYPE && m.event_payload?.key === key ? m.event_payload : undefined;
}
