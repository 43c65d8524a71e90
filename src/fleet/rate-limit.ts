// Slack's per-channel posting rate (about one message per second per channel), kept by the whole fleet together:
// every cluster posting into a channel takes a turn from one limiter in the shared Redis before chat.postMessage.
// A turn is taken at the moment of sending (Redis TIME, so the machines' clocks do not matter): the script grants
// it when the channel's last post is at least `intervalMs` old, else says how long to wait. A caller that would
// wait longer than `maxWaitMs` gets SLACK_RATE_LIMITED instead, with the wait as Retry-After, and the notifier
// moves its job to delayed (as for Slack's own 429), so no worker sits idle behind a long queue of posts.
import type { Redis } from 'ioredis';
import { RwxError } from '../errors.js';
import type { SlackApi } from '../slack/api.js';
import { withPost } from '../slack/with-post.js';

/** Spacing of posts per channel: a little over Slack's one per second, for the time from Redis to Slack. */
export const CHANNEL_INTERVAL_MS = 1100;
/** Longest wait in place for a turn; beyond it the post is handed back to the queue as rate limited. */
export const MAX_WAIT_MS = 10_000;

// KEYS[1] the channel's key; ARGV[1] interval ms. Returns 0 when granted (and records the post), else the wait.
const TAKE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
local interval = tonumber(ARGV[1])
if now - last >= interval then
  redis.call('SET', KEYS[1], now, 'PX', interval * 2)
  return 0
end
return interval - (now - last)`;

/** A per-channel limiter in Redis. */
export interface ChannelLimiter {
  /** Resolves when this process may post into `channel`; throws SLACK_RATE_LIMITED beyond the longest wait. */
  take(channel: string): Promise<void>;
}

/** The limiter over `redis`; `keyOf(channel)` names the channel's key (FleetKeys.rate). */
export function redisChannelLimiter(
  redis: Redis,
  keyOf: (channel: string) => string,
  o: { intervalMs?: number; maxWaitMs?: number; onWait?: (channel: string, ms: number) => void } = {},
): ChannelLimiter {
  const interval = o.intervalMs ?? CHANNEL_INTERVAL_MS;
  const maxWait = o.maxWaitMs ?? MAX_WAIT_MS;
  return {
    async take(channel) {
      const started = Date.now();
      for (;;) {
        const wait = Number(await redis.eval(TAKE, 1, keyOf(channel), interval));
        if (wait <= 0) return;
        const waited = Date.now() - started;
        if (waited + wait > maxWait) {
          throw new RwxError('SLACK_RATE_LIMITED', `chat.postMessage: channel ${channel} is busy (fleet limiter)`, {
            retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
          });
        }
        o.onWait?.(channel, wait);
        // A little jitter, so posters waiting for the same turn do not all ask at the same instant.
        await new Promise((r) => setTimeout(r, wait + Math.floor(Math.random() * 20)));
      }
    },
  };
}

/** `slack` with every chat.postMessage taking its channel's turn first. */
export function rateLimitedSlack(slack: SlackApi, limiter: ChannelLimiter): SlackApi {
  return withPost(slack, async (args) => {
    await limiter.take(args.channel);
    return slack.postMessage(args);
  });
}
