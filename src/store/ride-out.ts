// How every BullMQ queue and worker of ours (and the incident lock) rides a Redis outage out: the same retry period, and the same
// silence about the outage itself (the bot's own connection logs it once and readiness names it, see
// src/serve/redis.ts), so a 20 s outage is two log lines, not hundreds.

/**
 * How long a worker waits before fetching again after a connection error. BullMQ's default (runRetryDelay, 15 s)
 * is slept in full even when Redis is back a moment later, so work resumed up to 15 s after Redis answered; one
 * second keeps that within the 10 s the bot promises, at one failed fetch a second while Redis is away.
 */
export const WORKER_RETRY_MS = 1000;

/**
 * How often BullMQ looks for active jobs whose lock expired (its default: 30 s). A job in flight when Redis goes
 * away for longer than the job lock (the notifier's: RWX_LOCK_TTL, 30 s; the others': BullMQ's 30 s) comes back with its lock gone: its worker can no longer move it ("Missing
 * lock"), so it stays active, and every change to its incident behind it, until the sweep moves it back to wait,
 * which takes two sweeps (one marks, the next moves): up to a minute after Redis answers at the default, within 6 s
 * at 3 s. A stall is still a lock that expired (lockDuration), so a busy worker is not taken for a dead
 * one any sooner; the sweep is one small script per interval and queue (a key shares it among the replicas).
 */
export const STALLED_CHECK_MS = 3000;

/** The options to spread into every `new Worker(...)` (with its own connection, prefix and concurrency). */
export const workerOptions = { runRetryDelay: WORKER_RETRY_MS, stalledInterval: STALLED_CHECK_MS } as const;

/**
 * workerOptions for a queue whose jobs may run again without harm (the notifier's: every step is under the incident
 * lock and looks its post up in Slack before posting again). BullMQ fails a job that stalled more than
 * maxStalledCount times (default 1), and for such a job a stall is only ever a crash or a Redis outage longer than
 * the lock: two of them would drop the incident's work until its next change. A job that kills its process every
 * time would run again after each restart; that shows in restarts and logs, where a failed job would be silent.
 */
export const idempotentWorkerOptions = { ...workerOptions, maxStalledCount: Number.MAX_SAFE_INTEGER } as const;

// Socket error codes of a Redis that does not answer (refused, reset, timed out, unreachable, not resolved).
const DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Whether a queue's or worker's 'error' event only says Redis does not answer (nothing to log per event). */
export function redisDown(e: unknown): boolean {
  const err = e as { code?: unknown; name?: unknown } | undefined;
  return (
    (typeof err?.code === 'string' && DOWN_CODES.has(err.code)) ||
    err?.name === 'MaxRetriesPerRequestError' ||
    err?.name === 'ConnectionClosedError'
  );
}
