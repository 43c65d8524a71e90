// Checks on signed HTTP requests from Slack, run before Bolt's receiver sees them. Bolt refuses a timestamp more
// than 5 minutes old but accepts one from the future, and answers a captured request again each time it is
// replayed. This guard refuses both: |now - timestamp| > 5 minutes (either way), and any signature it has already
// accepted within that window (recorded with SET NX EX, so every replica sharing Redis refuses it too).
// https://api.slack.com/authentication/verifying-requests-from-slack
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { verifySlackRequest } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { Clock } from '../domain/clock.js';

/** Slack's tolerance for a request's timestamp, each way. */
export const REQUEST_SKEW_SEC = 5 * 60;
/** Bolt's own body limit, applied here as the guard buffers the body first. */
const BODY_LIMIT = 4 * 1024 * 1024;

/** Remembers accepted requests. `first` is true the first time `key` is offered within `ttlSec`, false after. */
export interface ReplayLedger {
  first(key: string, ttlSec: number): Promise<boolean>;
}

/** The ledger in Redis: one key per accepted request, `SET NX EX` so the first replica to see it wins. */
export function redisReplayLedger(redis: Redis, prefix: string): ReplayLedger {
  return {
    first: async (key, ttlSec) => (await redis.set(`${prefix}:slack-request:${key}`, '1', 'EX', ttlSec, 'NX')) === 'OK',
  };
}

/** A ledger in this process's memory (one replica, tests); entries expire on the clock. */
export function memoryReplayLedger(clock: Clock): ReplayLedger {
  const seen = new Map<string, number>();
  return {
    first: async (key, ttlSec) => {
      const now = clock.now();
      for (const [k, until] of seen) if (until <= now) seen.delete(k);
      if (seen.has(key)) return false;
      seen.set(key, now + ttlSec * 1000);
      return true;
    },
  };
}

/** What the guard needs. */
export interface RequestGuardOptions {
  signingSecret: string;
  ledger: ReplayLedger;
  clock: Clock;
  /** The paths Bolt serves events on (default /slack/events). */
  endpoints?: readonly string[];
  /** One line per refusal (the reason, never the body: it carries response URLs). */
  warn: (msg: string) => void;
}

/** Why a request is refused, or undefined when it may go on to Bolt. Pure apart from the ledger. */
export async function refusal(
  headers: { signature?: string; timestamp?: string },
  body: string,
  o: Pick<RequestGuardOptions, 'signingSecret' | 'ledger' | 'clock'>,
): Promise<string | undefined> {
  const { signature, timestamp } = headers;
  if (!signature || !timestamp) return 'unsigned';
  const ts = Number(timestamp);
  if (!Number.isInteger(ts)) return 'bad timestamp';
  const nowMs = o.clock.now();
  if (Math.abs(nowMs / 1000 - ts) > REQUEST_SKEW_SEC) return 'timestamp more than 5 minutes from now';
  try {
    verifySlackRequest({
      signingSecret: o.signingSecret,
      body,
      headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': ts },
      nowMilliseconds: nowMs,
    });
  } catch {
    return 'bad signature';
  }
  // Only a genuine request is recorded, so a forger cannot block a real one. Both ways of the window: 10 minutes.
  return (await o.ledger.first(`${ts}:${signature}`, 2 * REQUEST_SKEW_SEC)) ? undefined : 'replayed';
}

/**
 * Wraps Bolt's request listener: POSTs to an endpoint are buffered (Bolt reuses the buffer as `rawBody`) and
 * checked; a refusal is answered 401 (503 when the ledger cannot be reached: fail closed, Slack retries). Requests
 * without signature headers (Slack's unsigned ssl_check) and every other path go to Bolt unchanged.
 */
export function guardSlackRequests(next: RequestListener, o: RequestGuardOptions): RequestListener {
  const endpoints = new Set(o.endpoints ?? ['/slack/events']);
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'POST' || !endpoints.has(path)) return next(req, res);
    const signature = header(req, 'x-slack-signature');
    const timestamp = header(req, 'x-slack-request-timestamp');
    if (!signature && !timestamp) return next(req, res);
    void check(req, res, { signature, timestamp }, next, o);
  };
}

async function check(
  req: IncomingMessage,
  res: ServerResponse,
  headers: { signature?: string; timestamp?: string },
  next: RequestListener,
  o: RequestGuardOptions,
): Promise<void> {
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch {
    return answer(res, 413);
  }
  let why: string | undefined;
  try {
    why = await refusal(headers, body.toString('utf8'), o);
  } catch (e) {
    o.warn(`slack request refused: replay ledger unreachable (${e instanceof Error ? e.message : String(e)})`);
    return answer(res, 503);
  }
  if (why) {
    o.warn(`slack request refused: ${why}`);
    return answer(res, 401);
  }
  (req as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
  next(req, res);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

function answer(res: ServerResponse, status: number): void {
  res.writeHead(status);
  res.end();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
