// Stale VolumeAttachments on a node, for the drain advice's CAUTION (drain-caution.ts): attachments a drain will not
// release and that keep the pods it moves from attaching their volumes elsewhere. Read-only, pure.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { VolumeAttachment } from '../domain/objects.js';
import { nsKey, timeMs } from '../domain/refs.js';
import { claimOfVolume, holdsVolumes } from '../detect/storage-path.js';

/**
 * VolumeAttachments on the node that look stale: a detach error, a deletion pending for longer than
 * `staleAfterMs`, or attached for longer than that with no pod on the node using the volume's claim.
 */
export function staleAttachments(
  index: ClusterIndex,
  node: string,
  now: number,
  staleAfterMs: number,
): VolumeAttachment[] {
  const inUse = claimInUse(index, node);
  return index.attachmentsOnNode(node).filter((va) => {
    if (va.status?.detachError) return true;
    const deleted = timeMs(va.metadata?.deletionTimestamp);
    if (deleted !== undefined) return now - deleted > staleAfterMs;
    const created = timeMs(va.metadata?.creationTimestamp);
    if (!va.status?.attached || created === undefined || now - created <= staleAfterMs) return false;
    const pv = va.spec?.source?.persistentVolumeName;
    const ref = pv ? index.get('pvs', pv)?.spec?.claimRef : undefined;
    return !ref || !inUse(ref.namespace, ref.name);
  });
}

/**
 * Whether a pod on `node` that still holds its volumes uses claim `namespace/name`. The claim's own pods first (the
 * index by claim: a few pods, where the node has tens); the pods on the node are read only when none of them is
 * there, once per node, since a generic ephemeral volume's claim is not in that index.
 */
function claimInUse(
  index: ClusterIndex,
  node: string,
): (namespace: string | undefined, name: string | undefined) => boolean {
  let onNode: Set<string> | undefined;
  return (namespace, name) => {
    const users = name ? index.podsUsingClaim(namespace ?? '', name) : [];
    if (users.some((p) => p.spec?.nodeName === node && holdsVolumes(p))) return true;
    onNode ??= claimsOnNode(index, node);
    return onNode.has(nsKey(namespace, name));
  };
}

/** The claims ("namespace/name") that pods on `node` holding their volumes use, generic ephemeral ones included. */
function claimsOnNode(index: ClusterIndex, node: string): Set<string> {
  const claims = new Set<string>();
  for (const p of index.podsOnNode(node)) {
    if (!holdsVolumes(p)) continue; // a finished pod being deleted still holds its volume
    for (const v of p.spec?.volumes ?? []) {
      const c = v ? claimOfVolume(p, v) : undefined;
      if (c) claims.add(nsKey(p.metadata?.namespace, c));
    }
  }
  return claims;
}
