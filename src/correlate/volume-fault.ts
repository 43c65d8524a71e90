// A fault of one volume: every stuck consumer of one claim fails, on two or more nodes, while each of those nodes
// mounts other volumes of the same driver right now (a pod with one started there since the node plugin did). Then
// neither the nodes nor the plugin revision differ: the volume does (its export, permissions, backend). One incident
// about the volume, `volume/<namespace>/<claim>`, taken out before the rollout and node tests, which would
// otherwise blame a revision or nodes for it; draining any node does nothing for it. Pure.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { DaemonSet } from '../domain/objects.js';
import { mountedSincePlugin } from './rollout-mounts.js';

/** The claim ("namespace/name") a stuck pod's blamed storage names first, if any. */
function claimOf(f: StuckPodFinding): string | undefined {
  const c = f.storage.find((s) => s.claim)?.claim;
  return c ? `${c.namespace}/${c.name}` : undefined;
}

/**
 * The stuck pods of `fs` (one driver's, stuck creating) that are a volume's fault, by claim, and the rest. A claim
 * qualifies when its stuck pods are on two or more nodes and every one of those nodes mounts the driver fine.
 */
export function splitVolumeFaults(
  index: ClusterIndex,
  ds: DaemonSet | undefined,
  driver: string,
  fs: readonly StuckPodFinding[],
): { byClaim: Map<string, StuckPodFinding[]>; rest: StuckPodFinding[] } {
  const byClaim = new Map<string, StuckPodFinding[]>();
  if (!ds) return { byClaim, rest: [...fs] };
  const claims = new Map<string, StuckPodFinding[]>();
  for (const f of fs) {
    const c = claimOf(f);
    if (c) claims.set(c, [...(claims.get(c) ?? []), f]);
  }
  const fine = new Map<string, boolean>();
  const mountsFine = (node: string): boolean => {
    if (!fine.has(node)) fine.set(node, mountedSincePlugin(index, ds, driver, node).length > 0);
    return fine.get(node)!;
  };
  for (const [claim, pods] of claims) {
    const nodes = [...new Set(pods.map((f) => f.node ?? ''))];
    if (nodes.length >= 2 && nodes.every((n) => n && mountsFine(n))) byClaim.set(claim, pods);
  }
  const taken = new Set([...byClaim.values()].flat());
  return { byClaim, rest: fs.filter((f) => !taken.has(f)) };
}
