// Whether a node plugin demonstrably mounts a driver's volumes: on another node running the same revision
// (revisionProvenElsewhere), or on the node itself since its current plugin pod started (mountedSincePlugin).
// The node rules read these to tell a node's own fault from its plugin's; the rollout test counts the same proof
// per node in its tally (rollout-evidence.ts).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { DaemonSet } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';
import { runningWithDriver } from './mounts.js';
import { pluginPodsByNode, revisionOfPod } from './plugin-revision.js';

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

/**
 * The pods ("namespace/name") running on `node` with this driver's volume that started after the node's current
 * plugin pod: the node demonstrably mounts this driver now. Empty when no plugin pod of `ds` serves the node.
 */
export function mountedSincePlugin(index: ClusterIndex, ds: DaemonSet, driver: string, node: string): string[] {
  const plugin = pluginPodsByNode(index, ds).get(node);
  if (!plugin) return [];
  return runningWithDriver(index, node, driver, timeMs(plugin.metadata?.creationTimestamp)).after.map(
    (p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`,
  );
}
