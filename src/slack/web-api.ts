// SlackApi over @slack/web-api's WebClient. The WebClient's own retry loop is off: retrying belongs to the queue
// boundary, which delays a job by Retry-After instead of holding a worker. Tokens never reach a log line: errors
// carry the Slack error code and method only.
// Through Bolt's re-export: @slack/web-api is Bolt's dependency, not ours, so the versions always match.
import { webApi } from '@slack/bolt';
import { defaultMs } from '../config/defaults.js';
import { RwxError, isRwxError } from '../errors.js';
import type { EphemeralArgs, PostMessageArgs, SlackApi, UpdateArgs, UploadArgs } from './api.js';
import { isIncidentReply, isIncidentRoot } from './api.js';

/** Options of the WebClient adapter. */
export interface WebSlackOptions {
  token: string;
  /** Web API base URL (SLACK_API_URL), e.g. a fake's http://127.0.0.1:PORT/api/. Default Slack's. */
  slackApiUrl?: string;
  /** How many history pages findRootByIncidentKey reads at most (200 messages each). Default 5. */
  historyPages?: number;
  /**
   * How many pages of a thread findThreadReply reads at most (200 replies each), oldest first as Slack serves
   * them; a reply beyond them is not found (and so posted again). Default 5: an incident thread gets a reply per
   * change at most every group_interval, far fewer than 1000.
   */
  threadPages?: number;
  /**
   * How long one call may take before it fails, retryably (RWX_SLACK_REQUEST_TIMEOUT; default its default, 10 s).
   * Shorter than the incident lock's TTL, which is not renewed during a call (checked when the config is loaded).
   */
  requestTimeoutMs?: number;
  /** Extra WebClient options (the SDK's logger, a fetch). */
  clientOptions?: Omit<webApi.WebClientOptions, 'slackApiUrl' | 'retryConfig' | 'rejectRateLimitedCalls' | 'timeout'>;
}

// Platform errors that mean "Slack had a problem, try again"; every other error code is the caller's fault.
const RETRYABLE_PLATFORM = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
]);

// Platform errors that mean "the bot cannot use this channel": nothing is wrong with Slack or the call, and only
// someone inviting the bot (or fixing the channel) changes the answer.
const CHANNEL_REFUSED = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);

/**
 * Maps anything a WebClient call threw to RwxError (SLACK_RATE_LIMITED, NOT_FOUND, SLACK_CHANNEL or SLACK_API)
 * naming the method, and for SLACK_CHANNEL the channel (`channel`, the call's).
 */
