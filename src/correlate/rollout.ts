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
// Recovering pods are not evidence. A pod stuck since BEFORE its node's current plugin pod was created cannot speak
// for or against the revision that pod runs: its failed attempts were made against the plugin that was there
// before (during a rollback, the bad one). A node whose plugin pod is gone or Terminating right now is being
// replaced and is no evidence either (a watch cache briefly sees the old pod deleted before the new one is added).
// Such pods stay members of the rollout incident, "recovering after the plugin was replaced": they never count as
// stuck in the 2x2 and never decide the verdict. When they are the only stuck pods left and the DaemonSet has been
// rolled back (the most recently created revision, the bad one, is no longer the highest-numbered: `rollout undo`
// renumbers the restored revision), the incident stays FOLLOWS_ROLLOUT, rolling back, until they recover.
//
// The stuck mounts follow the rollout when some new-revision nodes are stuck, no old-revision node is, and no
// new-revision node has proven that the new revision mounts. The old-revision nodes are the control group; a lone
// stuck node that is also stuck on another driver follows the node instead. Once the rollout is complete there is
// no control group, and a new incident never follows the rollout: the revision cannot be compared (a claim whose
// export refuses every node looks exactly the same). The grouping says so (Draft.uncompared).
//
// This file is the verdict. What the test reads (the newest revision, the tally, the evidence an incident carries) is
// rollout-evidence.ts; the proofs that a plugin mounts, which the node rules read, are rollout-mounts.ts.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { RolloutCounts, RolloutEvidence } from '../domain/incident.js';
import type { DaemonSet, Pod } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';
import { pluginPodsByNode, revisionOfPod, revisionsOf } from './plugin-revision.js';
import { newestRevision, rolloutEvidence, tally } from './rollout-evidence.js';

/** The outcome of the rollout test for one driver. */
export interface RolloutAnalysis {
  evidence: RolloutEvidence;
  /** Whether the stuck mounts follow the rollout (see the file comment). */
  fits: boolean;
  /** node -> plugin pod of the DaemonSet. */
  plugins: Map<string, Pod>;
  /** node -> revision its plugin runs (undefined when unknown). */
  revisionByNode: Map<string, number | undefined>;
  /** Findings stuck since before their node's current plugin pod started, or on a node whose plugin is being replaced. */
  recovering: Set<StuckPodFinding>;
  /** Whether the DaemonSet was rolled back off the new revision (a higher-numbered revision is older). */
  rolledBack: boolean;
  /** Whether every plugin pod already runs the new revision. */
  complete: boolean;
  /** Running pods with this driver's volumes on new-revision nodes whose mounts predate the plugin update. */
  runningBeforeOnNew: number;
}

/**
 * Whether a stuck pod on `node` is recovering rather than evidence: the node's plugin pod is missing or Terminating
 * (being replaced), or was created after the pod got stuck and less than RECOVERY_WINDOW_MS ago (see the file comment).
 */
export function isRecovering(f: StuckPodFinding, plugin: Pod | undefined): boolean {
  if (!plugin || plugin.metadata?.deletionTimestamp) return true;
  const created = timeMs(plugin.metadata?.creationTimestamp);
  const since = timeMs(f.since);
  if (created === undefined || since === undefined || since >= created) return false;
  // Evaluation time is carried by the finding. Past the window the current plugin has had its chance: the kubelet
  // retries a failed mount at most every 2m2s, so a pod still stuck this long after the plugin started is stuck
  // under the current plugin, and counts as evidence again.
  const now = since + f.stuckSeconds * 1000;
  return now - created < RECOVERY_WINDOW_MS;
}

/**
 * How the rollout test reads its findings. `unmount`: the findings are pods stuck Terminating on unmount failures
 * (the same 2x2: new revision stuck, old not), where a pod that mounted under the new revision is no counter-proof.
 */
export interface RolloutTestOptions {
  unmount?: boolean;
}

/** How long after its node's plugin pod was replaced a pod stuck from before still counts as recovering. */
export const RECOVERY_WINDOW_MS = 5 * 60_000;

/**
 * Runs the rollout test for `driver` served by `ds`, over that driver's stuck-creating storage findings.
 * `otherDriverNodes` are nodes with stuck mounts of other drivers. Undefined when the DaemonSet has fewer than
 * two revisions (nothing rolled). O(plugin pods + pods on the plugin nodes).
 */
