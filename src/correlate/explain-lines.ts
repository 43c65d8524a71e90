// The explanation lines several incident texts share (explain.ts, explain-texts.ts): CronJobs, the kubelet's
// "timed out" line, a rollout that cannot be compared, nodes that mount the driver fine. Each is chosen by the
// evidence of the draft, never said by default.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { IncidentNode } from '../domain/incident.js';
import type { CronJobFinding } from '../domain/findings.js';
import { nameList } from '../domain/names.js';
import { failedRunsPhrase, inProgressPhrase, storagePhrase } from '../domain/cron-runs.js';
import type { IncidentText } from './explain-config.js';
import type { Draft } from './draft.js';
import { mountedSincePlugin } from './rollout-mounts.js';

/** "1 pod", "2 pods". */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** One line per CronJob of the draft: the pod that kept it from running, or what its Jobs failed with. */
export function cronLines(d: Draft, nodes: readonly IncidentNode[]): string[] {
  const stuckNode = new Map<string, IncidentNode>();
  for (const n of nodes) for (const p of n.stuckPods) stuckNode.set(p, n);
  return d.cronJobs.map((c) => {
    const stuck = c.jobs.flatMap((j) => j.pods).find((p) => stuckNode.has(p));
    const n = stuck ? stuckNode.get(stuck) : undefined;
    const where = n
      ? ` on ${n.node}${n.plugin?.revision !== undefined ? ` (plugin revision ${n.plugin.revision})` : ''}`
      : '';
    const since = c.lastSuccessfulTime
      ? ` since its last success at ${c.lastSuccessfulTime}`
      : ' and it has never succeeded';
    return stuck
      ? `CronJob ${c.cronJob.namespace}/${c.cronJob.name}: ${plural(c.missedRuns, 'scheduled run')} missed${since}; it never ran because its pod ${stuck} is stuck${where}, so it raises no job-failure alert: nothing failed. A second finding: check what the missed runs cost.`
      : `CronJob ${c.cronJob.namespace}/${c.cronJob.name}: ${plural(c.missedRuns, 'scheduled run')} missed${since}; no stuck pod of its Jobs explains it.${failedJobs(c)}`;
  });
}

/**
 * What a CronJob's Jobs failed with, its run in progress, and whether its pods use storage at all
 * (" Its Jobs: 2 failed: ...; a run is in progress since T. Its pods use storage volumes: ...").
 */
function failedJobs(c: CronJobFinding): string {
  const said = [failedRunsPhrase(c), inProgressPhrase(c)].filter(Boolean);
  if (said.length === 0) return '';
  return ` Its Jobs: ${said.join('; ')}.${storagePhrase(c)}`;
}

/** The kubelet's "timed out waiting for the condition" names no component: said once when a stuck pod shows it. */
export function timedOutLines(d: Draft): string[] {
  // Only where the attach is done and the node plugin is registered: for an attach wait or a missing plugin the
  // same words mean something else, and each has its own explanation.
  const seen = d.pods.some(
    (f) =>
      (f.location?.layer === 'stage' || f.location?.layer === 'publish') &&
      !f.location.unregistered &&
      f.events.some((e) => /timed out waiting for the condition/.test(e.message)),
  );
  return seen
    ? [
        'The kubelet says "timed out waiting for the condition": it names no component and reads like a slow array. It asked for a mount, was told it succeeded (or is still waiting), and cannot see it.',
      ]
    : [];
}

/** A finished plugin rollout with stuck nodes and no control group: why it is not called a rollout fault. */
export function uncomparedLines(d: Draft): string[] {
  const ev = d.uncompared?.evidence;
  if (!ev) return [];
  const ds = `${ev.daemonSet.namespace}/${ev.daemonSet.name}`;
  return [
    `Every node with a ${ds} plugin runs revision ${ev.newRevision}${ev.rolloutStart ? ` (since ${ev.rolloutStart})` : ''}: with no node left on the previous revision that mounts fine, the revision cannot be compared, so the stuck mounts are not blamed on it and no rollback is advised on this evidence.`,
  ];
}

/** Nodes of an unexplained draft that mount its driver fine right now (group.ts rule 5): why no node is blamed. */
export function mountsFineLines(index: ClusterIndex, d: Draft): string[] {
  if (!d.daemonSet || !d.driver) return [];
  const out: string[] = [];
  for (const node of [...new Set(d.pods.map((f) => f.node ?? ''))].filter(Boolean).sort()) {
    const fine = mountedSincePlugin(index, d.daemonSet, d.driver, node);
    if (fine.length > 0)
      out.push(
        `${node} mounts ${d.driver} volumes: ${nameList(fine, 3, ', ')} started there after its node plugin did, so the fault is not ${node}'s.`,
      );
  }
  return out.slice(0, 5);
}

/** A text with the draft's CronJob lines added. */
export function withCron(t: IncidentText, d: Draft, nodes: readonly IncidentNode[]): IncidentText {
  return { ...t, explanations: [...t.explanations, ...cronLines(d, nodes)] };
}