export function mapSlackError(method: string, e: unknown, channel?: string): RwxError {
  if (e instanceof RwxError) return e;
  const err = e as { code?: string; retryAfter?: number; statusCode?: number; data?: { error?: string } };
  switch (err?.code) {
    case 'slack_webapi_rate_limited_error':
      return new RwxError('SLACK_RATE_LIMITED', `${method}: rate limited, retry after ${err.retryAfter ?? 1}s`, {
        cause: e,
        retryAfterSeconds: err.retryAfter ?? 1,
      });
    case 'slack_webapi_platform_error': {
      const code = err.data?.error ?? 'unknown_error';
      // The message we edit or the thread we read is gone (someone deleted the root): NOT_FOUND lets the notifier
      // post a fresh one.
      if (code === 'message_not_found' || code === 'thread_not_found')
        return new RwxError('NOT_FOUND', `${method}: ${code}`, { cause: e, retryable: false });
      if (CHANNEL_REFUSED.has(code))
        return new RwxError('SLACK_CHANNEL', `${method}: ${code}${channel ? ` (channel ${channel})` : ''}`, {
          cause: e,
        });
      return new RwxError('SLACK_API', `${method}: ${code}`, { cause: e, retryable: RETRYABLE_PLATFORM.has(code) });
    }
    case 'slack_webapi_http_error': {
      const status = err.statusCode ?? 0;
      return new RwxError('SLACK_API', `${method}: HTTP ${status}`, {
        cause: e,
        retryable: status >= 500 || status === 408,
      });
    }
    case 'slack_webapi_request_error':
      return new RwxError('SLACK_API', `${method}: request failed (${(e as Error).message.split('\n')[0]})`, {
        cause: e,
        retryable: true,
      });
    default:
      return new RwxError('SLACK_API', `${method}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, {
        cause: e,
        retryable: false,
      });
  }
}

/** Builds the WebClient-backed SlackApi. */
export function createWebSlackApi(opts: WebSlackOptions): SlackApi {
  const call = slackCall(webClient(opts));
  const pages = opts.historyPages ?? 5;
  const threadPages = opts.threadPages ?? 5;
  return {
    postMessage: (a) => postMessage(call, a),
    async update(a: UpdateArgs) {
      await call('chat.update', { channel: a.channel, ts: a.ts, text: a.text, blocks: a.blocks });
    },
    async postEphemeral(a: EphemeralArgs) {
      await call('chat.postEphemeral', {
        channel: a.channel,
        user: a.user,
        text: a.text,
        blocks: a.blocks,
        thread_ts: a.threadTs,
      });
    },
    findRootByIncidentKey: (channel, key, sinceMs) => findRoot(call, pages, channel, key, sinceMs),
    findThreadReply: (channel, threadTs, key, replyId) =>
      findReply(call, threadPages, { channel, threadTs, key, replyId }),
    permalink: (channel, ts) => permalink(call, channel, ts),
    uploadFile: (a) => uploadFile(call, a),
  };
}

/** One Web API method called with its arguments; a failure is thrown as mapSlackError's RwxError. */
type Call = <T>(method: string, args: Record<string, unknown>) => Promise<T>;

/** The WebClient: a per-request deadline, its own retries off and rate-limited calls rejected (see the header). */
function webClient(opts: WebSlackOptions): webApi.WebClient {
  return new webApi.WebClient(opts.token, {
    ...opts.clientOptions,
    // A call Slack never answers fails (retryably) instead of holding the incident's lock and the job forever;
    // what it may have posted is looked up by its metadata before the retry posts (src/notify/steps).
    timeout: opts.requestTimeoutMs ?? defaultMs('slackRequestTimeout'),
    ...(opts.slackApiUrl ? { slackApiUrl: opts.slackApiUrl } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
}

/** Calls through `client`, mapping every failure (naming the call's channel when it has one). */
function slackCall(client: webApi.WebClient): Call {
  return async <T>(method: string, args: Record<string, unknown>): Promise<T> => {
    try {
      return (await client.apiCall(method, args)) as T;
    } catch (e) {
      throw mapSlackError(method, e, typeof args.channel === 'string' ? args.channel : undefined);
    }
  };
}

/** chat.postMessage without link unfurling; reply_broadcast only for a thread reply that asks for it. */
async function postMessage(call: Call, a: PostMessageArgs): Promise<{ ts: string; channel: string }> {
  const res = await call<{ ts?: string; channel?: string }>('chat.postMessage', {
    channel: a.channel,
    text: a.text,
    blocks: a.blocks,
    thread_ts: a.threadTs,
    metadata: a.metadata,
    unfurl_links: false,
    ...(a.threadTs && a.replyBroadcast ? { reply_broadcast: true } : {}),
  });
  if (!res.ts) throw new RwxError('SLACK_API', 'chat.postMessage: response has no ts', { retryable: false });
  return { ts: res.ts, channel: res.channel ?? a.channel };
}

/** A message as conversations.history and conversations.replies return it (the fields read here). */
interface PagedMessage {
  ts?: string;
  thread_ts?: string;
  metadata?: unknown;
}

/**
 * The messages of a cursor-paginated `method`, one page (200 messages) at a time, each asked for only once the
 * one before is read, until a page has no next cursor or `maxPages` were read.
 */
async function* messagePages(
  call: Call,
  method: string,
  args: Record<string, unknown>,
  maxPages: number,
): AsyncGenerator<PagedMessage[]> {
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const res = await call<{ messages?: PagedMessage[]; response_metadata?: { next_cursor?: string } }>(method, {
      ...args,
      include_all_metadata: true,
      limit: 200,
      cursor,
    });
    yield res.messages ?? [];
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!cursor) return;
  }
}

/** The ts of incident `key`'s root among the channel's newest `maxPages` pages (since `sinceMs` when given). */
async function findRoot(
  call: Call,
  maxPages: number,
  channel: string,
  key: string,
  sinceMs?: number,
): Promise<string | undefined> {
  const since = sinceMs !== undefined ? { oldest: (sinceMs / 1000).toFixed(6) } : {};
  for await (const messages of messagePages(call, 'conversations.history', { channel, ...since }, maxPages)) {
    const hit = messages.find((m) => m.ts && (!m.thread_ts || m.thread_ts === m.ts) && isIncidentRoot(m.metadata, key));
    if (hit?.ts) return hit.ts;
  }
  return undefined;
}

/** The ts of the newest reply `replyId` of incident `key` in the thread's first `maxPages` pages (none: no thread). */
async function findReply(
  call: Call,
  maxPages: number,
  t: { channel: string; threadTs: string; key: string; replyId: string },
): Promise<string | undefined> {
  let found: string | undefined;
  try {
    const args = { channel: t.channel, ts: t.threadTs };
    for await (const messages of messagePages(call, 'conversations.replies', args, maxPages))
      // Pages run oldest to newest: the last match read is the newest.
      for (const m of messages)
        if (m.ts && m.ts !== t.threadTs && isIncidentReply(m.metadata, t.key, t.replyId)) found = m.ts;
  } catch (e) {
    if (isRwxError(e, 'NOT_FOUND')) return undefined; // no thread, so no reply in it
    throw e;
  }
  return found;
}

/** chat.getPermalink's link of message `ts`. */
async function permalink(call: Call, channel: string, ts: string): Promise<string> {
  const res = await call<{ permalink?: unknown }>('chat.getPermalink', { channel, message_ts: ts });
  if (typeof res.permalink !== 'string' || !res.permalink)
    throw new RwxError('SLACK_API', 'chat.getPermalink: response has no permalink', { retryable: false });
  return res.permalink;
}

/** files.getUploadURLExternal, the upload itself (a plain POST), then files.completeUploadExternal. */
async function uploadFile(call: Call, a: UploadArgs): Promise<{ fileId: string }> {
  const bytes = typeof a.content === 'string' ? Buffer.from(a.content, 'utf8') : Buffer.from(a.content);
  const target = await call<{ upload_url?: string; file_id?: string }>('files.getUploadURLExternal', {
    filename: a.filename,
    length: bytes.length,
  });
  if (!target.upload_url || !target.file_id)
    throw new RwxError('SLACK_API', 'files.getUploadURLExternal: no upload_url', { retryable: false });
  let res: Response;
  try {
    res = await fetch(target.upload_url, { method: 'POST', body: bytes });
  } catch (e) {
    throw new RwxError('SLACK_API', `file upload: request failed`, { cause: e, retryable: true });
  }
  if (!res.ok) throw new RwxError('SLACK_API', `file upload: HTTP ${res.status}`, { retryable: res.status >= 500 });
  await call('files.completeUploadExternal', {
    files: [{ id: target.file_id, title: a.title ?? a.filename }],
    channel_id: a.channel,
    thread_ts: a.threadTs,
    initial_comment: a.initialComment,
  });
  return { fileId: target.file_id };
}
