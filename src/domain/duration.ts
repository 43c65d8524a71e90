// Durations as people write them ("30s", "5m", "4h", "1h30m", "-3h1m", "250ms") and as the bot prints them.
import { RwxError } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(-)?((?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+)$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Parses a duration to milliseconds; throws RwxError('USAGE') naming `what` on malformed input. */
export function parseDuration(text: string, what = 'duration'): number {
  const m = DURATION.exec(text.trim());
  if (!m) throw new RwxError('USAGE', `${what}: "${text}" is not a duration (expected e.g. 30s, 5m, 4h, 1h30m)`);
  let total = 0;
  for (const p of (m[2] ?? '').matchAll(PART)) total += Number(p[1]) * (UNIT_MS[p[2] ?? ''] ?? 0);
  return m[1] ? -total : total;
}

/** Formats milliseconds like kubectl's AGE column: 45s, 12m, 3h1m, 26d. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  return `${Math.floor(h / 24)}d`;
}
