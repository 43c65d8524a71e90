// Relative times in scenarios: a timestamp field written "-24m", "-3h1m", "+5s" or "now" means that long before
// or after the moment it is applied (the simulator's start for objects, the step's time for timeline changes).
import { parseDuration } from './duration.js';

/** Timestamp fields the API serialises with microseconds (metav1.MicroTime). */
const MICRO = new Set(['eventTime', 'renewTime', 'acquireTime', 'lastObservedTime']);
const TIME_KEY = /(Time|Timestamp|At)$|^time$/;
const RELATIVE = /^(now|[-+]?(\d+(\.\d+)?(ms|s|m|h|d))+|0)$/;

/** RFC 3339 as the API server writes it: seconds precision, or microseconds for MicroTime fields. */
export function formatTime(ms: number, micro = false): string {
  const iso = new Date(ms).toISOString();
  return micro ? iso.replace(/\.(\d{3})Z$/, '.$1000Z') : iso.replace(/\.\d{3}Z$/, 'Z');
}

/** Converts one value if it is a relative time ("-24m", "now"); other values pass through unchanged. */
export function resolveTime(value: unknown, base: number, key: string): unknown {
  if (typeof value !== 'string' || !RELATIVE.test(value.trim())) return value;
  const v = value.trim();
  const offset = v === 'now' || v === '0' ? 0 : parseDuration(v.replace(/^\+/, ''), key);
  return formatTime(base + offset, MICRO.has(key));
}

/** Resolves relative times in every timestamp-named field (…Time, …Timestamp, …At) of a tree, in place. */
export function resolveTimes(node: unknown, base: number): void {
  if (Array.isArray(node)) {
    for (const item of node) resolveTimes(item, base);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const rec = node as Record<string, unknown>;
  for (const [k, v] of Object.entries(rec)) {
    if (TIME_KEY.test(k)) rec[k] = resolveTime(v, base, k);
    else resolveTimes(v, base);
  }
}
