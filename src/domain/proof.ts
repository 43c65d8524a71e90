// Proof from the nodes: what the opt-in node agents (docs/agent.md) say about an incident's nodes, next to what
// the correlation concluded from the API. The serve pipeline asks the agents; the correlate layer turns their
// reports into an IncidentProof; the renderers state it. When no agent can be asked, it says so: the proof is
// unavailable, never "fine".
import type { AgentReport, NodeFinding } from './node-report.js';

/** The most nodes of one incident whose agents are asked (the first ones with stuck pods). */
export const MAX_PROOF_NODES = 20;

/** How to enable the agent, in one line: said wherever the proof is unavailable because no agent runs. */
export const AGENT_ENABLE_HINT = [
  'the node agent is opt-in: kubectl apply -k deploy/overlays/socket-mode-agent,',
  'add deploy/components/agent to your overlay, or set agent.enabled=true in the Helm chart (docs/agent.md)',
].join(' ');

/** The nodes of a proof sentence: the first five, then how many more. */
export function proofNodeList(nodes: readonly string[], max = 5): string {
  return nodes.slice(0, max).join(', ') + (nodes.length > max ? ` and ${nodes.length - max} more` : '');
}

/**
 * The one sentence said wherever the proof is unavailable because no agent runs: on `nodes`, or on any node when
 * none is given. Plain text: escape it for where it goes.
 */
export function noAgentText(nodes: readonly string[] = []): string {
  const where = nodes.length > 0 ? proofNodeList(nodes) : 'any node';
  return `proof unavailable: no rwx agent runs on ${where}; ${AGENT_ENABLE_HINT}`;
}

/** Whether the proof asked nodes and none of them runs an agent (undefined: no node to ask). */
export function noAgentAnywhere(proof: IncidentProof | undefined): boolean {
  return proof !== undefined && proof.nodes.length > 0 && proof.noAgent.length === proof.nodes.length;
}

/** What the bot knows of one node's report right now. */
export type NodeReportState =
  | { kind: 'report'; report: AgentReport; at: number }
  | { kind: 'unavailable'; reason: string; at: number }
  | { kind: 'no-agent' }
  | { kind: 'pending' };

/** What the node agents say about an incident's nodes. */
export interface IncidentProof {
  /** The nodes asked, in the incident's order (at most MAX_PROOF_NODES). */
  nodes: string[];
  /** Nodes beyond MAX_PROOF_NODES, not asked. */
  omittedNodes: number;
  /** Nodes where no agent pod runs. */
  noAgent: string[];
  /** Nodes whose report has not arrived yet (first request in flight). */
  pending: string[];
  /**
   * What the reports prove, node by node (PROPAGATION_LOST / PROPAGATION_VISIBLE, ORPHANED_STAGE, mount options
   * that differ), and PROOF_UNAVAILABLE for a node whose agent could not be read (check "report") or could not
   * read part of the node.
   */
  findings: NodeFinding[];
  /** Any report came from the demo's simulated agent. */
  simulated?: true;
  /**
   * Nodes whose last report was read before their node plugin pod now running started (stale: not proof): the
   * pipeline asks them again at once, whatever the age of its cached answer.
   */
  askAgain?: string[];
}

/** A finding's identity: what must change for it to be news (counts of hidden mounts, not reasons or times). */
export function findingKey(f: NodeFinding): string {
  switch (f.kind) {
    case 'PROPAGATION_LOST':
      return `lost:${f.node}:${f.mounts}`;
    case 'PROPAGATION_VISIBLE':
      return `visible:${f.node}`;
    case 'ORPHANED_STAGE':
      return `orphaned:${f.node}:${f.volume}`;
    case 'PROOF_UNAVAILABLE':
      return `unavailable:${f.node}:${f.check}`;
    case 'MOUNT_OPTIONS_DIFFER':
      return `options:${f.volume}:${f.option}:${f.value}:${f.nodes.join(',')}`;
  }
}

/** What a proof states, as sorted keys (pending nodes left out: asking is not news). For hashes and change replies. */
export function proofKeys(proof: IncidentProof | undefined): string[] {
  if (!proof) return [];
  return [...proof.findings.map(findingKey), ...proof.noAgent.map((n) => `no-agent:${n}`)].sort();
}

/**
 * What the node agents answered for a triage or a drain check: per node whose agent was asked, its state (a node
 * missing from `states` has no agent); or why none was asked (a snapshot, the agent pods unreadable).
 */
export type NodeReports =
  { kind: 'asked'; states: ReadonlyMap<string, NodeReportState> } | { kind: 'not-asked'; reason: string };

/** The state of `node` in `reports`: no agent when its agent was not asked. */
export function reportStateOf(reports: Extract<NodeReports, { kind: 'asked' }>, node: string): NodeReportState {
  return reports.states.get(node) ?? { kind: 'no-agent' };
}
