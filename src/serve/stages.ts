// The pure stages bound to the configuration: the detector registry and the evaluation, as the pipeline calls
// them, plus what the notifier asks when an incident clears: which pods recovered on their own, which were deleted
// (re-test those), whether each missed CronJob has completed a run since.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { NsName } from '../domain/findings.js';
import type { IncidentHistory } from '../domain/history.js';
import type { CronJob } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';
import { parseSchedule } from '../detect/cron-schedule.js';
import { detectContext } from '../detect/config.js';
import { detectCronJob, detectPod } from '../detect/registry.js';
import { evaluationSteps } from '../evaluate/evaluate.js';
import type { ResolutionFacts } from '../domain/resolution.js';
import type { Stages } from './pipeline.js';
import { runHeld } from '../watch/yielding.js';

/** The thresholds and overrides the stages need (from Config). */
export interface StageConfig {
  stuckAfterMs: number;
  cronJobGraceMs: number;
  driverDaemonSets: Readonly<Record<string, NsName>>;
}

/** The real detectors and evaluation (correlate, then advise) with `cfg` applied. */
export function realStages(cfg: StageConfig): Stages {
  const detect = { stuckAfterMs: cfg.stuckAfterMs, cronJobGraceMs: cfg.cronJobGraceMs };
  const driverDaemonSets = Object.fromEntries(
    Object.entries(cfg.driverDaemonSets).map(([d, r]) => [d, `${r.namespace}/${r.name}`]),
  );
  return {
    detectPod: (index, pod, now) => detectPod(index, pod, detectContext(now, detect)),
    detectCronJob: (index, cj, now) => detectCronJob(index, cj, detectContext(now, detect)),
    // The evaluation hands the event loop back between its steps, with the cache held meanwhile: still one pass
    // over one state of the cluster (src/watch/yielding.ts).
    evaluate: async (index, findings, now, openKeys) => {
      const opts = { now, config: detect, driverDaemonSets, openKeys };
      return (await runHeld(index, () => evaluationSteps(index, findings, opts))).incidents;
    },
  };
}

/**
 * What the cache says about every member a cleared incident ever had (its history), for the resolution reply:
 * - a pod first stuck creating: same uid and Running (or Succeeded) recovered on its own; gone, back with a new
 *   uid, or being deleted was deleted or replaced (re-test it); same uid otherwise is not Running yet;
 * - a pod first stuck Terminating: gone or replaced means it finished terminating; still there, not yet;
 * - a CronJob has completed a run since when its status.lastSuccessfulTime is later than the one it had when it
 *   joined the incident (cluster time on both sides, so the notifier's clock does not matter); when it has not,
 *   whether a run is in progress (status.active), and its next scheduled run after `now`.
 * With `completionOnly` (ObserveResolution): no pods, and no next run (parsing a schedule costs about a millisecond).
 */
export function observeResolution(
  index: ClusterIndex,
): (history: IncidentHistory, now: number, completionOnly?: boolean) => ResolutionFacts {
  return (history, now, completionOnly = false) => {
    const facts: Required<Pick<ResolutionFacts, 'recovered' | 'deleted' | 'terminated' | 'notRunning'>> = {
      recovered: [],
      deleted: [],
      terminated: [],
      notRunning: [],
    };
    for (const p of completionOnly ? [] : history.pods) {
      const pod = index.get('pods', p.pod);
      const same = pod !== undefined && (!p.uid || pod.metadata?.uid === p.uid);
      const running =
        same &&
        !pod.metadata?.deletionTimestamp &&
        (pod.status?.phase === 'Running' || pod.status?.phase === 'Succeeded');
      if (p.kind === 'stuck-terminating') (same ? facts.notRunning : facts.terminated).push(p.pod);
      else if (running) facts.recovered.push(p.pod);
      else if (!same || pod.metadata?.deletionTimestamp) facts.deleted.push(p.pod);
      else facts.notRunning.push(p.pod);
    }
    const cronJobs = history.cronJobs.map((c) => {
      if (!index.readable('cronJobs')) return { cronJob: c.cronJob }; // not allowed to look: say so, claim nothing
      const cj = index.get('cronJobs', c.cronJob);
      if (!cj) return { cronJob: c.cronJob, completedSince: false, gone: true };
      const at = cj.status?.lastSuccessfulTime ?? undefined;
      const last = timeMs(at);
      const since = last !== undefined && last > (timeMs(c.lastSuccessfulTime) ?? -Infinity);
      const running = !since && (cj.status?.active ?? []).length > 0;
      const next = since || completionOnly ? undefined : nextRun(cj, now);
      return {
        cronJob: c.cronJob,
        completedSince: since,
        ...(since && at ? { at } : {}),
        ...(running ? { running } : {}),
        ...(next ? { nextRunAt: next } : {}),
      };
    });
    return { ...facts, cronJobs };
  };
}

/** A CronJob's next scheduled run after `now` (ISO), or undefined when suspended or its schedule is invalid. */
function nextRun(cj: CronJob, now: number): string | undefined {
  if (cj.spec?.suspend || !cj.spec?.schedule) return undefined;
  try {
    return new Date(
      parseSchedule(cj.spec.schedule, cj.spec.timeZone ?? undefined, now)
        .next()
        .getTime(),
    ).toISOString();
  } catch {
    return undefined; // the missed-run detector reports an invalid schedule; here it only means "no date to give"
  }
}
