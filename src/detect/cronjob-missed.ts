// Detector: a non-suspended CronJob whose scheduled runs have not completed. A monitor that watches Job failures
// does not see a Job that never started (a backup whose pod is stuck misses night after night), so this works
// from the schedule.
//
// A run scheduled at t is missed when t is after the last success (lastSuccessfulTime, the newest completed Job,
// or creation) and t + grace is before now, grace being startingDeadlineSeconds or config.cronJobGraceMs.
// While the newest Job is active with every pod Running, the CronJob is not reported at all: a run is in progress
// and may well succeed (after a stuck mount heals, the run that was stuck goes on; reporting the older misses
// then would open a second incident for a CronJob that is about to recover). A Job that failed (its deadline or
// backoff limit: the Job controller's Failed condition) is a missed run like one that never started: each Job's
// failure is kept, and whether its pods use storage at all, so the incident says what the runs failed with.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { CronJobFinding } from '../domain/findings.js';
import type { CronJob, Job } from '../domain/objects.js';
import { nsKey, timeMs } from '../domain/refs.js';
import type { DetectContext } from './config.js';
import { scheduledTimes } from './cron-schedule.js';
import { collect } from './collect.js';
import { storageVolumes } from './storage-path.js';

function completedAt(job: Job): number | undefined {
  const done = (job.status?.conditions ?? []).some((c) => c?.type === 'Complete' && c.status === 'True');
  if (!done && !job.status?.completionTime) return undefined;
  return timeMs(job.status?.completionTime) ?? timeMs(job.metadata?.creationTimestamp);
}

/** The finding for one CronJob if runs were missed at ctx.now, else undefined (also for unparseable schedules). */
export function cronJobMissedFinding(index: ClusterIndex, cj: CronJob, ctx: DetectContext): CronJobFinding | undefined {
  const spec = cj.spec;
  if (!spec?.schedule || spec.suspend) return undefined;
  const namespace = cj.metadata?.namespace ?? '';
  const name = cj.metadata?.name ?? '';
  const jobs = cj.metadata?.uid ? index.jobsOwnedBy(cj.metadata.uid) : [];
  let ref = timeMs(cj.status?.lastSuccessfulTime) ?? timeMs(cj.metadata?.creationTimestamp);
  for (const j of jobs) {
    const c = completedAt(j);
    if (c !== undefined && (ref === undefined || c > ref)) ref = c;
  }
  if (ref === undefined) return undefined;
  const grace = spec.startingDeadlineSeconds != null ? spec.startingDeadlineSeconds * 1000 : ctx.config.cronJobGraceMs;
  const tz = spec.timeZone ?? undefined;
  let times: number[];
  try {
    times = scheduledTimes(spec.schedule, tz, ref, ctx.now);
  } catch {
    return undefined; // Kubernetes would not run it either; the schedule error is not a missed run.
  }
  const latest = times[0];
  if (latest === undefined) return undefined;
  const missed = times.filter((t) => t + grace < ctx.now);
  if (missed.length === 0) return undefined;
  const sorted = [...jobs].sort(
    (a, b) => (timeMs(b.metadata?.creationTimestamp) ?? 0) - (timeMs(a.metadata?.creationTimestamp) ?? 0),
  );
  if (sorted[0] && inProgress(index, sorted[0])) return undefined;
  const finding: CronJobFinding = {
    kind: 'cronjob-missed',
    key: `cronjob-missed/${namespace}/${name}`,
    cronJob: { namespace, name },
    schedule: spec.schedule,
    latestScheduled: new Date(latest).toISOString(),
    missedRuns: missed.length,
    jobs: sorted.map((j) => jobRow(index, j)),
  };
  if (
    sorted.some((j) =>
      (j.metadata?.uid ? index.podsOwnedBy(j.metadata.uid) : []).some((p) => storageVolumes(p).length > 0),
    )
  )
    finding.storage = true;
  else if (sorted.some((j) => j.metadata?.uid && index.podsOwnedBy(j.metadata.uid).length > 0)) finding.storage = false;
  if (tz) finding.timeZone = tz;
  if (cj.status?.lastSuccessfulTime) finding.lastSuccessfulTime = cj.status.lastSuccessfulTime;
  if (cj.status?.lastScheduleTime) finding.lastScheduleTime = cj.status.lastScheduleTime;
  return finding;
}

/** A Job's Failed condition as "Reason: message" (DeadlineExceeded, BackoffLimitExceeded...), if it failed. */
function failureOf(job: Job): string | undefined {
  const c = (job.status?.conditions ?? []).find((x) => x?.type === 'Failed' && x.status === 'True');
  return c ? `${c.reason ?? 'Failed'}${c.message ? `: ${c.message}` : ''}` : undefined;
}

/** One Job of the finding: its counts, its pods ("namespace/name"), and its failure. */
function jobRow(index: ClusterIndex, j: Job): CronJobFinding['jobs'][number] {
  const row: CronJobFinding['jobs'][number] = {
    name: j.metadata?.name ?? '',
    active: j.status?.active ?? 0,
    succeeded: j.status?.succeeded ?? 0,
    failed: j.status?.failed ?? 0,
    pods: j.metadata?.uid
      ? index
          .podsOwnedBy(j.metadata.uid)
          .map((p) => nsKey(p.metadata?.namespace, p.metadata?.name))
          .sort()
      : [],
  };
  const failure = failureOf(j);
  if (failure) row.failure = failure;
  return row;
}

/** Whether a Job is active with all its pods Running (a run in progress). */
function inProgress(index: ClusterIndex, job: Job): boolean {
  if (!job.metadata?.uid || !(job.status?.active ?? 0)) return false;
  const pods = index.podsOwnedBy(job.metadata.uid);
  return pods.length > 0 && pods.every((p) => p.status?.phase === 'Running');
}

/** Every CronJob with missed runs. Linear in CronJobs plus their Jobs and pods. */
export function detectCronJobsMissed(index: ClusterIndex, ctx: DetectContext): CronJobFinding[] {
  return collect(index.all('cronJobs'), (cj) => cronJobMissedFinding(index, cj, ctx));
}
