// What the node agents add to a triage (docs/agent.md). Before the claims are classified, readProof sorts the
// agents' answers: orphaned staged volumes by PV (classify-strands.ts makes one STALE_ATTACHMENT evidence of the claim
// bound to that PV when no consumer pod of the claim runs on its node). After, proofSection states the findings
// of their own (mount options that differ between nodes for one volume, orphaned stages of volumes no triaged
// claim names) and where the proof is unavailable, with how to enable it. Pure: the answers come in as
// NodeReports, asked by `rwx triage` or the bot.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { AgentReport, NodeFinding } from '../domain/node-report.js';
import { noAgentText, type NodeReports } from '../domain/proof.js';
import { mountOptionDifferences } from '../detect/mount-options.js';
import { findingText, nodeFindings } from '../detect/node-findings.js';
import type { ClaimReport, NodeProofSection, StageEvidence } from './types.js';

/** The most sentences about agents that did not answer a report lists; the rest are counted. */
const MAX_UNAVAILABLE = 10;

/** When no NodeReports are given: why the proof is unavailable. */
const NOT_ASKED = 'the node agents were not asked';

/** The agents' answers for one triage, sorted once. */
export interface TriageProof {
  input: NodeReports;
  /** Orphaned staged volumes by volume (the PV name when the agent knows it). */
  orphansByPv: ReadonlyMap<string, readonly StageEvidence[]>;
  reports: AgentReport[];
  /** Nodes whose agent could not be read, or could not read the staged volumes or mount options. */
  unreadable: NodeFinding[];
}

/** Sorts the agents' answers (see the file comment); linear in the reports' staged volumes. */
export function readProof(input: NodeReports = { kind: 'not-asked', reason: NOT_ASKED }): TriageProof {
  const orphans = new Map<string, StageEvidence[]>();
  const proof: TriageProof = { input, orphansByPv: orphans, reports: [], unreadable: [] };
  if (input.kind === 'not-asked') return proof;
  for (const [node, state] of input.states) {
    if (state.kind === 'report') {
      proof.reports.push(state.report);
      for (const f of nodeFindings(state.report, { node })) {
        if (f.kind === 'ORPHANED_STAGE') {
          const stage: StageEvidence = { node, path: f.path, podUids: f.podUids, text: findingText(f) };
          if (f.driver) stage.driver = f.driver;
          orphans.set(f.volume, [...(orphans.get(f.volume) ?? []), stage]);
        } else if (f.kind === 'PROOF_UNAVAILABLE' && f.check !== 'propagation') proof.unreadable.push(f);
      }
    } else if (state.kind !== 'no-agent') {
      const reason = state.kind === 'unavailable' ? state.reason : 'the agent did not answer in time';
      proof.unreadable.push({ kind: 'PROOF_UNAVAILABLE', node, check: 'report', reason });
    }
  }
  return proof;
}

/** Which claims and drivers the triage covers. */
export interface ProofScope {
  namespace?: string | undefined;
  driver?: string | undefined;
}

/** The report's node proof section, once the claims are classified (see the file comment). */
export function proofSection(
  index: ClusterIndex,
  proof: TriageProof,
  claims: readonly ClaimReport[],
  scope: ProofScope,
): NodeProofSection {
  const input = proof.input;
  const section: NodeProofSection = {
    status: proof.reports.length > 0 ? 'available' : 'unavailable',
    nodesAsked: input.kind === 'asked' ? input.states.size : 0,
    reports: proof.reports.length,
    findings: [],
    unavailable: [],
  };
  if (input.kind === 'not-asked') {
    section.unavailable.push(`proof unavailable: ${input.reason}`);
    return section;
  }
  if (input.states.size === 0) section.unavailable.push(noAgentText());
  else {
    const noAgent = attentionNodes(claims).filter((n) => !input.states.has(n));
    if (noAgent.length > 0) section.unavailable.push(noAgentText(noAgent));
  }
  const unreadable = proof.unreadable.map(findingText);
  section.unavailable.push(...unreadable.slice(0, MAX_UNAVAILABLE));
  if (unreadable.length > MAX_UNAVAILABLE)
    section.unavailable.push(`...and ${unreadable.length - MAX_UNAVAILABLE} more the agents could not read`);

  const claimOf = (volume: string): string | null => {
    const ref = index.get('pvs', volume)?.spec?.claimRef;
    return ref?.namespace && ref.name ? `${ref.namespace}/${ref.name}` : null;
  };
  // Under a namespace filter, only volumes known to belong to a claim of that namespace.
  const inScope = (claim: string | null) => !scope.namespace || claim?.startsWith(`${scope.namespace}/`) === true;
  const drv = scope.driver ? { driver: scope.driver } : {};
  for (const f of mountOptionDifferences(proof.reports, drv)) {
    if (f.kind !== 'MOUNT_OPTIONS_DIFFER') continue;
    const claim = claimOf(f.volume);
    if (inScope(claim))
      section.findings.push({ kind: f.kind, volume: f.volume, claim, nodes: f.nodes, text: findingText(f) });
  }
  const triaged = new Set(claims.map((c) => c.volume));
  for (const [volume, stages] of proof.orphansByPv) {
    if (triaged.has(volume)) continue; // the claim's own evidence (or a pod of it is starting or stopping there)
    const claim = claimOf(volume);
    for (const s of stages) {
      if (!inScope(claim) || (scope.driver && s.driver && s.driver !== scope.driver)) continue;
      section.findings.push({ kind: 'ORPHANED_STAGE', volume, claim, nodes: [s.node], text: s.text });
    }
  }
  return section;
}

/** The nodes the claims needing attention name (their evidence's nodes and pods), sorted. */
function attentionNodes(claims: readonly ClaimReport[]): string[] {
  const nodes = new Set<string>();
  for (const c of claims) {
    if (!c.needsAttention) continue;
    for (const n of c.evidence.nodes) nodes.add(n.name);
    for (const p of c.evidence.pods) if (p.node) nodes.add(p.node);
  }
  return [...nodes].sort();
}
