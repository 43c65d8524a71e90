// A fake Slack Web API over real HTTP (node:http, random port). Production code reaches it through the real
// WebClient / Bolt with slackApiUrl = fake.apiUrl. It records every call (method, args, token, how it was
// answered), keeps posted messages with their metadata (served back by conversations.history and
// conversations.replies), opens DMs (conversations.open), and injects faults: per call (429 + Retry-After, HTTP
// errors, platform errors like invalid_auth, "ghost posts" stored but answered 500 or with a dropped connection,
// calls that never answer), outages of a given length (a 5xx or 429 storm), and Slack's per-channel rate limit.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerMethod, type FakeMessage } from './fake-slack-methods.js';

export type { FakeMessage } from './fake-slack-methods.js';

/** How a call was answered: an HTTP status, the connection dropped, or never (still hanging). */
export type FakeAnswer = number | 'dropped' | 'hung';

/** One recorded Web API call. */
export interface FakeCall {
  method: string;
  args: Record<string, unknown>;
  /** The bearer token sent (tests assert on it; never printed). */
  token?: string;
  /** Whether Slack acted on it (stored, edited...), whatever the answer said. */
  handled: boolean;
  /** How it was answered (set when the answer is sent). */
  answer?: FakeAnswer;
  /** The fault that answered it, if one did. */
  fault?: FaultKind;
  /** Wall time it arrived (the fake's clock). */
  at: number;
}

/** Which fault answered a call. */
export type FaultKind = Fault['kind'] | 'outage' | 'channel-limit';

/** Options for an outage: every call (or those of `methods`) gets `status` while it lasts. */
export interface OutageOptions {
  /** HTTP status (default 503); 429 makes it a rate-limit storm. */
  status?: number;
  /** Seconds sent in Retry-After (default 1 for 429, none otherwise). */
  retryAfter?: number;
  /** Only these methods (default every Web API method). */
  methods?: string[];
}

/** Slack's per-channel posting limit: at most `limit` calls per channel in any `windowMs`, 429 beyond. */
export interface ChannelLimit {
  /** Calls allowed per window and channel (default 1). */
  limit?: number;
  /** The window, in ms (default 1000: Slack's "about one message per second per channel"). */
  windowMs?: number;
  /** The methods that count (default chat.postMessage). */
  methods?: string[];
}

type Fault = (
  | { kind: 'ratelimit'; retryAfter: number }
  | { kind: 'http'; status: number }
  | { kind: 'platform'; error: string }
  | { kind: 'after'; status: number }
  | { kind: 'drop'; handled: boolean }
  | { kind: 'hang'; handled: boolean }
  | { kind: 'pass' }
) & {
  /** Only calls naming this channel meet the fault (others pass it by); default any call. */
  channel?: string;
};

/** The methods Slack answers `not_in_channel` for in a channel the bot is not a member of (see leave()). */
const MEMBER_METHODS = new Set(['chat.postMessage', 'chat.update', 'conversations.history', 'conversations.replies']);

/** The fake server. Create with startFakeSlack(). */
export class FakeSlack {
  readonly calls: FakeCall[] = [];
  readonly messages: FakeMessage[] = [];
  /** Bodies POSTed to response_url endpoints, by id. */
  readonly responses = new Map<string, unknown[]>();
  /** Uploaded file bytes by file id, and completed uploads (files.completeUploadExternal args). */
  readonly files = new Map<string, { filename: string; bytes?: Buffer }>();
  readonly completedUploads: Record<string, unknown>[] = [];
  /** DMs opened with conversations.open: channel id -> user ids. */
  readonly dms = new Map<string, string[]>();
  /** User group id -> member user ids, served by usergroups.users.list. */
  usergroups: Record<string, string[]> = {};
  /** The ws:// URL apps.connections.open hands out (set by the fake Socket Mode server). */
  socketModeUrl = 'ws://127.0.0.1:1/';
  /** Calls refused by the per-channel limit, per channel. */
  readonly channelLimited = new Map<string, number>();
  private readonly faults = new Map<string, Fault[]>();
  private outages: { status: number; retryAfter?: number; methods?: string[]; until: number }[] = [];
  private limit: Required<ChannelLimit> | undefined;
  private readonly posted = new Map<string, number[]>();
  private readonly absent = new Set<string>();
  private seq = 0;

