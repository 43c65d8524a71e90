// `rwx gate --cleanup`: deletes what earlier runs left behind (killed with SIGKILL, node lost, API outage during
// the final deletes), found by the managed-by label in the gate's namespace.
import type { GateKube } from './kube.js';
import { MANAGED_BY, MANAGED_BY_LABEL, RUN_LABEL } from './plan.js';

/** What a cleanup did: "kind/name (run id)" deleted, and the ones whose delete failed with why. */
export interface CleanupReport {
  deleted: string[];
  failed: string[];
}

/** Deletes every gate pod, then every gate claim, in `namespace` (objects already being deleted are left alone). */
export async function cleanupLeftovers(kube: GateKube, namespace: string): Promise<CleanupReport> {
  const selector = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;
  const out: CleanupReport = { deleted: [], failed: [] };
  const pods = await kube.listPods(namespace, selector);
  const claims = await kube.listClaims(namespace, selector);
  const targets = [
    ...pods.map((o) => ({ kind: 'pod', o, del: (n: string) => kube.deletePod(namespace, n) })),
    ...claims.map((o) => ({ kind: 'persistentvolumeclaim', o, del: (n: string) => kube.deleteClaim(namespace, n) })),
  ];
  for (const { kind, o, del } of targets) {
    if (o.metadata?.deletionTimestamp) continue;
    const name = o.metadata?.name ?? '';
    const label = `${kind}/${name} (run ${o.metadata?.labels?.[RUN_LABEL] ?? '?'})`;
    try {
      await del(name);
      out.deleted.push(label);
    } catch (e) {
      out.failed.push(`${label}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return out;
}
