// Detector: CronJobs whose scheduled runs did not complete (NOW = 2026-11-30T09:15Z).
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { CronJob } from '../../src/domain/objects.js';
import { detectContext } from '../../src/detect/config.js';
import { cronJobMissedFinding } from '../../src/detect/cronjob-missed.js';
import { scheduledTimes } from '../../src/detect/cron-schedule.js';
import { ago, cronJob, cronJobJob, DAY, failedCronJobJob, MIN, NOW, pod, snapshotOf } from './builders.js';

const ctx = detectContext(NOW);

function missed(cj: CronJob, objects: { kind?: string }[] = [], now = NOW) {
  const idx = ClusterIndex.fromSnapshot(snapshotOf([cj, ...objects]));
  const f = cronJobMissedFinding(idx, cj, { ...ctx, now });
  return f ? { missedRuns: f.missedRuns, latestScheduled: f.latestScheduled } : undefined;
}

describe('cronJobMissedFinding', () => {
  it.each<[string, CronJob, { missedRuns: number; latestScheduled: string } | undefined]>([
    // the nightly backup: daily at 02:00, last success three nights ago: two nights missed
    [
      'two nights',
      cronJob('d', 'b', '0 2 * * *', { lastSuccess: '2026-11-28T02:20:00Z' }),
      { missedRuns: 2, latestScheduled: '2026-11-30T02:00:00.000Z' },
    ],
    // succeeded this morning
    ['ran', cronJob('d', 'b', '0 2 * * *', { lastSuccess: '2026-11-30T02:31:00Z' }), undefined],
    // suspended: not our business
    ['suspended', cronJob('d', 'b', '0 2 * * *', { lastSuccess: '2026-11-20T02:20:00Z', suspend: true }), undefined],
    // @daily descriptor (midnight UTC), last success two days ago
    [
      '@daily',
      cronJob('d', 'b', '@daily', { lastSuccess: '2026-11-28T00:05:00Z' }),
      { missedRuns: 2, latestScheduled: '2026-11-30T00:00:00.000Z' },
    ],
    // @midnight is Kubernetes-only: mapped to @daily
    [
      '@midnight',
      cronJob('d', 'b', '@midnight', { lastSuccess: '2026-11-29T00:05:00Z' }),
      { missedRuns: 1, latestScheduled: '2026-11-30T00:00:00.000Z' },
    ],
    // spec.timeZone: 02:00 in Berlin is 01:00Z in winter
    [
      'timeZone',
      cronJob('d', 'b', '0 2 * * *', { lastSuccess: '2026-11-29T01:10:00Z', tz: 'Europe/Berlin' }),
      { missedRuns: 1, latestScheduled: '2026-11-30T01:00:00.000Z' },
    ],
    // legacy TZ= prefix
    [
      'TZ= prefix',
      cronJob('d', 'b', 'TZ=Europe/Berlin 0 2 * * *', { lastSuccess: '2026-11-29T01:10:00Z' }),
      { missedRuns: 1, latestScheduled: '2026-11-30T01:00:00.000Z' },
    ],
    // never succeeded: counted from creation (three days ago at 09:15: 3 runs)
    [
      'never',
      cronJob('d', 'b', '0 2 * * *', { created: ago(3 * DAY) }),
      { missedRuns: 3, latestScheduled: '2026-11-30T02:00:00.000Z' },
    ],
    // hourly at :10; the 09:10 run is within the 10m grace, 08:10 is not
    [
      'grace',
      cronJob('d', 'b', '10 * * * *', { lastSuccess: '2026-11-30T07:20:00Z' }),
      { missedRuns: 1, latestScheduled: '2026-11-30T09:10:00.000Z' },
    ],
    // startingDeadlineSeconds 60 replaces the 10m grace: 09:10 counts too
    [
      'deadline',
      cronJob('d', 'b', '10 * * * *', { lastSuccess: '2026-11-30T07:20:00Z', deadline: 60 }),
      { missedRuns: 2, latestScheduled: '2026-11-30T09:10:00.000Z' },
    ],
    // six fields (seconds) are not a Kubernetes schedule: no finding rather than a guess
    ['six fields', cronJob('d', 'b', '0 0 2 * * *', { lastSuccess: '2026-11-20T02:20:00Z' }), undefined],
    // a time zone that does not exist
    ['bad tz', cronJob('d', 'b', '0 2 * * *', { lastSuccess: '2026-11-20T02:20:00Z', tz: 'Mars/Olympus' }), undefined],
  ])('%s', (_name, cj, want) => {
    expect(missed(cj)).toEqual(want);
  });

  it('a newer completed Job overrides a stale lastSuccessfulTime', () => {
    const cj = cronJob('d', 'b', '0 2 * * *', { lastSuccess: '2026-11-20T02:20:00Z' });
    const done = cronJobJob(cj, '2026-11-30T02:00:00Z', { succeeded: 1, completed: '2026-11-30T02:40:00Z' });
    expect(missed(cj, [done])).toBeUndefined();
  });

  it('a run in progress (active Job, pods Running) is not missed', () => {
    const cj = cronJob('d', 'b', '0 * * * *', { lastSuccess: '2026-11-30T08:30:00Z' });
    const job = cronJobJob(cj, '2026-11-30T09:00:00Z', { active: 1 });
    const p = pod('b-run', {
      ns: 'd',
      node: 'n1',
      scheduled: ago(14 * MIN),
      started: ago(14 * MIN),
      owner: { kind: 'Job', name: job.metadata!.name!, uid: job.metadata!.uid! },
    });
    expect(missed(cj, [job, p], NOW + 5 * MIN)).toBeUndefined();
  });

  // The Job controller's Failed condition (pkg/controller/job/job_controller.go: reason BackoffLimitExceeded,
  // "Job has reached the specified backoff limit"): the runs that failed are missed, and say what they failed with.
  it('Jobs that fail every night are missed, with what they failed with', () => {
    const cj = cronJob('d', 'b', '0 * * * *', { lastSuccess: '2026-11-30T06:30:00Z' });
    const [failed, p] = failedCronJobJob(
      cj,
      '2026-11-30T08:00:00Z',
      'BackoffLimitExceeded',
      'Job has reached the specified backoff limit',
      'b-run',
    );
    const f = cronJobMissedFinding(ClusterIndex.fromSnapshot(snapshotOf([cj, failed, p])), cj, ctx);
    expect(f?.jobs.map((j) => [j.name, j.failure])).toEqual([
      [failed.metadata!.name, 'BackoffLimitExceeded: Job has reached the specified backoff limit'],
    ]);
    expect(f?.storage).toBe(false);
  });

  it('a run whose pod is stuck is missed, and the finding links the Job and its pod', () => {
    const cj = cronJob('d', 'b', '0 2 * * *', { lastSuccess: '2026-11-28T02:20:00Z' });
    const job = cronJobJob(cj, '2026-11-30T02:00:00Z', { active: 1 });
    const p = pod('b-x', {
      ns: 'd',
      node: 'n1',
      scheduled: ago(25 * MIN),
      owner: { kind: 'Job', name: job.metadata!.name!, uid: job.metadata!.uid! },
    });
    const idx = ClusterIndex.fromSnapshot(snapshotOf([cj, job, p]));
    const f = cronJobMissedFinding(idx, cj, ctx);
    expect(f?.jobs).toEqual([{ name: job.metadata!.name, active: 1, succeeded: 0, failed: 0, pods: ['d/b-x'] }]);
    expect(f?.key).toBe('cronjob-missed/d/b');
    expect(f?.lastSuccessfulTime).toBe('2026-11-28T02:20:00Z');
  });
});

describe('scheduledTimes', () => {
  it('counts an every-minute schedule up to the cap', () => {
    expect(scheduledTimes('* * * * *', undefined, NOW - 30 * DAY, NOW)).toHaveLength(100);
  });

  it('includes a run scheduled exactly at the end', () => {
    expect(scheduledTimes('15 9 * * *', undefined, NOW - DAY, NOW)).toEqual([NOW]);
  });
});
