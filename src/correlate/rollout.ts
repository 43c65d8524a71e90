// The rollout test: do the stuck mounts of one driver follow its node plugin DaemonSet's newest revision?
//
// The 2x2 is over the nodes that run a plugin pod of the DaemonSet (pods whose revision is unknown are left out):
// - new / old: the node's plugin pod runs the new revision / any other revision. The new revision is the most
//   recently created ControllerRevision; after `kubectl rollout undo` the restored revision gets a higher number
//   but keeps its old creation time, so the bad revision stays "new" and the incident keeps its key while the
//   rollback heals it.
// - stuck / fine: the node has at least one pod stuck in ContainerCreating on a storage cause whose blamed volume
//   uses this driver / it has none. "Proven" fine nodes additionally ran a pod with this driver's volume whose
//   containers started after the node's plugin pod was created: the current plugin demonstrably mounts there.
//
// The stuck mounts follow the rollout when some new-revision nodes are stuck, no old-revision node is, and no
// new-revision node has proven that the new revision mounts. While the rollout is in progress the old-revision
// nodes are the control group; a lone stuck node that is also stuck on another driver follows the node instead.
// Once the rollout is complete there is no control group: then at least two stuck nodes and stuck pods all
// scheduled after the rollout started are required.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { RolloutCounts, RolloutEvidence } from '../domain/incident.js';
import type { ControllerRevision, DaemonSet, Pod } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';
import { runningWithDriver } from './mounts.js';
import { dsRef } from './plugin-finder.js';
import { pluginPodsByNode, revisionOfPod, revisionsOf } from './plugin-revision.js';
import { diffTemplates } from './revision-diff.js';

/** The outcome of the rollout test for one driver. */
export interface RolloutAnalysis {
  evidence: RolloutEvidence;
  /** Whether the stuck mounts follow the rollout (see the file comment). */
  fits: boolean;
  /** node -> plugin pod of the DaemonSet. */
  plugins: Map<string, Pod>;
  /** node -> revision its plugin runs (undefined when unknown). */
  revisionByNode: Map<string, number | undefined>;
  /** Nodes with stuck mounts of this driver but no plugin pod of the DaemonSet. */
  unserved: string[];
  /** Whether every plugin pod already runs the new revision. */
  complete: boolean;
  /** Running pods with this driver's volumes on new-revision nodes whose mounts predate the plugin update. */
  runningBeforeOnNew: number;
}

/** The revision created last (ties: the higher number). */
export function newestRevision(revs: readonly ControllerRevision[]): ControllerRevision | undefined {
  let best: ControllerRevision | undefined;
  for (const r of revs) {
    if (!best) { best = r; continue; }
    const a = timeMs(r.metadata?.creationTimestamp) ?? 0;
    const b = timeMs(best.metadata?.creationTimestamp) ?? 0;
    if (a > b || (a === b && (r.revision ?? 0) > (best.revision ?? 0))) best = r;
  }
  return best;
}

/**
 * Runs the rollout test for `driver` served by `ds`, over that driver's stuck-creating storage findings.
 * `otherDriverNodes` are nodes with stuck mounts of other drivers. Undefined when the DaemonSet has fewer than
 * two revisions (nothing rolled). O(plugin pods + pods on the plugin nodes).
 */
