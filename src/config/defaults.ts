// The configuration's default durations in milliseconds, read from the key table (keys.ts), for the parts that run
// without a loaded Config (the demo, in-process tests, the CLI): every default is written once, in DEFAULT_CONFIG.
import { BACKOFF_INITIAL_MS, type Backoff } from '../domain/backoff.js';
import { parseDuration } from '../domain/duration.js';
import { DEFAULT_CONFIG } from './keys.js';

/** The default of a key whose default is a duration, in milliseconds; throws (USAGE, naming the key) for any other. */
export function defaultMs(key: keyof typeof DEFAULT_CONFIG): number {
  return parseDuration(String(DEFAULT_CONFIG[key]), key);
}

/** The backoff every retry loop uses unless configured otherwise: from 0.5 s, doubling, capped at RWX_RETRY_MAX. */
export const DEFAULT_BACKOFF: Readonly<Backoff> = Object.freeze({
  initialMs: BACKOFF_INITIAL_MS,
  maxMs: defaultMs('retryMax'),
});

/** The backoff with RWX_RETRY_MAX as configured. */
export function backoffUpTo(maxMs: number): Backoff {
  return { initialMs: BACKOFF_INITIAL_MS, maxMs };
}
