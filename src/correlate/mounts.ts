// Mount facts about a node read from the cluster cache: which drivers a pod's claims use, and whether a node has
// mounted a driver's volume since its plugin pod started (the only proof that the current plugin mounts).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Pod } from '../domain/objects.js';
import { containersStartedAt } from '../domain/pod-times.js';
import { nsKey } from '../domain/refs.js';
import { claimOfVolume } from '../detect/storage-path.js';

/** The CSI drivers behind a pod's claims (bound PV's csi.driver). O(volumes of the pod). */
export function driversOfPod(index: ClusterIndex, pod: Pod): Set<string> {
  const out = new Set<string>();
  const ns = pod.metadata?.namespace;
  for (const v of pod.spec?.volumes ?? []) {
    const claim = v ? claimOfVolume(pod, v) : undefined;
    if (!claim) continue;
    const pvName = index.get('pvcs', nsKey(ns, claim))?.spec?.volumeName;
    const driver = pvName ? index.get('pvs', pvName)?.spec?.csi?.driver : undefined;
    if (driver) out.add(driver);
  }
  return out;
}

/**
 * Running pods on `node` using `driver` volumes, split by whether their containers started after `since` (the
 * plugin pod's creation): `after` pods prove the current plugin mounts; `before` pods only show that mounts made
 * earlier survive (workloads already running are unaffected by a propagation loss). O(pods on the node).
 */
export function runningWithDriver(
  index: ClusterIndex,
  node: string,
  driver: string,
  since: number | undefined,
): { after: Pod[]; before: Pod[] } {
  const after: Pod[] = [];
  const before: Pod[] = [];
  for (const pod of index.podsOnNode(node)) {
    if (pod.status?.phase !== 'Running' || pod.metadata?.deletionTimestamp) continue;
    if (!driversOfPod(index, pod).has(driver)) continue;
    const started = containersStartedAt(pod);
    if (since !== undefined && started !== undefined && started > since) after.push(pod);
    else before.push(pod);
  }
  return { after, before };
}
