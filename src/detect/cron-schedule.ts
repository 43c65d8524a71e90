// Kubernetes CronJob schedules on top of cron-parser 5: standard five-field cron, the @-descriptors Kubernetes
// accepts (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly), the legacy "TZ=" / "CRON_TZ="
// prefix, and spec.timeZone. Six-field (seconds) expressions are rejected, as Kubernetes does.
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { RwxError } from '../errors.js';

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/**
 * Most scheduled times walked back for one CronJob; beyond it `missedRuns` is a lower bound. 100 is the limit the
 * CronJob controller itself uses ("too many missed start times"), and cron-parser's prev() costs milliseconds.
 */
export const MAX_SCHEDULE_STEPS = 100;

/** Parses a CronJob schedule anchored at `fromMs`; throws RwxError('INPUT') with a one-line reason when invalid. */
export function parseSchedule(schedule: string, timeZone: string | undefined, fromMs: number): CronExpression {
  let expr = schedule.trim();
  let tz = timeZone;
  const prefix = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/.exec(expr);
  if (prefix) {
    tz = tz ?? prefix[1];
    expr = prefix[2] ?? '';
  }
  expr = DESCRIPTORS[expr.toLowerCase()] ?? expr;
  if (expr.split(/\s+/).length !== 5)
    throw new RwxError('INPUT', `schedule "${schedule}" is not a five-field cron expression`);
  try {
    const parsed = CronExpressionParser.parse(expr, { currentDate: new Date(fromMs), ...(tz ? { tz } : {}) });
    // cron-parser only notices a bad time zone when it computes a date: force that here.
    parsed.prev();
    parsed.reset(new Date(fromMs));
    return parsed;
  } catch (e) {
    throw new RwxError(
      'INPUT',
      `schedule "${schedule}"${tz ? ` in ${tz}` : ''}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/**
 * Scheduled times after `afterMs` and at or before `untilMs`, newest first (at most MAX_SCHEDULE_STEPS).
 * Throws RwxError('INPUT') for a schedule Kubernetes would not accept.
 */
export function scheduledTimes(
  schedule: string,
  timeZone: string | undefined,
  afterMs: number,
  untilMs: number,
): number[] {
  // prev() is strictly before the current date; +1ms makes a run scheduled exactly at untilMs count.
  const it = parseSchedule(schedule, timeZone, untilMs + 1);
  const out: number[] = [];
  while (out.length < MAX_SCHEDULE_STEPS) {
    const t = it.prev().getTime();
    if (t <= afterMs) break;
    out.push(t);
  }
  return out;
}