export function analyzeRollout(index: ClusterIndex, ds: DaemonSet, driver: string, findings: readonly StuckPodFinding[],
  otherDriverNodes: ReadonlySet<string>): RolloutAnalysis | undefined {
  const revs = revisionsOf(index, ds);
  const newest = newestRevision(revs);
  if (revs.length < 2 || newest?.revision === undefined) return undefined;
  const newRev = newest.revision;
  const plugins = pluginPodsByNode(index, ds);
  const revisionByNode = new Map<string, number | undefined>();
  for (const [node, pod] of plugins) revisionByNode.set(node, revisionOfPod(index, ds, pod));
  const onPods = [...revisionByNode.values()].filter((r): r is number => r !== undefined && r !== newRev);
  const previousRevision = onPods.length > 0 ? Math.max(...onPods)
    : revs.filter((r) => r !== newest).sort((a, b) => (timeMs(b.metadata?.creationTimestamp) ?? 0) - (timeMs(a.metadata?.creationTimestamp) ?? 0))[0]?.revision;
  const stuckNodes = new Set(findings.map((f) => f.node).filter((n): n is string => !!n));
  const counts: RolloutCounts = { newStuck: 0, newFine: 0, oldStuck: 0, oldFine: 0, newProven: 0, oldProven: 0 };
  const nodesOnNewRevision: string[] = [];
  let runningBeforeOnNew = 0;
  for (const [node, rev] of revisionByNode) {
    if (rev === undefined) continue;
    const isNew = rev === newRev;
    const stuck = stuckNodes.has(node);
    if (isNew) nodesOnNewRevision.push(node);
    if (isNew) { if (stuck) counts.newStuck++; else counts.newFine++; } else if (stuck) counts.oldStuck++; else counts.oldFine++;
    if (stuck && !isNew) continue;
    const running = runningWithDriver(index, node, driver, timeMs(plugins.get(node)?.metadata?.creationTimestamp));
    if (isNew) runningBeforeOnNew += running.before.length;
    if (stuck || running.after.length === 0) continue;
    if (isNew) counts.newProven = (counts.newProven ?? 0) + 1; else counts.oldProven = (counts.oldProven ?? 0) + 1;
  }
  const unserved = [...stuckNodes].filter((n) => !plugins.has(n)).sort();
  const rolloutStart = timeMs(newest.metadata?.creationTimestamp);
  const complete = counts.oldFine + counts.oldStuck === 0;
  let fits = counts.newStuck > 0 && counts.oldStuck === 0 && (counts.newProven ?? 0) === 0;
  if (fits && !complete) {
    const servedStuck = [...stuckNodes].filter((n) => plugins.has(n));
    fits = !(servedStuck.length === 1 && otherDriverNodes.has(servedStuck[0] ?? ''));
  } else if (fits) {
    fits = counts.newStuck >= 2 && rolloutStart !== undefined
      && findings.every((f) => (timeMs(f.since) ?? 0) >= rolloutStart);
  }
  const previous = revs.find((r) => r.revision === previousRevision);
  const evidence: RolloutEvidence = {
    daemonSet: dsRef(ds),
    driver,
    newRevision: newRev,
    updatedNodes: nodesOnNewRevision.length,
    desiredNodes: Math.max(ds.status?.desiredNumberScheduled ?? 0, plugins.size),
    counts,
    nodesOnNewRevision: nodesOnNewRevision.sort(),
    diff: previous ? diffTemplates(previous.data?.spec?.template, newest.data?.spec?.template) : [],
  };
  if (previousRevision !== undefined) evidence.previousRevision = previousRevision;
  if (rolloutStart !== undefined) evidence.rolloutStart = new Date(rolloutStart).toISOString();
  return { evidence, fits, plugins, revisionByNode, unserved, complete, runningBeforeOnNew };
}

/**
 * Whether the plugin revision serving `node` demonstrably mounts elsewhere: another node whose plugin pod runs the
 * same revision has a Running pod with this driver's volume that started after that plugin pod. Then a node whose
 * mounts fail differs from its peers by something other than the plugin. Stops at the first proof.
 */
export function revisionProvenElsewhere(index: ClusterIndex, ds: DaemonSet, driver: string, node: string): boolean {
  const plugins = pluginPodsByNode(index, ds);
  const mine = plugins.get(node);
  if (!mine) return false;
  const rev = revisionOfPod(index, ds, mine);
  for (const [other, pod] of plugins) {
    if (other === node || revisionOfPod(index, ds, pod) !== rev) continue;
    if (runningWithDriver(index, other, driver, timeMs(pod.metadata?.creationTimestamp)).after.length > 0) return true;
  }
  return false;
}