  constructor(
    private readonly server: Server,
    /** The fake's wall clock (outages, the channel limit). */
    private readonly now: () => number = Date.now,
  ) {}

  /** Base URL of the Web API, with trailing slash, for WebClient's slackApiUrl. */
  get apiUrl(): string {
    return `${this.origin}/api/`;
  }

  /** http://127.0.0.1:PORT */
  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A response_url that records what is POSTed to it under `id`. */
  responseUrl(id: string): string {
    return `${this.origin}/response/${encodeURIComponent(id)}`;
  }

  /** The next `times` calls of `method` ('*': of any method) get HTTP 429 with Retry-After: retryAfter seconds. */
  rateLimit(method: string, times = 1, retryAfter = 1): void {
    this.push(method, { kind: 'ratelimit', retryAfter }, times);
  }

  /** The next `times` calls of `method` get HTTP `status` (default 500) without being handled. */
  serverError(method: string, times = 1, status = 500): void {
    this.push(method, { kind: 'http', status }, times);
  }

  /** The next `times` calls of `method` get `{ok: false, error}` (e.g. invalid_auth, channel_not_found). */
  platformError(method: string, error: string, times = 1): void {
    this.push(method, { kind: 'platform', error }, times);
  }

  /** The next `times` calls of `method` ARE handled, then answered with HTTP 500: a crash after the side effect. */
  failAfterHandling(method: string, times = 1, status = 500): void {
    this.push(method, { kind: 'after', status }, times);
  }

  /** The next `times` calls of `method` are handled, then the connection is dropped: a ghost post, answer lost. */
  dropAfterHandling(method: string, times = 1): void {
    this.push(method, { kind: 'drop', handled: true }, times);
  }

  /** The next `times` calls of `method` get their connection dropped before Slack acts on them. */
  dropConnection(method: string, times = 1): void {
    this.push(method, { kind: 'drop', handled: false }, times);
  }

  /**
   * The next `times` calls of `method` are never answered (the connection stays open until close()); with
   * `handled`, Slack acts on them first (the message is stored, the answer never comes).
   */
  hang(method: string, times = 1, opts: { handled?: boolean; channel?: string } = {}): void {
    const only = opts.channel !== undefined ? { channel: opts.channel } : {};
    this.push(method, { kind: 'hang', handled: opts.handled ?? false, ...only }, times);
  }

  /** The bot is not a member of `channel` (never invited): posts, edits and reads there get `not_in_channel`. */
  leave(channel: string): void {
    this.absent.add(channel);
  }

  /** The bot is invited to `channel` again. */
  join(channel: string): void {
    this.absent.delete(channel);
  }

  /**
   * An outage of `forMs` from now: every call (or those of `methods`) gets HTTP `status` (default 503) without
   * being handled; status 429 makes it a rate-limit storm with Retry-After. Returns when it ends (epoch ms).
   */
  outage(forMs: number, opts: OutageOptions = {}): number {
    const status = opts.status ?? 503;
    const until = this.now() + forMs;
    const retryAfter = opts.retryAfter ?? (status === 429 ? 1 : undefined);
    this.outages.push({ ...opts, status, until, ...(retryAfter !== undefined ? { retryAfter } : {}) });
    return until;
  }

  /** Turns Slack's per-channel posting limit on (see ChannelLimit for the defaults), or off with `false`. */
  channelRateLimit(opts: ChannelLimit | false = {}): void {
    this.limit = opts === false ? undefined : { limit: 1, windowMs: 1000, methods: ['chat.postMessage'], ...opts };
    this.posted.clear();
  }

  /** Calls answered (or not) in a given way, e.g. answered(429) or answered('dropped'). */
  answered(answer: FakeAnswer): FakeCall[] {
    return this.calls.filter((c) => c.answer === answer);
  }

