// From node reports to an incident's proof: which nodes to ask, and what their reports prove about the incident
// (its driver, its node plugin pods). Pure: the reports come in through `stateOf`, fetched by the serve pipeline.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Incident } from '../domain/incident.js';
import type { NodeFinding } from '../domain/node-report.js';
import { MAX_PROOF_NODES, type IncidentProof, type NodeReportState } from '../domain/proof.js';
import { nsKey } from '../domain/refs.js';
import { mountOptionDifferences } from '../detect/mount-options.js';
import { nodeFindings } from '../detect/node-findings.js';

/** Mount points kept per PROPAGATION_LOST finding (the count is always complete): the record stays small. */
const MOUNT_POINTS_KEPT = 5;

/** The nodes whose agents an incident asks: its nodes with stuck pods, in order, at most MAX_PROOF_NODES. */
export function proofNodes(incident: Incident): { nodes: string[]; omitted: number } {
  if (incident.verdict === 'NOT_STORAGE') return { nodes: [], omitted: 0 };
  const all = incident.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node);
  return { nodes: all.slice(0, MAX_PROOF_NODES), omitted: Math.max(0, all.length - MAX_PROOF_NODES) };
}

/** Which node plugin pod runs on a node now: its uid, and when it was created (epoch ms), each when known. */
export interface PluginNow {
  uid?: string;
  startedAt?: number;
}

/**
 * The reason a report cannot stand as proof about the node plugin running now: it was read before that pod was
 * created (the plugin was replaced since, e.g. by a rollback), so what it says of mount namespaces is the old
 * pod's. Undefined when the report is not older than the pod, or the pod's start is unknown.
 */
export function staleReportReason(at: number, plugin: PluginNow | undefined): string | undefined {
  if (plugin?.startedAt === undefined || at >= plugin.startedAt) return undefined;
  return 'its last report is from before the node plugin pod now running started: asked again';
}

/** What the agents prove about `nodes`, scoped to `driver` when known; `pluginOf` names each node plugin pod. */
export function buildProof(
  nodes: readonly string[],
  stateOf: (node: string) => NodeReportState,
  scope: { driver?: string; omitted?: number; pluginOf?: (node: string) => PluginNow | undefined } = {},
): IncidentProof {
  const proof: IncidentProof = {
    nodes: [...nodes],
    omittedNodes: scope.omitted ?? 0,
    noAgent: [],
    pending: [],
    findings: [],
  };
  const reports = [];
  for (const node of nodes) {
    const s = stateOf(node);
    if (s.kind === 'no-agent') proof.noAgent.push(node);
    else if (s.kind === 'pending') proof.pending.push(node);
    else if (s.kind === 'unavailable')
      proof.findings.push({ kind: 'PROOF_UNAVAILABLE', node, check: 'report', reason: s.reason });
    else {
      const plugin = scope.pluginOf?.(node);
      const stale = staleReportReason(s.at, plugin);
      if (stale) {
        proof.findings.push({ kind: 'PROOF_UNAVAILABLE', node, check: 'report', reason: stale });
        (proof.askAgain ??= []).push(node);
        continue;
      }
      reports.push(s.report);
      const pluginPodUid = plugin?.uid;
      const found = nodeFindings(s.report, {
        node,
        ...(scope.driver ? { driver: scope.driver } : {}),
        ...(pluginPodUid ? { pluginPodUid } : {}),
      });
      proof.findings.push(...found.map(trimmed));
    }
  }
  proof.findings.push(...mountOptionDifferences(reports, scope.driver ? { driver: scope.driver } : {}));
  if (reports.some((r) => r.simulated)) proof.simulated = true;
  return proof;
}

/** The proof for an incident from what the agents said; undefined when it has no node to ask. */
export function incidentProof(
  index: ClusterIndex,
  incident: Incident,
  stateOf: (node: string) => NodeReportState,
): IncidentProof | undefined {
  const { nodes, omitted } = proofNodes(incident);
  if (nodes.length === 0) return undefined;
  const rows = new Map(incident.nodes.map((n) => [n.node, n.plugin]));
  const pluginOf = (node: string): PluginNow | undefined => {
    const p = rows.get(node);
    if (!p?.pod || !p.daemonSet) return undefined;
    const meta = index.get('pods', nsKey(p.daemonSet.namespace, p.pod))?.metadata;
    const startedAt = Date.parse(meta?.creationTimestamp ?? '');
    return { ...(meta?.uid ? { uid: meta.uid } : {}), ...(Number.isFinite(startedAt) ? { startedAt } : {}) };
  };
  return buildProof(nodes, stateOf, { ...(incident.driver ? { driver: incident.driver } : {}), omitted, pluginOf });
}

function trimmed(f: NodeFinding): NodeFinding {
  return f.kind === 'PROPAGATION_LOST' ? { ...f, mountPoints: f.mountPoints.slice(0, MOUNT_POINTS_KEPT) } : f;
}
