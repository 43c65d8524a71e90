// An in-memory SlackApi (the demo's terminal Slack, pure tests): records messages, hands out increasing ts values,
// and can fail on demand. Its lookups answer as the Web API client's do (test/slack/memory-slack-contract.test.ts):
// a root posted before `sinceMs` is not found, and neither is one beyond the history the client reads (five pages of
// 200), nor a reply beyond the thread pages it reads.
import { type Clock, systemClock } from '../domain/clock.js';
import { RwxError } from '../errors.js';
import {
  type EphemeralArgs,
  type MessageMetadata,
  type PostMessageArgs,
  type SlackApi,
  type UpdateArgs,
  type UploadArgs,
  isIncidentReply,
  isIncidentRoot,
} from './api.js';
import type { Block } from '../render/slack-blocks.js';

/** A message as MemorySlack holds it (after any updates). */
export interface MemoryMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  text: string;
  blocks?: Block[];
  metadata?: MessageMetadata;
  /** A thread reply also shown in the channel. */
  broadcast?: boolean;
  /** When it was posted (the clock's ms): what `sinceMs` is compared with. */
  postedAt: number;
  edits: number;
}

/** How much of Slack a lookup reads, as the Web API client does (web-api.ts historyPages and threadPages, 200 each). */
export interface MemorySlackOptions {
  clock?: Clock;
  /** Newest channel messages findRootByIncidentKey reads (default 1000). */
  historyLimit?: number;
  /** Oldest messages of a thread, its parent first, findThreadReply reads (default 1000). */
  threadLimit?: number;
}

/** The in-memory fake: `messages` in post order, `calls` by method, `failNext` queues errors for a method. */
export class MemorySlack implements SlackApi {
  private readonly clock: Clock;
  private readonly historyLimit: number;
  private readonly threadLimit: number;

  constructor(o: MemorySlackOptions = {}) {
    this.clock = o.clock ?? systemClock;
    this.historyLimit = o.historyLimit ?? 1000;
    this.threadLimit = o.threadLimit ?? 1000;
  }

  readonly messages: MemoryMessage[] = [];
  readonly ephemeral: EphemeralArgs[] = [];
  readonly uploads: UploadArgs[] = [];
  readonly calls: { method: string; args: unknown }[] = [];
  private readonly failures = new Map<string, RwxError[]>();
  private seq = 0;

  /** Makes the next call(s) of `method` ('postMessage', 'update', ...) throw `error`. */
  failNext(method: keyof SlackApi, error: RwxError, times = 1): void {
    const list = this.failures.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(error);
    this.failures.set(method, list);
  }

  /** Deletes a message, as a person in the channel might. */
  remove(ts: string): void {
    const i = this.messages.findIndex((m) => m.ts === ts);
    if (i >= 0) this.messages.splice(i, 1);
  }

  /** Root messages (not thread replies). */
  roots(): MemoryMessage[] {
    return this.messages.filter((m) => m.threadTs === undefined);
  }

  /** Replies in the thread of `ts`. */
  replies(ts: string): MemoryMessage[] {
    return this.messages.filter((m) => m.threadTs === ts);
  }

  async postMessage(args: PostMessageArgs): Promise<{ ts: string; channel: string }> {
    this.enter('postMessage', args);
    const ts = `${1_700_000_000 + ++this.seq}.000100`;
    this.messages.push({
      channel: args.channel,
      ts,
      threadTs: args.threadTs,
      text: args.text,
      blocks: args.blocks,
      metadata: args.metadata,
      ...(args.threadTs && args.replyBroadcast ? { broadcast: true } : {}),
      postedAt: this.clock.now(),
      edits: 0,
    });
    return { ts, channel: args.channel };
  }

  async update(args: UpdateArgs): Promise<void> {
    this.enter('update', args);
    const m = this.messages.find((x) => x.channel === args.channel && x.ts === args.ts);
    if (!m) throw new RwxError('NOT_FOUND', 'chat.update: message_not_found', { retryable: false });
    m.text = args.text;
    m.blocks = args.blocks;
    m.edits++;
  }

  async postEphemeral(args: EphemeralArgs): Promise<void> {
    this.enter('postEphemeral', args);
    this.ephemeral.push(args);
  }

  async findRootByIncidentKey(channel: string, key: string, sinceMs?: number): Promise<string | undefined> {
    this.enter('findRootByIncidentKey', { channel, key, sinceMs });
    // The channel's history as Slack serves it: roots and broadcast replies, newest first, from `sinceMs` on.
    const history = this.messages
      .filter((m) => m.channel === channel && (m.threadTs === undefined || m.broadcast))
      .filter((m) => sinceMs === undefined || m.postedAt >= sinceMs)
      .reverse()
      .slice(0, this.historyLimit);
    return history.find((m) => m.threadTs === undefined && isIncidentRoot(m.metadata, key))?.ts;
  }

  async findThreadReply(channel: string, threadTs: string, key: string, replyId: string): Promise<string | undefined> {
    this.enter('findThreadReply', { channel, threadTs, key, replyId });
    const parent = this.messages.find((m) => m.channel === channel && m.ts === threadTs && m.threadTs === undefined);
    if (!parent) return undefined;
    // The thread as Slack serves it: the parent, then the replies oldest first; the newest match read wins.
    const thread = [parent, ...this.messages.filter((m) => m.channel === channel && m.threadTs === threadTs)];
    return thread
      .slice(0, this.threadLimit)
      .reverse()
      .find((m) => m !== parent && isIncidentReply(m.metadata, key, replyId))?.ts;
  }

  async permalink(channel: string, ts: string): Promise<string> {
    this.enter('permalink', { channel, ts });
    if (!this.messages.some((m) => m.channel === channel && m.ts === ts))
      throw new RwxError('NOT_FOUND', 'chat.getPermalink: message_not_found', { retryable: false });
    return `https://memory.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
  }

  async uploadFile(args: UploadArgs): Promise<{ fileId: string }> {
    this.enter('uploadFile', args);
    this.uploads.push(args);
    return { fileId: `F${this.uploads.length}` };
  }

  private enter(method: string, args: unknown): void {
    this.calls.push({ method, args });
    const queued = this.failures.get(method);
    const err = queued?.shift();
    if (err) throw err;
  }
}
