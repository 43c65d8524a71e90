// The node plugin pods of a DaemonSet, the ControllerRevision each runs, and their ages.
// Convention (COMMON.md): DaemonSet pods carry `controller-revision-hash: <hash>`; the revision object is named
// `<daemonset>-<hash>`, is owned by the DaemonSet's uid and carries a `revision` number.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { PluginOnNode } from '../domain/incident.js';
import type { ControllerRevision, DaemonSet, Pod } from '../domain/objects.js';
import { controllerOf, nsKey, timeMs } from '../domain/refs.js';
import { dsRef } from './plugin-finder.js';

const HASH_LABEL = 'controller-revision-hash';

/** The DaemonSet's ControllerRevisions, newest (highest revision) first. */
export function revisionsOf(index: ClusterIndex, ds: DaemonSet): ControllerRevision[] {
  const uid = ds.metadata?.uid;
  if (!uid) return [];
  return [...index.revisionsOwnedBy(uid)].sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0));
}

/** The revision number a DaemonSet pod runs, from its hash label; undefined when the revision is unknown. */
export function revisionOfPod(index: ClusterIndex, ds: DaemonSet, pod: Pod): number | undefined {
  const hash = pod.metadata?.labels?.[HASH_LABEL];
  if (!hash) return undefined;
  const byName = index.get('controllerRevisions', nsKey(ds.metadata?.namespace, `${ds.metadata?.name ?? ''}-${hash}`));
  if (byName?.revision !== undefined) return byName.revision;
  // Fall back to the label on the revisions themselves (names may be truncated for very long DaemonSet names).
  return revisionsOf(index, ds).find((r) => r.metadata?.labels?.[HASH_LABEL] === hash)?.revision;
}

/** Whether a pod is controlled by this DaemonSet (owner uid). */
export function ownedBy(pod: Pod, ds: DaemonSet): boolean {
  const uid = ds.metadata?.uid;
  return uid !== undefined && controllerOf(pod)?.uid === uid;
}

/** Describes a plugin pod as the node table shows it. */
export function describePlugin(index: ClusterIndex, ds: DaemonSet, pod: Pod, now: number): PluginOnNode {
  const out: PluginOnNode = { node: pod.spec?.nodeName ?? '', daemonSet: dsRef(ds), pod: pod.metadata?.name ?? '' };
  const rev = revisionOfPod(index, ds, pod);
  if (rev !== undefined) out.revision = rev;
  const created = timeMs(pod.metadata?.creationTimestamp);
  if (created !== undefined) {
    out.createdAt = new Date(created).toISOString();
    out.ageSeconds = Math.max(0, Math.floor((now - created) / 1000));
  }
  return out;
}

/**
 * The plugin pod serving a node: the DaemonSet's pod on that node, preferring one that is not being deleted
 * (during an update the old pod may linger Terminating next to its replacement). O(pods on the node).
 */
export function pluginPodOnNode(index: ClusterIndex, ds: DaemonSet, node: string): Pod | undefined {
  const pods = index.podsOnNode(node).filter((p) => ownedBy(p, ds));
  return pods.find((p) => !p.metadata?.deletionTimestamp) ?? pods[0];
}

/** The plugin on a node as a table row; `{node}` alone when the DaemonSet has no pod there. */
export function pluginOnNode(index: ClusterIndex, ds: DaemonSet, node: string, now: number): PluginOnNode {
  const pod = pluginPodOnNode(index, ds, node);
  return pod ? describePlugin(index, ds, pod, now) : { node, daemonSet: dsRef(ds) };
}

/** node -> plugin pod for every node the DaemonSet runs on (live pods preferred). O(pods of the DaemonSet). */
export function pluginPodsByNode(index: ClusterIndex, ds: DaemonSet): Map<string, Pod> {
  const out = new Map<string, Pod>();
  const uid = ds.metadata?.uid;
  if (!uid) return out;
  for (const p of index.podsOwnedBy(uid)) {
    const node = p.spec?.nodeName;
    if (!node) continue;
    const have = out.get(node);
    if (!have || (have.metadata?.deletionTimestamp && !p.metadata?.deletionTimestamp)) out.set(node, p);
  }
  return out;
}
