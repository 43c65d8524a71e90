// Detector: CronJobs whose scheduled runs did not complete (NOW = 2026-11-30T09:15Z).
// The Job failures are the Job controller's words (kubernetes/kubernetes pkg/controller/job/job_controller.go,
// syncJob: newFailureCondition(JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit") and
// newFailureCondition(JobReasonDeadlineExceeded, "Job was active longer than specified deadline"), as the Failed
// condition's reason and message.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { CronJob, Job, Pod } from '../../src/domain/objects.js';
import { detectContext } from '../../src/detect/config.js';
import { cronJobMissedFinding } from '../../src/detect/cronjob-missed.js';
import { scheduledTimes } from '../../src/detect/cron-schedule.js';
import { ago, cronJob, cronJobJob, DAY, failedCronJobJob, MIN, NOW, runPod, snapshotOf } from './builders.js';

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
    const p = runPod(job, 'b-run', {
      scheduled: ago(14 * MIN),
      started: ago(14 * MIN),
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
    const p = runPod(job, 'b-x', {
      scheduled: ago(25 * MIN),
    });
    const idx = ClusterIndex.fromSnapshot(snapshotOf([cj, job, p]));
    const f = cronJobMissedFinding(idx, cj, ctx);
    expect(f?.jobs).toEqual([{ name: job.metadata!.name, active: 1, succeeded: 0, failed: 0, pods: ['d/b-x'] }]);
    expect(f?.key).toBe('cronjob-missed/d/b');
    expect(f?.lastSuccessfulTime).toBe('2026-11-28T02:20:00Z');
  });
});

const DEADLINE = ['DeadlineExceeded', 'Job was active longer than specified deadline'] as const;

/** A nightly backup (02:00, staging claim) that last succeeded on `lastSuccess`, its Jobs and their pods. */
function nightly(lastSuccess: string, o: { deadline?: number } = {}) {
  const cj = cronJob('d', 'backup', '0 2 * * *', { lastSuccess });
  const failedOn = (day: string): [Job, Pod] => {
    const [job, p] = failedCronJobJob(cj, `${day}T02:00:00Z`, ...DEADLINE, `backup-${day}`);
    p.spec!.volumes = [{ name: 'staging', persistentVolumeClaim: { claimName: 'staging' } }];
    return [job, p];
  };
  /** Tonight's run, active, its pod scheduled at `scheduled` and Running since `started`. */
  const tonight = (scheduled: string, started: string, slot = '2026-11-30T02:00:00Z'): [Job, Pod] => {
    const job = cronJobJob(cj, slot, { active: 1 });
    job.status!.startTime = slot;
    if (o.deadline !== undefined) job.spec = { activeDeadlineSeconds: o.deadline };
    const p = runPod(job, 'backup-tonight', { node: 'n2', scheduled, started, claims: { staging: 'staging' } });
    return [job, p];
  };
  return { cj, failedOn, tonight };
}

/** What the table compares: runs missed, the failures, the run in progress, storage. */
function summary(cj: CronJob, objects: { kind?: string }[]) {
  const f = cronJobMissedFinding(ClusterIndex.fromSnapshot(snapshotOf([cj, ...objects])), cj, ctx);
  if (!f) return undefined;
  return {
    missedRuns: f.missedRuns,
    failures: f.jobs.filter((j) => j.failure).length,
    inProgress: f.inProgress,
    storage: f.storage,
  };
}

describe('cronJobMissedFinding: runs that failed, and a run in progress', () => {
  const b = nightly('2026-11-26T02:20:00Z');
  const failed3 = [...b.failedOn('2026-11-27'), ...b.failedOn('2026-11-28'), ...b.failedOn('2026-11-29')];
  it.each<[string, CronJob, { kind?: string }[], ReturnType<typeof summary>]>([
    // never started: four nights with no Job at all
    ['never started', b.cj, [], { missedRuns: 4, failures: 0, inProgress: undefined, storage: undefined }],
    // three nights hit their deadline; tonight's run started at 02:00 and is Running: the three are missed now,
    // said with the run in progress (tonight's slot is not missed yet)
    [
      'failed nightly, a run in progress',
      b.cj,
      [...failed3, ...b.tonight('2026-11-30T02:00:05Z', '2026-11-30T02:00:30Z')],
      {
        missedRuns: 3,
        failures: 3,
        inProgress: { job: 'backup-29933400', since: '2026-11-30T02:00:00.000Z', overdue: false },
        storage: true,
      },
    ],
    // the same, but tonight's pod waited 6h50m before starting (a stuck mount that healed): the recovery of a stuck
    // pod, judged when it ends
    [
      'a run that is the recovery',
      b.cj,
      [...failed3, ...b.tonight('2026-11-30T02:00:05Z', '2026-11-30T08:55:00Z')],
      undefined,
    ],
    // a run in progress with nothing missed before it: nothing to say
    [
      'only a run in progress',
      nightly('2026-11-29T02:20:00Z').cj,
      [...nightly('2026-11-29T02:20:00Z').tonight('2026-11-30T02:00:05Z', '2026-11-30T02:00:30Z')],
      undefined,
    ],
  ])('%s', (_name, cj, objects, want) => {
    expect(summary(cj, objects)).toEqual(want);
  });
});

describe('cronJobMissedFinding: a run in progress that overran is missed too', () => {
  it('past its activeDeadlineSeconds, recovering or not', () => {
    const o = nightly('2026-11-29T02:20:00Z', { deadline: 3600 });
    // started 02:00, deadline one hour, still Running at 09:15; its pod waited (a recovery) but that no longer counts
    expect(summary(o.cj, o.tonight('2026-11-30T02:00:05Z', '2026-11-30T08:55:00Z'))).toEqual({
      missedRuns: 1,
      failures: 0,
      inProgress: { job: 'backup-29933400', since: '2026-11-30T02:00:00.000Z', overdue: true },
      storage: true,
    });
  });

  it('an hourly run still going when the next hour came is missed, and so is the hour it blocked', () => {
    const cj = cronJob('d', 'h', '0 * * * *', { lastSuccess: '2026-11-30T07:30:00Z' });
    const job = cronJobJob(cj, '2026-11-30T08:00:00Z', { active: 1 });
    const p = runPod(job, 'h-run', {
      scheduled: '2026-11-30T08:00:02Z',
      started: '2026-11-30T08:00:10Z',
    });
    const f = cronJobMissedFinding(ClusterIndex.fromSnapshot(snapshotOf([cj, job, p])), cj, ctx);
    expect([f?.missedRuns, f?.inProgress?.overdue]).toEqual([2, true]);
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