export function analyzeRollout(
  index: ClusterIndex,
  ds: DaemonSet,
  driver: string,
  findings: readonly StuckPodFinding[],
  otherDriverNodes: ReadonlySet<string>,
  opts: RolloutTestOptions = {},
): RolloutAnalysis | undefined {
  const revs = revisionsOf(index, ds);
  const newest = newestRevision(revs);
  if (revs.length < 2 || newest?.revision === undefined) return undefined;
  const newRev = newest.revision;
  const plugins = pluginPodsByNode(index, ds);
  const revisionByNode = new Map<string, number | undefined>();
  for (const [node, pod] of plugins) revisionByNode.set(node, revisionOfPod(index, ds, pod));
  const recovering = new Set(findings.filter((f) => f.node && isRecovering(f, plugins.get(f.node))));
  const evidenceFindings = findings.filter((f) => !recovering.has(f));
  const stuckNodes = new Set(evidenceFindings.map((f) => f.node).filter((n): n is string => !!n));
  const t = tally(index, driver, plugins, revisionByNode, newRev, stuckNodes);
  const complete = t.counts.oldFine + t.counts.oldStuck === 0;
  // revs is sorted by number, highest first: after `rollout undo` the restored (older) revision is highest.
  const rolledBack = revs[0] !== newest;
  // Only recovering pods left and the bad revision rolled back: the incident is rolling back, not over.
  const rollingBack = evidenceFindings.length === 0 && recovering.size > 0 && rolledBack;
  const fits = rollingBack || followsRollout(t.counts, complete, stuckNodes, otherDriverNodes, opts);
  const evidence = rolloutEvidence(
    { ds, driver, revs, newest, newRev, plugins, revisionByNode, recovering },
    t,
    rolledBack,
  );
  const runningBeforeOnNew = t.runningBeforeOnNew;
  return { evidence, fits, plugins, revisionByNode, recovering, rolledBack, complete, runningBeforeOnNew };
}

/**
 * The 2x2 verdict (see the file comment): new-revision nodes stuck, no old-revision node stuck, no proof the new
 * revision mounts, a control group left, and not a lone stuck node that is also stuck on another driver.
 */
function followsRollout(
  counts: RolloutCounts,
  complete: boolean,
  stuckNodes: ReadonlySet<string>,
  otherDriverNodes: ReadonlySet<string>,
  opts: RolloutTestOptions,
): boolean {
  // A pod that mounted under the new revision proves it mounts, not that it unmounts: no veto for unmount failures.
  const vetoed = !opts.unmount && (counts.newProven ?? 0) > 0;
  if (counts.newStuck === 0 || counts.oldStuck > 0 || vetoed) return false;
  // No node left on the previous revision: nothing to compare the new one with (a volume or backend that
  // fails everywhere looks the same), so the revision cannot be blamed; only an open incident sustains.
  if (complete) return false;
  const servedStuck = [...stuckNodes];
  return !(servedStuck.length === 1 && otherDriverNodes.has(servedStuck[0] ?? ''));
}

/**
 * Whether an incident already open under this rollout's key still follows the rollout: the weaker test that keeps
 * it one incident (hysteresis) until every member has recovered. Every stuck node that is evidence runs the new
 * revision and no other is stuck, or only recovering pods are left. The proven-mount veto and the rules of a
 * complete rollout decide whether to OPEN an incident, not whether one is over: a pod that mounts on a new-revision
 * node is one member recovering while the others are still stuck under the same plugin, and a thread that split
 * there would resolve with pods stuck and tell `/rwx drain` the rollout's nodes are safe.
 */
export function sustainsRollout(a: RolloutAnalysis): boolean {
  const c = a.evidence.counts;
  return (c.newStuck > 0 && c.oldStuck === 0) || (c.newStuck + c.oldStuck === 0 && a.recovering.size > 0);
}

/** The incident key of a rollout: `rollout/<namespace>/<daemonset>@<new revision>`. */
export function rolloutKey(ev: RolloutEvidence): string {
  return `rollout/${ev.daemonSet.namespace}/${ev.daemonSet.name}@${ev.newRevision}`;
}
