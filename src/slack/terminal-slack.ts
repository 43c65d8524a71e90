// A SlackApi for `rwx demo`: keeps messages like MemorySlack and prints the thread to a stream as it evolves
// (root posted, root edited, replies indented), rendering Block Kit as plain terminal text.
import type { Writable } from 'node:stream';
import type { Block } from '../render/slack-blocks.js';
import type { EphemeralArgs, PostMessageArgs, UpdateArgs, UploadArgs } from './api.js';
import { MemorySlack } from './memory-slack.js';
import { plainLines, unescapeMrkdwn } from '../render/plain.js';

/** Options: where to print, and whether to use ANSI colour (default: when the stream is a TTY). */
export interface TerminalSlackOptions {
  out: Writable & { isTTY?: boolean };
  color?: boolean;
  /** Prefix for each printed event, e.g. a timestamp from the demo's clock. */
  stamp?: () => string;
  /** Called before each event is printed: the demo prints the story lines that are due first. */
  beforePrint?: () => void;
}

/** A message as a reader sees it: Block Kit (or the text alone) as plain lines, Slack markup and emoji codes rendered. */
export function visibleLines(msg: { text: string; blocks?: Block[] }): string[] {
  return new TerminalSlack({ out: { write: () => true } as never, color: false }).lines(msg);
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
    const thread = this.messages.find((m) => m.channel === args.channel && m.ts === args.ts)?.threadTs;
    if (thread) this.print(`reply ${args.ts} in thread ${thread} edited`, args, '    ');
    else this.print(`root ${args.ts} edited`, args, '');
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

  /** The message's lines as printed (without the event line and indent). */
  lines(msg: { text: string; blocks?: Block[] }): string[] {
    return msg.blocks && msg.blocks.length > 0
      ? msg.blocks.flatMap((b) => this.block(b))
      : plainLines(unescapeMrkdwn(msg.text));
  }

  private print(event: string, msg: { text: string; blocks?: Block[] }, indent: string): void {
    this.opts.beforePrint?.();
    const bar = '─'.repeat(Math.max(4, 72 - event.length - indent.length));
    const stamp = this.opts.stamp ? `${this.opts.stamp()} ` : '';
    const lines = [this.paint('1;36', `${indent}── ${stamp}${event} ${bar}`)];
    for (const l of this.lines(msg)) lines.push(indent + l);
    this.opts.out.write(lines.join('\n') + '\n\n');
  }

  private block(b: Block): string[] {
    const text = (v: unknown): string => unescapeMrkdwn(String((v as { text?: unknown } | undefined)?.text ?? ''));
    switch (b.type) {
      case 'header':
        return [this.paint('1', text(b.text))];
      case 'section':
        return plainLines(text(b.text));
      case 'context':
        return ((b.elements as unknown[]) ?? []).flatMap((e) => plainLines(text(e)).map((l) => this.paint('2', l)));
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