  /** The next `times` calls of `method` succeed: faults queued after this hit the calls that follow them. */
  pass(method: string, times = 1): void {
    this.push(method, { kind: 'pass' }, times);
  }

  /** Forgets calls, messages, responses, uploads, DMs and every fault (between tests sharing one server). */
  reset(): void {
    this.calls.length = 0;
    this.messages.length = 0;
    this.completedUploads.length = 0;
    this.responses.clear();
    this.files.clear();
    this.dms.clear();
    this.faults.clear();
    this.outages = [];
    this.limit = undefined;
    this.posted.clear();
    this.channelLimited.clear();
    this.absent.clear();
  }

  /** Recorded calls of one method. */
  callsOf(method: string): FakeCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Root messages (not replies) in a channel, oldest first. */
  roots(channel?: string): FakeMessage[] {
    return this.messages.filter((m) => (channel === undefined || m.channel === channel) && m.thread_ts === undefined);
  }

  /**
   * Whether the thread of `ts` shows its evidence in full: the first reply, and the second one when the first says
   * it left something out ("the next reply holds them"). What tests wait for before counting a thread's replies.
   */
  evidenceShown(ts: string): boolean {
    const ids = new Map(this.replies(ts).map((r) => [r.metadata?.event_payload.reply, r]));
    const first = ids.get('evidence');
    if (!first) return false;
    return !JSON.stringify(first.blocks).includes('the next reply holds them') || ids.has('evidence-rest');
  }

  /** Replies in a thread, oldest first. */
  replies(ts: string): FakeMessage[] {
    return this.messages.filter((m) => m.thread_ts === ts);
  }

  /** Stops the server. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The request handler (public for startFakeSlack). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname.startsWith('/response/')) {
      const id = decodeURIComponent(url.pathname.slice('/response/'.length));
      this.responses.set(id, [...(this.responses.get(id) ?? []), parseJson(body.toString('utf8'))]);
      return send(res, 200, { ok: true });
    }
    if (url.pathname.startsWith('/upload/')) {
      const id = decodeURIComponent(url.pathname.slice('/upload/'.length));
      const f = this.files.get(id);
      if (!f) return send(res, 404, { ok: false });
      f.bytes = body;
      return send(res, 200, { ok: true });
    }
    if (!url.pathname.startsWith('/api/')) return send(res, 404, { ok: false, error: 'unknown_path' });
    const method = url.pathname.slice('/api/'.length);
    const args = parseArgs(req.headers['content-type'] ?? '', body, url);
    const auth = req.headers.authorization;
    const token = auth?.startsWith('Bearer ') ? auth.slice(7) : typeof args.token === 'string' ? args.token : undefined;
    const call: FakeCall = { method, args, ...(token ? { token } : {}), handled: false, at: this.now() };
    this.calls.push(call);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      call.answer = status;
      send(res, status, body, headers);
    };
    const fault = this.takeFault(method, args) ?? this.takeFault('*', args);
    if (fault && fault.kind !== 'pass') call.fault = fault.kind;
    if (fault?.kind === 'ratelimit') return answer(429, RATELIMITED, { 'retry-after': String(fault.retryAfter) });
    if (fault?.kind === 'http') return answer(fault.status, { ok: false, error: 'internal_error' });
    if (fault?.kind === 'platform') return answer(200, { ok: false, error: fault.error });
    if ((fault?.kind === 'drop' || fault?.kind === 'hang') && !fault.handled) return this.abandon(call, fault, req);
    if (!fault) {
      const out = this.outageNow(method);
      if (out) {
        call.fault = 'outage';
        const headers: Record<string, string> =
          out.retryAfter !== undefined ? { 'retry-after': String(out.retryAfter) } : {};
        return answer(
          out.status,
          out.status === 429 ? RATELIMITED : { ok: false, error: 'service_unavailable' },
          headers,
        );
      }
      const wait = this.channelWait(method, args);
      if (wait !== undefined) {
        call.fault = 'channel-limit';
        return answer(429, RATELIMITED, { 'retry-after': String(wait) });
      }
    }
    if (!token) return answer(200, { ok: false, error: 'not_authed' });
    if (MEMBER_METHODS.has(method) && this.absent.has(String(args.channel)))
      return answer(200, { ok: false, error: 'not_in_channel' });
    const result = answerMethod(this, method, args);
    call.handled = result.ok === true;
    if (fault?.kind === 'after') return answer(fault.status, { ok: false, error: 'internal_error' });
    if (fault?.kind === 'drop' || fault?.kind === 'hang') return this.abandon(call, fault, req);
    return answer(200, result);
  }

  /** Drops the connection or leaves the call hanging (the socket stays open until close()). */
  private abandon(call: FakeCall, fault: Fault & { kind: 'drop' | 'hang' }, req: IncomingMessage): void {
    call.answer = fault.kind === 'drop' ? 'dropped' : 'hung';
    if (fault.kind === 'drop') req.socket.destroy();
  }

