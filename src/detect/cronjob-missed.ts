// Detector: a non-suspended CronJob whose scheduled runs have not completed, for whatever reason: a run that never
// started (its pod stuck: a monitor of Job failures never sees it) and a run whose Job failed (its deadline or
// backoff limit: the Job controller's Failed condition) are both missed. Each Job's failure is kept, and whether its
// pods use storage at all, so the incident says what the runs failed with.
//
// A run scheduled at t is missed when t is after the last success (lastSuccessfulTime, the newest completed Job,
// or creation) and t + grace is before now, grace being startingDeadlineSeconds or config.cronJobGraceMs.
//
// A run in progress (the newest Job active, its live pods all Running) is not missed yet: it is judged when it
// ends. The runs before it that did not complete are missed all the same, and the finding says the run is in
// progress and since when: a backup that failed three nights running is reported while tonight's run goes on.
// Two exceptions, one rule (runInProgress):
// - the run overran: a later scheduled run's grace passed while it went on (with concurrencyPolicy Forbid that run
//   was skipped), or its activeDeadlineSeconds did: it is missed too, and counted;
// - the run is the recovery of a stuck pod: one of its pods waited longer than stuckAfter between the kubelet
//   taking it and its containers starting (domain/pod-times.ts waitedToStart), so it was a stuck pod, reported in the incident of what held it (its CronJob with
//   it). Until that run ends the CronJob is not reported: the recovery of an open incident never opens a second
//   one, and that incident's resolution already says "one is running now; this thread will say when one completes".
//   If the run fails or overruns, it is missed and reported then.
// Why the run's own pods, and not (a) the open incidents' members: the evaluation knows open incidents by key only,
// and the incident a run recovers from can close before the run ends. In scenarios/propagation-loss.yaml the
// backup stuck on node-36 starts at +18m, the rollout incident's last stuck pod starts at +22m, the backup
// completes at +24m (test/correlate/recovery-story.test.ts): kept "in its old incident", the CronJob would have had
// none for two minutes and opened the second incident anyway. Nor (b) "a run that started after the last failed
// run": tonight's run of a backup that fails nightly started after the last failure too, and must be reported.
// That the run's pod waited is in the cluster: the same fact for `rwx scan` and the bot, and after a restart.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { CronJobFinding } from '../domain/findings.js';
import type { CronJob, Job } from '../domain/objects.js';
import { waitedToStart } from '../domain/pod-times.js';
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

/** The scheduled runs since the last success (or creation), newest first; undefined when the schedule cannot run. */
function runsSince(cj: CronJob, jobs: readonly Job[], now: number): number[] | undefined {
  let ref = timeMs(cj.status?.lastSuccessfulTime) ?? timeMs(cj.metadata?.creationTimestamp);
  for (const j of jobs) {
    const c = completedAt(j);
    if (c !== undefined && (ref === undefined || c > ref)) ref = c;
  }
  if (ref === undefined || !cj.spec?.schedule) return undefined;
  try {
    return scheduledTimes(cj.spec.schedule, cj.spec.timeZone ?? undefined, ref, now);
  } catch {
    return undefined; // Kubernetes would not run it either; the schedule error is not a missed run.
  }
}

