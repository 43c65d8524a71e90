// Redis for the pipeline: one ioredis connection (one server, Sentinel or Cluster: redis-topology.ts) checked at
// start (a clear one-line error when nothing answers, rather than ioredis retrying forever) and a readiness probe.
import type { Redis } from 'ioredis';
import { maskUrl } from '../config/mask.js';
import { describeRedis, type RedisConfig } from '../config/redis-target.js';
import { RwxError } from '../errors.js';
import { redisClient } from './redis-topology.js';

/** How connectRedis connects, and what its error tells the reader to do. */
export interface ConnectOptions {
  /** How long the connection and a PING may take (default 3 s). */
  timeoutMs?: number;
  /** REDIS_PASSWORD: used when the URL carries none. */
  password?: string;
  /** The way out when nothing answers, for this caller's reader (default: start one, or set REDIS_URL). */
  fix?: string;
}

/**
 * Connects to `target` (a URL, or Config.redis for any topology) and PINGs within the timeout; throws RwxError
 * REDIS_UNREACHABLE naming where (the masked URL, or the topology and its seeds) and the fix.
 */
export async function connectRedis(target: string | RedisConfig, o: ConnectOptions = {}): Promise<Redis> {
  const { timeoutMs = 3000, password, fix = 'start one (redis-server) or set REDIS_URL' } = o;
  const r: RedisConfig =
    typeof target === 'string' ? { url: target, prefix: '', ...(password ? { password } : {}) } : target;
  const where = describeRedis(r, maskUrl);
  let redis: Redis;
  try {
    redis = redisClient(r, timeoutMs);
  } catch (e) {
    throw new RwxError('CONFIG', `REDIS_URL ${where} is not a Redis URL`, { cause: e });
  }
  // Errors surface through connect()/ping below; an unhandled 'error' event would crash the process.
  let lastError: unknown;
  redis.on('error', (e) => (lastError = e));
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      redis.connect().then(() => redis.ping()),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)),
      ),
    ]);
  } catch (e) {
    redis.disconnect();
    // ioredis rejects with "Connection is closed."; the socket's own error (ECONNREFUSED...) says why.
    const cause = lastError ?? e;
    const why =
      (cause as { code?: string }).code ?? (cause instanceof Error ? cause.message.split('\n')[0] : String(cause));
    // It answered, but wants a (different) password: say so, rather than "no Redis answers".
    const auth = /NOAUTH|WRONGPASS|invalid password/i.test(why ?? '');
    const text = auth
      ? `Redis at ${where} refused to authenticate (${why}); set REDIS_PASSWORD (and REDIS_USERNAME) or the password in REDIS_URL`
      : `no Redis answers at ${where} (${why}); ${fix}`;
    throw new RwxError('REDIS_UNREACHABLE', text, { cause: e });
  } finally {
    clearTimeout(timer);
  }
  return redis;
}

/** A readiness probe: PING answered within the readiness deadline. */
export function redisProbe(redis: Redis): () => Promise<true | string> {
  return async () => {
    try {
      return (await redis.ping()) === 'PONG' ? true : 'unexpected PING answer';
    } catch (e) {
      return `unreachable (${(e as { code?: string }).code ?? (e instanceof Error ? e.message : String(e))})`;
    }
  };
}

/**
 * Logs the connection going down once and coming back once (with how long it was away), and tells `up` each
 * change. The bot rides an outage out: ioredis reconnects on its own, liveness stays 200 and readiness names Redis.
 */
export function watchRedisLink(
  redis: Redis,
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void },
  up: (isUp: boolean) => void,
  now: () => number = Date.now,
): void {
  let downSince: number | undefined;
  let lastError: string | undefined;
  redis.on('error', (e: { code?: string; message?: string }) => (lastError = e.code ?? e.message));
  // 'reconnecting', not 'close': a connection closed on purpose (quit, disconnect at shutdown) closes too, but
  // only a lost one is retried. It comes before the error that explains it; the reason is logged on the way back.
  redis.on('reconnecting', () => {
    if (downSince !== undefined) return;
    downSince = now();
    up(false);
    log.warn({}, 'redis connection lost: riding it out (readiness names Redis until it answers)');
  });
  redis.on('ready', () => {
    if (downSince === undefined) return;
    log.info({ downMs: now() - downSince, ...(lastError ? { err: lastError } : {}) }, 'redis connection back');
    downSince = undefined;
    up(true);
  });
}
