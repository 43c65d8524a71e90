// The pure stages bound to the configuration: the detector registry and the correlator, as the pipeline calls
// them, plus what the notifier asks when an incident clears (which pods recovered on their own, which were
// deleted, whether each missed CronJob has completed since): seed verification steps 3 and 5.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { NsName } from '../domain/findings.js';
import type { Incident } from '../domain/incident.js';
import { timeMs } from '../domain/refs.js';
import { correlate } from '../correlate/correlate.js';
import { detectContext } from '../detect/config.js';
import { detectCronJob, detectPod } from '../detect/registry.js';
import type { ResolutionFacts } from '../render/slack-resolution.js';
import type { Stages } from './pipeline.js';

/** The thresholds and overrides the stages need (from Config). */
export interface StageConfig {
  stuckAfterMs: number;
  cronJobGraceMs: number;
  driverDaemonSets: Readonly<Record<string, NsName>>;
}

/** The real detectors and correlator with `cfg` applied. */
export function realStages(cfg: StageConfig): Stages {
  const detect = { stuckAfterMs: cfg.stuckAfterMs, cronJobGraceMs: cfg.cronJobGraceMs };
  const driverDaemonSets = Object.fromEntries(Object.entries(cfg.driverDaemonSets).map(([d, r]) => [d, `${r.namespace}/${r.name}`]));
  return {
    detectPod: (index, pod, now) => detectPod(index, pod, detectContext(now, detect)),
    detectCronJob: (index, cj, now) => detectCronJob(index, cj, detectContext(now, detect)),
    correlate: (index, findings, now) => correlate(index, findings, { now, driverDaemonSets }),
  };
}

/**
 * What the cache says about a cleared incident's members: a pod with the same uid that is Running recovered on
 * its own; a pod that is gone or has a new uid was deleted (re-test it). A CronJob whose lastSuccessfulTime moved
 * past what the finding saw has completed a run since.
 */
export function observeResolution(index: ClusterIndex): (last: Incident, now: number) => ResolutionFacts {
  return (last) => {
    const recovered: string[] = [];
    const deleted: string[] = [];
    for (const f of last.pods) {
      const key = `${f.pod.namespace}/${f.pod.name}`;
      const pod = index.get('pods', key);
      const same = pod && (!f.pod.uid || pod.metadata?.uid === f.pod.uid);
      if (!same) deleted.push(key);
      else if (pod.status?.phase === 'Running' || pod.status?.phase === 'Succeeded') recovered.push(key);
    }
    const cronJobs = last.cronJobs.map((c) => {
      const key = `${c.cronJob.namespace}/${c.cronJob.name}`;
      const at = index.get('cronJobs', key)?.status?.lastSuccessfulTime ?? undefined;
      const since = timeMs(at) !== undefined && (timeMs(at) ?? 0) > (timeMs(c.lastSuccessfulTime) ?? 0);
      return { cronJob: key, completedSince: since, ...(since && at ? { at } : {}) };
    });
    return { recovered, deleted, cronJobs };
  };
}
