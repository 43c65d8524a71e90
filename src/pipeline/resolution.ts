// What the cache says when an incident clears or is resolved by hand: which pods recovered on their own, which
// were deleted (re-test those), whether each missed CronJob has completed a run since, and what the node agents
// now answer about the incident's nodes. Pure cache reading, for the notifier's resolution reply.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { IncidentHistory } from '../domain/history.js';
import type { CronJob } from '../domain/objects.js';
import { MAX_PROOF_NODES, type NodeReportState } from '../domain/proof.js';
import { timeMs } from '../domain/refs.js';
import type { ObserveResolution, ResolutionFacts } from '../domain/resolution.js';
import { buildProof } from '../correlate/proof.js';
import { parseSchedule } from '../detect/cron-schedule.js';

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

/**
 * The resolution facts of the cache `index()` (undefined before it exists), with the agents' answers for the
 * incident's nodes (its history's, at most MAX_PROOF_NODES) as `agents` holds them: asked again when the incident
 * cleared (agents.ts AskedNodes), at most a TTL old after a Resolve click. Not for `completionOnly` (the CronJob
 * question).
 */
export function resolutionFacts(
  index: ClusterIndex,
  agents?: { stateOf(node: string): NodeReportState },
): ObserveResolution {
  const observe = observeResolution(index);
  return (history, now, completionOnly) => {
    // Until the pods are listed (a restart), their absence proves nothing: nothing observed, never "deleted".
    const facts = completionOnly || index.readable('pods') ? observe(history, now, completionOnly) : undefined;
    if (!facts || completionOnly || !agents || history.nodes.length === 0) return facts;
    const nodes = history.nodes.slice(0, MAX_PROOF_NODES);
    const omitted = history.nodes.length - nodes.length + history.omittedNodes;
    return { ...facts, proof: buildProof(nodes, (n) => agents.stateOf(n), { omitted }) };
  };
}
