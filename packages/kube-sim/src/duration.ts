// Durations as scenarios write them ("30s", "5m", "-3h1m", "250ms", "26d"), and ages as the API server prints them
// in Table cells (apimachinery's HumanDuration: "45s", "5m30s", "3h1m", "26d", "2y3d").
import { SimError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(-)?((?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+)$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Milliseconds of a duration; throws SimError('SCENARIO') naming `what` when malformed. */
export function parseDuration(text: string, what = 'duration'): number {
  const m = DURATION.exec(text.trim());
  if (!m) throw new SimError('SCENARIO', `${what}: "${text}" is not a duration (expected e.g. 30s, 5m, 4h, 1h30m)`);
  let total = 0;
  for (const p of (m[2] ?? '').matchAll(PART)) total += Number(p[1]) * (UNIT_MS[p[2] ?? ''] ?? 0);
  return m[1] ? -total : total;
}

const unit = (n: number, u: string, rest = 0, ru = ''): string => (rest ? `${n}${u}${rest}${ru}` : `${n}${u}`);

/** An age the way the API server's printers write it (k8s.io/apimachinery/pkg/util/duration.HumanDuration). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return unit(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return unit(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return unit(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return unit(years, 'y', days % 365, 'd');
  return `${years}y`;
}
