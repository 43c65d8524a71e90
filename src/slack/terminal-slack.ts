// A SlackApi for `rwx demo`: keeps messages like MemorySlack and prints the thread to a stream as it evolves
// (root posted, root edited, replies indented), rendering Block Kit as plain terminal text.
import type { Writable } from 'node:stream';
import type { Block } from '../render/slack-blocks.js';
import type { EphemeralArgs, PostMessageArgs, UpdateArgs, UploadArgs } from './api.js';
import { MemorySlack } from './memory-slack.js';

/** Options: where to print, and whether to use ANSI colour (default: when the stream is a TTY). */
export interface TerminalSlackOptions {
  out: Writable & { isTTY?: boolean };
  color?: boolean;
  /** Prefix for each printed event, e.g. a timestamp from the demo's clock. */
  stamp?: () => string;
}

/** Prints every post, edit and reply; otherwise behaves as MemorySlack (lookups, ts values). */
export class TerminalSlack extends MemorySlack {
  private readonly color: boolean;

  constructor(private readonly opts: TerminalSlackOptions) {
    super();
    this.color = opts.color ?? Boolean(opts.out.isTTY);
  }

  override async postMessage(args: PostMessageArgs): Promise<{ ts: string; channel: string }> {
    const res = await super.postMessage(args);
    if (args.threadTs) this.print(`reply in thread ${args.threadTs}`, args, '    ');
    else this.print(`new root message ${res.ts} in ${args.channel}`, args, '');
    return res;
  }

  override async update(args: UpdateArgs): Promise<void> {
    await super.update(args);
    this.print(`root ${args.ts} edited`, args, '');
  }

  override async postEphemeral(args: EphemeralArgs): Promise<void> {
    await super.postEphemeral(args);
    this.print(`only visible to ${args.user}`, args, '    ');
  }

  override async uploadFile(args: UploadArgs): Promise<{ fileId: string }> {
    const res = await super.uploadFile(args);
    this.print(`file ${args.filename} uploaded`, { text: args.initialComment ?? '' }, '    ');
    return res;
  }

  /**
   * Prints an answer to a slash command (its acknowledgement, or what its response_url receives) as Slack shows it
   * to `user`: `rwx demo --fleet` answers a routed command this way.
   */
  answer(user: string, msg: { text: string; blocks?: Block[]; response_type?: string }): void {
    const where = msg.response_type === 'in_channel' ? 'in the channel' : `only visible to ${user}`;
    this.print(`/rwx answer, ${where}`, msg, '    ');
  }

  private print(event: string, msg: { text: string; blocks?: Block[] }, indent: string): void {
    const bar = '─'.repeat(Math.max(4, 72 - event.length - indent.length));
    const stamp = this.opts.stamp ? `${this.opts.stamp()} ` : '';
    const lines = [this.paint('1;36', `${indent}── ${stamp}${event} ${bar}`)];
    const body = msg.blocks && msg.blocks.length > 0 ? msg.blocks.flatMap((b) => this.block(b)) : [unescape(msg.text)];
    for (const l of body) lines.push(indent + l);
    this.opts.out.write(lines.join('\n') + '\n\n');
  }

  private block(b: Block): string[] {
    const text = (v: unknown): string => unescape(String((v as { text?: unknown } | undefined)?.text ?? ''));
    switch (b.type) {
      case 'header':
        return [this.paint('1', text(b.text))];
      case 'section':
        return mrkdwn(text(b.text));
      case 'context':
        return ((b.elements as unknown[]) ?? []).flatMap((e) => mrkdwn(text(e)).map((l) => this.paint('2', l)));
      case 'actions':
        return [
          ((b.elements as { text?: { text?: string } }[]) ?? []).map((e) => `[ ${e.text?.text ?? '?'} ]`).join(' '),
        ];
      default:
        return [];
    }
  }

  private paint(code: string, s: string): string {
    return this.color ? `\u001b[${code}m${s}\u001b[0m` : s;
  }
}

// Slack mrkdwn to terminal text: code fences become indented blocks, *bold* and `code` markers are dropped.
function mrkdwn(s: string): string[] {
  const out: string[] = [];
  let inCode = false;
  for (const raw of s.split('\n')) {
    let line = raw;
    const fences = (line.match(/```/g) ?? []).length;
    line = line.replace(/```/g, '');
    const code = inCode || fences > 0;
    out.push(code ? `  ${line}` : line.replace(/\*([^*\n]+)\*/g, '$1').replace(/`([^`\n]+)`/g, '$1'));
    if (fences % 2 === 1) inCode = !inCode;
  }
  return out;
}

const EMOJI: Record<string, string> = {
  ':rotating_light:': '🚨',
  ':no_entry:': '⛔',
  ':warning:': '⚠️',
  ':white_check_mark:': '✅',
  ':eyes:': '👀',
  ':mute:': '🔇',
  ':grey_question:': '❔',
  ':information_source:': 'ℹ️',
  ':large_green_circle:': '🟢',
  ':red_circle:': '🔴',
  ':hourglass_flowing_sand:': '⏳',
};

// Slack's own markup first (dates show their UTC fallback, a user group its id, a link its text and URL), then
// emoji codes and entities; what came from the cluster is escaped, so every < here is ours.
function unescape(s: string): string {
  return s
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
    .replace(/<!subteam\^([A-Z0-9]+)>/g, '@$1')
    .replace(/<(https?:[^|>]+)\|([^>]*)>/g, '$2 ($1)')
    .replace(/:[a-z_]+:/g, (m) => EMOJI[m] ?? m)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
