// An in-memory SlackApi for pure tests: records messages, hands out increasing ts values, and can fail on demand.
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
  edits: number;
}

/** The in-memory fake: `messages` in post order, `calls` by method, `failNext` queues errors for a method. */
export class MemorySlack implements SlackApi {
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

  async findRootByIncidentKey(channel: string, key: string): Promise<string | undefined> {
    this.enter('findRootByIncidentKey', { channel, key });
    return [...this.messages]
      .reverse()
      .find((m) => m.channel === channel && m.threadTs === undefined && isIncidentRoot(m.metadata, key))?.ts;
  }

  async findThreadReply(channel: string, threadTs: string, key: string, replyId: string): Promise<string | undefined> {
    this.enter('findThreadReply', { channel, threadTs, key, replyId });
    return [...this.messages]
      .reverse()
      .find((m) => m.channel === channel && m.threadTs === threadTs && isIncidentReply(m.metadata, key, replyId))?.ts;
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
