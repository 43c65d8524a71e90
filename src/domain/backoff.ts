// The one retry rule of the bot's own loops: the watch's list and watch retries (src/watch/reflector.ts), the notify
// worker's retryable failures (src/notify/worker.ts) and the Slack connection loop (src/slack/link.ts). BullMQ's job
// backoff (queue options) stays BullMQ's. A pure function of the failure count, so its table test states the rule.

/** A capped exponential backoff: `initialMs` after the first failure, doubling with each next one, at most `maxMs`. */
export interface Backoff {
  /** The wait after the first failure. */
  initialMs: number;
  /** The longest wait: after an outage of any length, the next attempt comes within this long of the service answering. */
  maxMs: number;
}

/** The first wait of every backoff (the cap is the configuration's RWX_RETRY_MAX). */
export const BACKOFF_INITIAL_MS = 500;

/**
 * The wait before the next attempt after `failures` consecutive failures (1 = the first): initialMs doubled
 * failures-1 times, at most maxMs; 0 before any failure. Never NaN or Infinity, however long the outage.
 */
export function backoffDelay(policy: Backoff, failures: number): number {
  if (!(failures >= 1)) return 0;
  return Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(Math.floor(failures) - 1, 30));
}
