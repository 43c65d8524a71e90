// The message a command answers with, as posted to a slash command's response_url, and the small block helpers
// the renderers share. Slack limits (https://api.slack.com/reference/block-kit/blocks): 50 blocks per message,
// 3000 characters per section text, 150 per header; every helper here enforces them so no renderer can exceed them.
import { shorten, stripUnsafe } from './escape.js';

/** Maximum blocks in one message. */
export const MAX_BLOCKS = 50;
/** Maximum characters of a section's mrkdwn text. */
export const MAX_SECTION_TEXT = 3000;
/** Maximum characters of the top-level fallback `text`, kept well under Slack's 40k truncation. */
export const MAX_FALLBACK_TEXT = 3000;

/** The Block Kit blocks renderers use. */
export type Block =
  | { type: 'header'; text: { type: 'plain_text'; text: string } }
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] }
  | { type: 'divider' };

/** A response_url payload. `text` is the notification fallback; both text and blocks are already escaped. */
export interface CommandResponse {
  response_type: 'ephemeral' | 'in_channel';
  text: string;
  blocks?: Block[];
}

/** A full report that did not fit in the message, to be uploaded as a file next to it. */
export interface Attachment {
  filename: string;
  title: string;
  content: string;
}

/** What a handler produces: the message, and optionally a file with the full report. */
export interface CommandReply {
  response: CommandResponse;
  file?: Attachment;
  /** The reply says the command failed (metrics count it as an error). */
  failed?: boolean;
}

/** A header block (plain text: Slack shows it literally, so it is not escaped; unsafe characters go, then shortened). */
export function header(text: string): Block {
  return { type: 'header', text: { type: 'plain_text', text: shorten(stripUnsafe(text), 150) } };
}

/** A mrkdwn section; `text` must already be escaped. Cut at the limit on a line boundary when possible. */
export function section(text: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: cutLines(text, MAX_SECTION_TEXT) } };
}

/** A context block of one mrkdwn line (already escaped). */
export function context(text: string): Block {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: cutLines(text, MAX_SECTION_TEXT) }] };
}

/** Cuts text to `max` characters, preferring the last full line, and never in the middle of an entity. */
export function cutLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - 2;
  let cut = text.lastIndexOf('\n', room);
  if (cut < room / 2) cut = room;
  let head = text.slice(0, cut);
  const amp = head.lastIndexOf('&');
  if (amp >= 0 && !head.slice(amp).includes(';')) head = head.slice(0, amp); // do not leave "&am"
  return `${head}\n…`;
}

/** Builds a response; `public` posts in the channel, otherwise only the caller sees it. */
export function respond(text: string, blocks: Block[] | undefined, pub: boolean): CommandResponse {
  const r: CommandResponse = {
    response_type: pub ? 'in_channel' : 'ephemeral',
    text: cutLines(text, MAX_FALLBACK_TEXT),
  };
  if (blocks && blocks.length > 0) r.blocks = blocks.slice(0, MAX_BLOCKS);
  return r;
}
