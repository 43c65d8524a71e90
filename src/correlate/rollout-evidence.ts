// What the rollout test reads from a node plugin DaemonSet: its newest revision (by creation time, so a rollback
// keeps the bad one "new"), the 2x2 counts over its plugin nodes with the mounts that prove a revision (tally), the
// revision the rollout replaced, and the evidence an incident carries (rolloutEvidence). rollout.ts decides from it.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { RolloutCounts, RolloutEvidence } from '../domain/incident.js';
import type { ControllerRevision, DaemonSet, Pod } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';
import { runningWithDriver } from './mounts.js';
import { dsRef } from './plugin-finder.js';
import { diffTemplates } from './revision-diff.js';

/** The revision created last (ties: the higher number). */
export function newestRevision(revs: readonly ControllerRevision[]): ControllerRevision | undefined {
  let best: ControllerRevision | undefined;
  for (const r of revs) {
    if (!best) {
      best = r;
      continue;
    }
    const a = timeMs(r.metadata?.creationTimestamp) ?? 0;
    const b = timeMs(best.metadata?.creationTimestamp) ?? 0;
    if (a > b || (a === b && (r.revision ?? 0) > (best.revision ?? 0))) best = r;
  }
  return best;
}

/** The 2x2 over the plugin nodes, the nodes on the new revision, and the mounts there older than their plugin. */
export interface Tally {
  counts: RolloutCounts;
  nodesOnNewRevision: string[];
  runningBeforeOnNew: number;
}

/** Counts each plugin node of a known revision into the 2x2, and the fine ones that proved their plugin mounts. */
export function tally(
  index: ClusterIndex,
  driver: string,
  plugins: ReadonlyMap<string, Pod>,
  revisionByNode: ReadonlyMap<string, number | undefined>,
  newRev: number,
  stuckNodes: ReadonlySet<string>,
): Tally {
  const counts: RolloutCounts = { newStuck: 0, newFine: 0, oldStuck: 0, oldFine: 0, newProven: 0, oldProven: 0 };
  const nodesOnNewRevision: string[] = [];
  let runningBeforeOnNew = 0;
  for (const [node, rev] of revisionByNode) {
    if (rev === undefined) continue;
    const isNew = rev === newRev;
    const stuck = stuckNodes.has(node);
    if (isNew) nodesOnNewRevision.push(node);
    if (isNew) {
      if (stuck) counts.newStuck++;
      else counts.newFine++;
    } else if (stuck) counts.oldStuck++;
    else counts.oldFine++;
    if (stuck && !isNew) continue;
    const running = runningWithDriver(index, node, driver, timeMs(plugins.get(node)?.metadata?.creationTimestamp));
    if (isNew) runningBeforeOnNew += running.before.length;
    if (stuck || running.after.length === 0) continue;
    if (isNew) counts.newProven = (counts.newProven ?? 0) + 1;
    else counts.oldProven = (counts.oldProven ?? 0) + 1;
  }
  return { counts, nodesOnNewRevision, runningBeforeOnNew };
}

/**
 * The revision the rollout replaced: the highest other revision a plugin pod still runs, else the most recently
 * created revision before the newest.
 */
function previousRevisionOf(
  revs: readonly ControllerRevision[],
  newest: ControllerRevision,
  revisionByNode: ReadonlyMap<string, number | undefined>,
): number | undefined {
  const onPods = [...revisionByNode.values()].filter((r): r is number => r !== undefined && r !== newest.revision);
  if (onPods.length > 0) return Math.max(...onPods);
  return revs
    .filter((r) => r !== newest)
    .sort((a, b) => (timeMs(b.metadata?.creationTimestamp) ?? 0) - (timeMs(a.metadata?.creationTimestamp) ?? 0))[0]
    ?.revision;
}

/** What the rollout's evidence is made of, besides the tally. */
export interface RolloutFacts {
  ds: DaemonSet;
  driver: string;
  revs: readonly ControllerRevision[];
  newest: ControllerRevision;
  newRev: number;
  plugins: ReadonlyMap<string, Pod>;
  revisionByNode: ReadonlyMap<string, number | undefined>;
  recovering: ReadonlySet<StuckPodFinding>;
}

/** The rollout's evidence as incidents carry it. */
export function rolloutEvidence(f: RolloutFacts, t: Tally, rolledBack: boolean): RolloutEvidence {
  const { ds, driver, revs, newest, plugins, recovering } = f;
  const previousRevision = previousRevisionOf(revs, newest, f.revisionByNode);
  const previous = revs.find((r) => r.revision === previousRevision);
  const evidence: RolloutEvidence = {
    daemonSet: dsRef(ds),
    driver,
    newRevision: f.newRev,
    updatedNodes: t.nodesOnNewRevision.length,
    desiredNodes: Math.max(ds.status?.desiredNumberScheduled ?? 0, plugins.size),
    counts: t.counts,
    nodesOnNewRevision: t.nodesOnNewRevision.sort(),
    diff: previous ? diffTemplates(previous.data?.spec?.template, newest.data?.spec?.template) : [],
  };
  if (previousRevision !== undefined) evidence.previousRevision = previousRevision;
  const rolloutStart = timeMs(newest.metadata?.creationTimestamp);
  if (rolloutStart !== undefined) evidence.rolloutStart = new Date(rolloutStart).toISOString();
  if (rolledBack) evidence.rolledBack = true;
  const replacing = [...plugins].filter(([, p]) => p.metadata?.deletionTimestamp).map(([node]) => node);
  if (replacing.length > 0) evidence.nodesReplacing = replacing.sort();
  if (recovering.size > 0)
    evidence.recoveringPods = [...recovering].map((f) => `${f.pod.namespace}/${f.pod.name}`).sort();
  return evidence;
}
