// Incident members as tables: the node rows (node | plugin revision | plugin age | stuck pods, plus the running
// pods of the same workloads) and the affected workloads by namespace and owner.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { CronJobFinding, StuckPodFinding } from '../domain/findings.js';
import type { AffectedWorkload, IncidentNode, PluginOnNode } from '../domain/incident.js';
import { controllerOf, nsKey } from '../domain/refs.js';

/** "namespace/name" of a stuck pod finding. */
export function memberKey(f: StuckPodFinding): string {
  return nsKey(f.pod.namespace, f.pod.name);
}

/**
 * Node rows: every node with stuck pods first (by name), then nodes where pods of the same workloads run
 * (e.g. the search pods running on node-02, node-08, node-14: all on the old revision). `plugin` describes the node
 * plugin on a node, if any. O(stuck pods + their sibling pods).
 */
export function nodeRows(
  index: ClusterIndex,
  pods: readonly StuckPodFinding[],
  plugin: (node: string) => PluginOnNode | undefined,
): IncidentNode[] {
  const stuck = new Map<string, string[]>();
  for (const f of pods) {
    const node = f.node ?? '(unscheduled)';
    const list = stuck.get(node) ?? [];
    list.push(memberKey(f));
    stuck.set(node, list);
  }
  const running = new Map<string, string[]>();
  const seenOwners = new Set<string>();
  for (const f of pods) {
    const pod = index.get('pods', memberKey(f));
    const owner = pod ? controllerOf(pod)?.uid : undefined;
    if (!owner || seenOwners.has(owner)) continue;
    seenOwners.add(owner);
    for (const s of index.podsOwnedBy(owner)) {
      if (s.status?.phase !== 'Running' || s.metadata?.deletionTimestamp || !s.spec?.nodeName) continue;
      const list = running.get(s.spec.nodeName) ?? [];
      list.push(nsKey(s.metadata?.namespace, s.metadata?.name));
      running.set(s.spec.nodeName, list);
    }
  }
  const row = (node: string): IncidentNode => {
    const r: IncidentNode = { node, stuckPods: (stuck.get(node) ?? []).sort() };
    const p = plugin(node);
    if (p) r.plugin = p;
    const run = running.get(node);
    if (run) r.runningPods = run.sort();
    return r;
  };
  return [
    ...[...stuck.keys()].sort().map(row),
    ...[...running.keys()]
      .filter((n) => !stuck.has(n))
      .sort()
      .map(row),
  ];
}

/** Affected workloads (kind, namespace, name) with their stuck pods; CronJobs listed even without a stuck pod. */
export function workloadRows(
  pods: readonly StuckPodFinding[],
  cronJobs: readonly CronJobFinding[],
): AffectedWorkload[] {
  const byKey = new Map<string, AffectedWorkload>();
  for (const f of pods) {
    const k = `${f.workload.namespace}/${f.workload.kind}/${f.workload.name}`;
    const w = byKey.get(k) ?? { ...f.workload, pods: [] };
    w.pods.push(memberKey(f));
    byKey.set(k, w);
  }
  for (const c of cronJobs) {
    const k = `${c.cronJob.namespace}/CronJob/${c.cronJob.name}`;
    if (!byKey.has(k)) byKey.set(k, { kind: 'CronJob', ...c.cronJob, pods: [] });
  }
  return [...byKey.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, w]) => ({ ...w, pods: w.pods.sort() }));
}