  private outageNow(method: string): (OutageOptions & { status: number }) | undefined {
    const now = this.now();
    this.outages = this.outages.filter((o) => o.until > now);
    return this.outages.find((o) => o.methods === undefined || o.methods.includes(method));
  }

  /** Seconds to wait when the per-channel limit refuses this call, else undefined (and the call counts). */
  private channelWait(method: string, args: Record<string, unknown>): number | undefined {
    const limit = this.limit;
    const channel = typeof args.channel === 'string' ? args.channel : undefined;
    if (!limit || !channel || !limit.methods.includes(method)) return undefined;
    const now = this.now();
    const recent = (this.posted.get(channel) ?? []).filter((t) => t > now - limit.windowMs);
    if (recent.length < limit.limit) {
      this.posted.set(channel, [...recent, now]);
      return undefined;
    }
    this.posted.set(channel, recent);
    this.channelLimited.set(channel, (this.channelLimited.get(channel) ?? 0) + 1);
    return Math.max(1, Math.ceil(((recent[0] ?? now) + limit.windowMs - now) / 1000));
  }

  /** A new, unique, increasing message ts: real seconds (so `oldest` filters behave), the sequence after the dot. */
  nextTs(): string {
    return `${Math.floor(Date.now() / 1000)}.${String(++this.seq).padStart(6, '0')}`;
  }

  /** A new number for ids. */
  nextId(): number {
    return ++this.seq;
  }

  /** The first fault queued for `method` that this call meets (one for its channel, or for any channel). */
  private takeFault(method: string, args: Record<string, unknown>): Fault | undefined {
    const list = this.faults.get(method);
    const i = list?.findIndex((f) => f.channel === undefined || f.channel === args.channel) ?? -1;
    return i < 0 ? undefined : list!.splice(i, 1)[0];
  }

  private push(method: string, fault: Fault, times: number): void {
    const list = this.faults.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(fault);
    this.faults.set(method, list);
  }
}

const RATELIMITED = { ok: false, error: 'ratelimited' };

/** Starts a fake Slack on 127.0.0.1 with a random port; `now` is its clock (default the wall clock). */
export async function startFakeSlack(opts: { now?: () => number } = {}): Promise<FakeSlack> {
  const holder: { fake?: FakeSlack } = {};
  const server = createServer((req, res) => {
    holder.fake!.handle(req, res).catch(() => send(res, 500, { ok: false, error: 'fake_crashed' }));
  });
  const fake = new FakeSlack(server, opts.now);
  holder.fake = fake;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return fake;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// WebClient sends application/x-www-form-urlencoded with objects JSON-encoded; Bolt's respond() sends JSON.
function parseArgs(contentType: string, body: Buffer, url: URL): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of url.searchParams) out[k] = v;
  const text = body.toString('utf8');
  if (contentType.includes('application/json')) return { ...out, ...(parseJson(text) as Record<string, unknown>) };
  for (const [k, v] of new URLSearchParams(text)) out[k] = /^[[{]/.test(v) ? parseJson(v) : v;
  return out;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
