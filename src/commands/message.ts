// The message a command answers with, as posted to a slash command's response_url. The blocks, Slack's limits
// (https://api.slack.com/reference/block-kit/blocks) and the cutting to them are render's, the same as the
// incident thread's: src/render/slack-blocks.ts and src/render/escape.ts.
import { SLACK_BLOCK_LIMIT, SLACK_FALLBACK_LIMIT, cutEscaped } from '../render/escape.js';
import type { TextBlock } from '../render/slack-blocks.js';

export type { TextBlock } from '../render/slack-blocks.js';

/** A response_url payload. `text` is the notification fallback; both text and blocks are already escaped. */
export interface CommandResponse {
  response_type: 'ephemeral' | 'in_channel';
  text: string;
  blocks?: TextBlock[];
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

/** Builds a response; `public` posts in the channel, otherwise only the caller sees it. */
export function respond(text: string, blocks: TextBlock[] | undefined, pub: boolean): CommandResponse {
  const r: CommandResponse = {
    response_type: pub ? 'in_channel' : 'ephemeral',
    text: cutEscaped(text, SLACK_FALLBACK_LIMIT),
  };
  if (blocks && blocks.length > 0) r.blocks = blocks.slice(0, SLACK_BLOCK_LIMIT);
  return r;
}