/** The finding for one CronJob if runs were missed at ctx.now, else undefined (also for unparseable schedules). */
export function cronJobMissedFinding(index: ClusterIndex, cj: CronJob, ctx: DetectContext): CronJobFinding | undefined {
  const spec = cj.spec;
  if (!spec?.schedule || spec.suspend) return undefined;
  const jobs = cj.metadata?.uid ? index.jobsOwnedBy(cj.metadata.uid) : [];
  const times = runsSince(cj, jobs, ctx.now);
  const latest = times?.[0];
  if (!times || latest === undefined) return undefined;
  const grace = spec.startingDeadlineSeconds != null ? spec.startingDeadlineSeconds * 1000 : ctx.config.cronJobGraceMs;
  const sorted = [...jobs].sort(
    (a, b) => (timeMs(b.metadata?.creationTimestamp) ?? 0) - (timeMs(a.metadata?.creationTimestamp) ?? 0),
  );
  const run = sorted[0] ? runInProgress(index, sorted[0], times, grace, ctx) : undefined;
  if (run?.recovering && !run.overdue) return undefined;
  // The slot of a run in progress is not missed until it overruns.
  const missed = times.filter((t) => t + grace < ctx.now && (run?.overdue || t !== run?.slot));
  if (missed.length === 0) return undefined;
  const namespace = cj.metadata?.namespace ?? '';
  const name = cj.metadata?.name ?? '';
  const finding: CronJobFinding = {
    kind: 'cronjob-missed',
    key: `cronjob-missed/${namespace}/${name}`,
    cronJob: { namespace, name },
    schedule: spec.schedule,
    latestScheduled: new Date(latest).toISOString(),
    missedRuns: missed.length,
    jobs: sorted.map((j) => jobRow(index, j)),
  };
  const storage = storageOf(index, sorted);
  if (storage !== undefined) finding.storage = storage;
  if (run) finding.inProgress = { job: run.job, since: new Date(run.since).toISOString(), overdue: run.overdue };
  if (spec.timeZone) finding.timeZone = spec.timeZone;
  if (cj.status?.lastSuccessfulTime) finding.lastSuccessfulTime = cj.status.lastSuccessfulTime;
  if (cj.status?.lastScheduleTime) finding.lastScheduleTime = cj.status.lastScheduleTime;
  return finding;
}

/** Whether the Jobs' pods use storage volumes: true if any does, false if they have pods and none does. */
function storageOf(index: ClusterIndex, jobs: readonly Job[]): boolean | undefined {
  const pods = jobs.flatMap((j) => (j.metadata?.uid ? index.podsOwnedBy(j.metadata.uid) : []));
  if (pods.some((p) => storageVolumes(p).length > 0)) return true;
  return pods.length > 0 ? false : undefined;
}

/** A Job's Failed condition: its reason (DeadlineExceeded, BackoffLimitExceeded...) and "reason: message". */
function failureOf(job: Job): { reason: string; text: string } | undefined {
  const c = (job.status?.conditions ?? []).find((x) => x?.type === 'Failed' && x.status === 'True');
  if (!c) return undefined;
  const reason = c.reason ?? 'Failed';
  return { reason, text: `${reason}${c.message ? `: ${c.message}` : ''}` };
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
  if (failure) {
    row.failure = failure.text;
    row.failureReason = failure.reason;
  }
  return row;
}

/** The newest Job's run while it is in progress (active, every pod Running): see the file comment. */
interface RunInProgress {
  job: string;
  /** When it started (the Job's startTime, else its creation), epoch ms. */
  since: number;
  /** The scheduled run it is: the latest scheduled time at or before its start. */
  slot: number | undefined;
  /** A later scheduled run's grace passed, or its activeDeadlineSeconds did: missed too. */
  overdue: boolean;
  /** One of its pods waited longer than stuckAfter before its containers started: the recovery of a stuck pod. */
  recovering: boolean;
}

/** The run of `job` if it is in progress (see RunInProgress), else undefined. `times`: scheduled runs, newest first. */
function runInProgress(
  index: ClusterIndex,
  job: Job,
  times: readonly number[],
  grace: number,
  ctx: DetectContext,
): RunInProgress | undefined {
  if (!job.metadata?.uid || !(job.status?.active ?? 0)) return undefined;
  // Its live pods: a retry leaves the failed ones (restartPolicy Never) next to the one running now.
  const pods = index
    .podsOwnedBy(job.metadata.uid)
    .filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded');
  if (pods.length === 0 || !pods.every((p) => p.status?.phase === 'Running')) return undefined;
  const since = timeMs(job.status?.startTime) ?? timeMs(job.metadata.creationTimestamp) ?? ctx.now;
  const slot = times.find((t) => t <= since);
  const deadline = job.spec?.activeDeadlineSeconds;
  const overdue =
    times.some((t) => slot !== undefined && t > slot && t + grace < ctx.now) ||
    (deadline != null && since + deadline * 1000 < ctx.now);
  const recovering = pods.some((p) => (waitedToStart(p) ?? 0) > ctx.config.stuckAfterMs);
  return { job: job.metadata.name ?? '', since, slot, overdue, recovering };
}

/** Every CronJob with missed runs. Linear in CronJobs plus their Jobs and pods. */
export function detectCronJobsMissed(index: ClusterIndex, ctx: DetectContext): CronJobFinding[] {
  return collect(index.all('cronJobs'), (cj) => cronJobMissedFinding(index, cj, ctx));
}
