// Incident members as tables: the node rows (node | plugin revision | plugin age | stuck pods, plus the running
// pods of the same workloads) and the affected workloads by namespace and owner.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { CronJobFinding, StuckPodFinding } from '../domain/findings.js';
import type { AffectedWorkload, IncidentNode, PluginOnNode } from '../domain/incident.js';
import { controllerOf, nsKey } from '../domain/refs.js';
import { finish, type Steps } from '../domain/steps.js';
import { workloadReadiness } from './readiness.js';

/** "namespace/name" of a stuck pod finding. */
export function memberKey(f: StuckPodFinding): string {
  return nsKey(f.pod.namespace, f.pod.name);
}

/** Stuck pods, sibling pods or node rows handled between two steps of nodeRowsSteps. */
const PER_STEP = 500;

/**
 * Node rows: every node with stuck pods first (by name), then nodes where pods of the same workloads run
 * (in scenarios/propagation-loss.yaml, the search pods on node-02, node-08, node-14: all on the old revision). `plugin` describes the node
 * plugin on a node, if any. O(stuck pods + their sibling pods).
 */
export function nodeRows(
  index: ClusterIndex,
  pods: readonly StuckPodFinding[],
  plugin: (node: string) => PluginOnNode | undefined,
): IncidentNode[] {
  return finish(nodeRowsSteps(index, pods, plugin));
}

/** nodeRows() in steps (domain/steps.ts): one every PER_STEP pods or rows. */
export function* nodeRowsSteps(
  index: ClusterIndex,
  pods: readonly StuckPodFinding[],
  plugin: (node: string) => PluginOnNode | undefined,
): Steps<IncidentNode[]> {
  const keys = pods.map(memberKey);
  const stuck = new Map<string, string[]>();
  pods.forEach((f, i) => {
    const node = f.node ?? '(unscheduled)';
    const list = stuck.get(node);
    if (list) list.push(keys[i] as string);
    else stuck.set(node, [keys[i] as string]);
  });
  const running = new Map<string, string[]>();
  const seenOwners = new Set<string>();
  let n = 0;
  for (const key of keys) {
    if (++n % PER_STEP === 0) yield;
    const pod = index.get('pods', key);
    const owner = pod ? controllerOf(pod)?.uid : undefined;
    if (!owner || seenOwners.has(owner)) continue;
    seenOwners.add(owner);
    for (const s of index.podsOwnedBy(owner)) {
      if (++n % PER_STEP === 0) yield;
      if (s.status?.phase !== 'Running' || s.metadata?.deletionTimestamp || !s.spec?.nodeName) continue;
      const list = running.get(s.spec.nodeName);
      const k = nsKey(s.metadata?.namespace, s.metadata?.name);
      if (list) list.push(k);
      else running.set(s.spec.nodeName, [k]);
    }
  }
  const rows: IncidentNode[] = [];
  const order = [...[...stuck.keys()].sort(), ...[...running.keys()].filter((node) => !stuck.has(node)).sort()];
  for (const node of order) {
    if (++n % PER_STEP === 0) yield;
    const r: IncidentNode = { node, stuckPods: (stuck.get(node) ?? []).sort() };
    const p = plugin(node);
    if (p) r.plugin = p;
    const run = running.get(node);
    if (run) r.runningPods = run.sort();
    rows.push(r);
  }
  return rows;
}

/**
 * Affected workloads (kind, namespace, name) with their stuck pods and their readiness (readiness.ts); CronJobs
 * listed even without a stuck pod.
 */
export function workloadRows(
  index: ClusterIndex,
  pods: readonly StuckPodFinding[],
  cronJobs: readonly CronJobFinding[],
): AffectedWorkload[] {
  const byKey = new Map<string, AffectedWorkload>();
  const owners = new Map<string, string>();
  for (const f of pods) {
    const k = `${f.workload.namespace}/${f.workload.kind}/${f.workload.name}`;
    const w = byKey.get(k) ?? { ...f.workload, pods: [] };
    w.pods.push(memberKey(f));
    byKey.set(k, w);
    const pod = owners.has(k) ? undefined : index.get('pods', memberKey(f));
    const uid = pod ? controllerOf(pod)?.uid : undefined;
    if (uid) owners.set(k, uid);
  }
  for (const c of cronJobs) {
    const k = `${c.cronJob.namespace}/CronJob/${c.cronJob.name}`;
    if (!byKey.has(k)) byKey.set(k, { kind: 'CronJob', ...c.cronJob, pods: [] });
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, w]) => {
      const readiness = workloadReadiness(index, w, owners.get(k));
      return { ...w, pods: w.pods.sort(), ...(readiness ? { readiness } : {}) };
    });
}
