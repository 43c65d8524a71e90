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

/** What the agents prove about `nodes`, scoped to `driver` when known; `pluginUidOf` names each node plugin pod. */
export function buildProof(
  nodes: readonly string[],
  stateOf: (node: string) => NodeReportState,
  scope: { driver?: string; omitted?: number; pluginUidOf?: (node: string) => string | undefined } = {},
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
      reports.push(s.report);
      const pluginPodUid = scope.pluginUidOf?.(node);
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
  const pluginUidOf = (node: string): string | undefined => {
    const p = rows.get(node);
    if (!p?.pod || !p.daemonSet) return undefined;
    return index.get('pods', nsKey(p.daemonSet.namespace, p.pod))?.metadata?.uid ?? undefined;
  };
  return buildProof(nodes, stateOf, { ...(incident.driver ? { driver: incident.driver } : {}), omitted, pluginUidOf });
}

function trimmed(f: NodeFinding): NodeFinding {
  return f.kind === 'PROPAGATION_LOST' ? { ...f, mountPoints: f.mountPoints.slice(0, MOUNT_POINTS_KEPT) } : f;
}
