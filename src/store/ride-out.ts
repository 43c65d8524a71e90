// How every BullMQ queue and worker of ours (and the incident lock) rides a Redis outage out: the same retry period, and the same
// silence about the outage itself (the bot's own connection logs it once and readiness names it, see
// src/serve/redis.ts), so a 20 s outage is two log lines, not hundreds.

/**
 * How long a worker waits before fetching again after a connection error. BullMQ's default (runRetryDelay, 15 s)
 * is slept in full even when Redis is back a moment later, so work resumed up to 15 s after Redis answered; one
 * second keeps that within the 10 s the bot promises, at one failed fetch a second while Redis is away.
 */
export const WORKER_RETRY_MS = 1000;

/** The options to spread into every `new Worker(...)` (with its own connection, prefix and concurrency). */
export const workerOptions = { runRetryDelay: WORKER_RETRY_MS } as const;

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
