// Running consumers of a volume that cannot be mounted now: a drain evicts them, and wherever they land they must
// mount that volume again, so they move into the same failure. Drain advice says so (drain-caution.ts). Pure.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Incident } from '../domain/incident.js';
import { nsKey } from '../domain/refs.js';
import { claimOfVolume } from '../detect/storage-path.js';

/** A Running pod on the node whose claim a stuck pod of `incident` cannot mount. */
export interface MovedIntoFailure {
  pod: string;
  claim: string;
  incident: string;
}

/**
 * The claims ("namespace/name") that cannot be mounted now on any node, with the incident that says so: those of a
 * volume's fault (correlate/volume-fault.ts). A claim stuck only where a rollout or a node holds it still mounts
 * elsewhere, and the drain advice of those says where not to land. Built once per evaluation.
 */
export function unmountableClaims(incidents: readonly Incident[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const inc of incidents)
    for (const f of inc.key.startsWith('volume/') ? inc.pods : []) {
      if (f.kind !== 'stuck-creating' || f.cause !== 'storage') continue;
      for (const s of f.storage) if (s.claim) out.set(nsKey(s.claim.namespace, s.claim.name), inc.key);
    }
  return out;
}

/** The Running pods on `node` that use a claim in `claims` (unmountableClaims). Linear in the node's pods. */
export function runningConsumers(
  index: ClusterIndex,
  node: string,
  claims: ReadonlyMap<string, string>,
): MovedIntoFailure[] {
  if (claims.size === 0) return [];
  const out: MovedIntoFailure[] = [];
  for (const p of index.podsOnNode(node)) {
    if (p.status?.phase !== 'Running' || p.metadata?.deletionTimestamp) continue;
    for (const v of p.spec?.volumes ?? []) {
      const c = v ? claimOfVolume(p, v) : undefined;
      const key = c ? nsKey(p.metadata?.namespace, c) : undefined;
      const incident = key ? claims.get(key) : undefined;
      if (key && incident) out.push({ pod: nsKey(p.metadata?.namespace, p.metadata?.name), claim: key, incident });
    }
  }
  return out;
}
