// A fake Slack Web API over real HTTP (node:http, random port). Production code reaches it through the real
// WebClient / Bolt with slackApiUrl = fake.apiUrl. It records every call (method, args, token), keeps posted
// messages with their metadata (served back by conversations.history and conversations.replies), opens DMs
// (conversations.open), and injects faults: 429 + Retry-After, 500s, platform errors like invalid_auth.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded Web API call. */
export interface FakeCall {
  method: string;
  args: Record<string, unknown>;
  /** The bearer token sent (tests assert on it; never printed). */
  token?: string;
}

/** A message as the fake stores it. */
export interface FakeMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  edits: number;
}

type Fault =
  | { kind: 'ratelimit'; retryAfter: number }
  | { kind: 'http'; status: number }
  | { kind: 'platform'; error: string }
  | { kind: 'after'; status: number }
  | { kind: 'pass' };

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
  private readonly faults = new Map<string, Fault[]>();
  private seq = 0;

  constructor(private readonly server: Server) {}

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

  /** The next `times` calls of `method` get HTTP 429 with Retry-After: retryAfter seconds. */
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

  /** The next `times` calls of `method` succeed: faults queued after this hit the calls that follow them. */
  pass(method: string, times = 1): void {
    this.push(method, { kind: 'pass' }, times);
  }

  /** Forgets calls, messages, responses, uploads, DMs and pending faults (between tests sharing one server). */
  reset(): void {
    this.calls.length = 0;
    this.messages.length = 0;
    this.completedUploads.length = 0;
    this.responses.clear();
    this.files.clear();
    this.dms.clear();
    this.faults.clear();
  }

  /** Recorded calls of one method. */
  callsOf(method: string): FakeCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Root messages (not replies) in a channel, oldest first. */
  roots(channel?: string): FakeMessage[] {
    return this.messages.filter((m) => (channel === undefined || m.channel === channel) && m.thread_ts === undefined);
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
    this.calls.push({ method, args, ...(token ? { token } : {}) });
    const fault = this.faults.get(method)?.shift();
    if (fault?.kind === 'ratelimit')
      return send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(fault.retryAfter) });
    if (fault?.kind === 'http') return send(res, fault.status, { ok: false, error: 'internal_error' });
    if (fault?.kind === 'platform') return send(res, 200, { ok: false, error: fault.error });
    if (!token) return send(res, 200, { ok: false, error: 'not_authed' });
    const result = this.dispatch(method, args);
    if (fault?.kind === 'after') return send(res, fault.status, { ok: false, error: 'internal_error' });
    return send(res, 200, result);
  }

  private dispatch(method: string, a: Record<string, unknown>): Record<string, unknown> {
    const str = (k: string): string | undefined => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://fake.slack.test/',
          team: 'fake',
          user: 'rwx',
          team_id: 'T0FAKE',
          user_id: 'U0BOT',
          bot_id: 'B0BOT',
        };
      case 'chat.postMessage': {
        const channel = str('channel');
        if (!channel) return { ok: false, error: 'channel_not_found' };
        const ts = this.nextTs();
        const m: FakeMessage = { channel, ts, text: str('text') ?? '', edits: 0 };
        if (str('thread_ts')) m.thread_ts = str('thread_ts');
        if (Array.isArray(a.blocks)) m.blocks = a.blocks;
        if (a.metadata && typeof a.metadata === 'object') m.metadata = a.metadata as FakeMessage['metadata'];
        this.messages.push(m);
        return { ok: true, channel, ts, message: { text: m.text, ts } };
      }
      case 'chat.update': {
        const m = this.messages.find((x) => x.channel === str('channel') && x.ts === str('ts'));
        if (!m) return { ok: false, error: 'message_not_found' };
        m.text = str('text') ?? m.text;
        if (Array.isArray(a.blocks)) m.blocks = a.blocks;
        m.edits++;
        return { ok: true, channel: m.channel, ts: m.ts };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: this.nextTs() };
      case 'conversations.history': {
        const oldest = Number(str('oldest') ?? '0');
        const withMeta = a.include_all_metadata === true || a.include_all_metadata === 'true';
        const list = this.messages
          .filter((m) => m.channel === str('channel') && m.thread_ts === undefined && Number(m.ts) >= oldest)
          .reverse();
        const limit = Number(a.limit ?? 100) || 100;
        const start = Number(str('cursor') ?? '0') || 0;
        const page = list.slice(start, start + limit).map((m) => ({
          type: 'message',
          ts: m.ts,
          text: m.text,
          ...(m.blocks ? { blocks: m.blocks } : {}),
          ...(withMeta && m.metadata ? { metadata: m.metadata } : {}),
        }));
        const more = start + limit < list.length;
        return {
          ok: true,
          messages: page,
          has_more: more,
          response_metadata: { next_cursor: more ? String(start + limit) : '' },
        };
      }
      case 'conversations.replies': {
        // The parent first, then its replies, oldest first (as Slack serves them); thread_not_found when the
        // parent is not there.
        const channel = str('channel');
        const ts = str('ts');
        const parent = this.messages.find((m) => m.channel === channel && m.ts === ts && m.thread_ts === undefined);
        if (!parent) return { ok: false, error: 'thread_not_found' };
        const withMeta = a.include_all_metadata === true || a.include_all_metadata === 'true';
        const list = [parent, ...this.messages.filter((m) => m.channel === channel && m.thread_ts === ts)];
        const limit = Number(a.limit ?? 1000) || 1000;
        const start = Number(str('cursor') ?? '0') || 0;
        const page = list.slice(start, start + limit).map((m) => ({
          type: 'message',
          ts: m.ts,
          thread_ts: ts,
          text: m.text,
          ...(m.blocks ? { blocks: m.blocks } : {}),
          ...(withMeta && m.metadata ? { metadata: m.metadata } : {}),
        }));
        const more = start + limit < list.length;
        return {
          ok: true,
          messages: page,
          has_more: more,
          response_metadata: { next_cursor: more ? String(start + limit) : '' },
        };
      }
      case 'files.getUploadURLExternal': {
        const id = `F${++this.seq}`;
        this.files.set(id, { filename: str('filename') ?? 'file' });
        return { ok: true, upload_url: `${this.origin}/upload/${id}`, file_id: id };
      }
      case 'files.completeUploadExternal':
        this.completedUploads.push(a);
        return { ok: true, files: Array.isArray(a.files) ? a.files : [] };
      case 'usergroups.users.list': {
        const users = this.usergroups[str('usergroup') ?? ''];
        return users ? { ok: true, users } : { ok: false, error: 'no_such_subteam' };
      }
      case 'conversations.open': {
        // One user: their DM with the bot ("D" + the user id's tail, stable across calls); several: a group DM.
        const users = (str('users') ?? '')
          .split(',')
          .map((u) => u.trim())
          .filter(Boolean);
        if (users.length === 0 && !str('channel')) return { ok: false, error: 'users_list_not_supplied' };
        if (users.some((u) => !/^[UW][A-Z0-9]+$/.test(u))) return { ok: false, error: 'user_not_found' };
        const id =
          str('channel') ??
          (users.length === 1 ? `D${users[0]!.slice(1)}` : `G${users.map((u) => u.slice(1)).join('')}`);
        const already = this.dms.has(id);
        this.dms.set(id, users);
        return { ok: true, ...(already ? { already_open: true } : {}), channel: { id } };
      }
      case 'apps.connections.open':
        return { ok: true, url: this.socketModeUrl };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  private nextTs(): string {
    // Real seconds (so `oldest` filters behave), the sequence in the fraction keeps every ts unique and ordered.
    return `${Math.floor(Date.now() / 1000)}.${String(++this.seq).padStart(6, '0')}`;
  }

  private push(method: string, fault: Fault, times: number): void {
    const list = this.faults.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(fault);
    this.faults.set(method, list);
  }
}

/** Starts a fake Slack on 127.0.0.1 with a random port. */
export async function startFakeSlack(): Promise<FakeSlack> {
  const holder: { fake?: FakeSlack } = {};
  const server = createServer((req, res) => {
    holder.fake!.handle(req, res).catch(() => send(res, 500, { ok: false, error: 'fake_crashed' }));
  });
  const fake = new FakeSlack(server);
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
