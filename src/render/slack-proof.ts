// The proof from the nodes in Slack: what the node agents say about an incident's nodes, in the root (a few
// lines under the verdict), the evidence reply (every line), a change reply (the lines that are new), and the
// resolution (the nodes checked again: are the mounts visible from the host now?). The wording of each finding is
// findingText's; lines hold strings from the node (process names, paths), so every one is escaped here.
import type { DrainAdvice } from '../domain/incident.js';
import type { NodeFinding } from '../domain/node-report.js';
import { findingKey, proofNodeList, type IncidentProof } from '../domain/proof.js';
import { findingText } from '../detect/node-findings.js';
import { staleStageSteps, staleStageText } from '../advise/stale-stage.js';
import { escapeSlack } from './escape.js';
import { type Block, listSection, plural } from './slack-blocks.js';

/**
 * That proof from the nodes is possible, and how (mrkdwn): said in /rwx help, in docs/agent.md and once per channel,
 * in the first thread whose nodes run no agent (steps/post-reply.ts), not in every incident root. A root only says
 * "Proof: no agent on these nodes" where none runs.
 */
export const PROOF_LINE =
  'Proof from the nodes is opt-in: the rwx node agent (a read-only DaemonSet, `agent.enabled=true` in the chart; ' +
  'docs/agent.md) shows CSI mounts the host cannot see and volumes still staged with no pod. Without it, answers ' +
  'say "no agent on these nodes".';

/** Said after every title built from a simulated agent's report. */
const SIMULATED = ' (SIMULATED agent: demo data, not read from a node)';

/** Nodes whose stale stages the evidence reply spells out; the rest are counted. */
const STALE_NODES = 3;

// Most telling first: what is proven broken, then what could not be checked, then what is fine.
const ORDER: Record<NodeFinding['kind'], number> = {
  PROPAGATION_LOST: 0,
  ORPHANED_STAGE: 1,
  MOUNT_OPTIONS_DIFFER: 2,
  PROOF_UNAVAILABLE: 3,
  PROPAGATION_VISIBLE: 4,
};

/**
 * The nodes whose agent answered with a report that stands (not without an agent, not pending, not unavailable:
 * an agent that did not answer, or whose report predates the plugin pod now running, checked nothing).
 */
function answeredNodes(proof: IncidentProof): number {
  const unavailable = proof.findings.filter((f) => f.kind === 'PROOF_UNAVAILABLE' && f.check === 'report').length;
  return proof.nodes.length - proof.noAgent.length - proof.pending.length - unavailable;
}

/** The title of the proof: what it proves, in one phrase (mrkdwn, escaped). */
export function proofTitle(proof: IncidentProof): string {
  const lost = proof.findings.filter((f) => f.kind === 'PROPAGATION_LOST').length;
  const checked = answeredNodes(proof);
  const sim = proof.simulated ? SIMULATED : '';
  if (lost > 0)
    return `*Proof from the nodes: propagation lost on ${lost} of ${plural(checked, 'node')} checked*${sim}`;
  if (checked === 0 && proof.pending.length === 0) return '*Proof from the nodes: unavailable*';
  return `*Proof from the nodes*${sim}`;
}

/** Every line of the proof, most telling first (escaped). */
export function proofLines(proof: IncidentProof): string[] {
  const findings = [...proof.findings].sort((a, b) => ORDER[a.kind] - ORDER[b.kind]);
  const lines = findings.map((f) => `• ${escapeSlack(findingText(f))}`);
  if (proof.noAgent.length > 0) lines.push(`• ${noAgentLine(proof.noAgent)}`);
  if (proof.pending.length > 0) lines.push(`• asking the agents on ${escapeSlack(proofNodeList(proof.pending))}`);
  if (proof.omittedNodes > 0) lines.push(`• ${plural(proof.omittedNodes, 'more node')} with stuck pods not asked`);
  return lines;
}

/**
 * The root's one line of proof (mrkdwn, escaped), undefined without a proof: what the agents proved, or "no agent
 * on these nodes" (how to install one is said in /rwx help and docs/agent.md, not in every root).
 */
export function proofRootLine(proof: IncidentProof | undefined): string | undefined {
  if (!proof) return undefined;
  const lost = proof.findings.filter((f) => f.kind === 'PROPAGATION_LOST').length;
  const visible = proof.findings.filter((f) => f.kind === 'PROPAGATION_VISIBLE').length;
  const checked = answeredNodes(proof);
  const sim = proof.simulated ? ' (simulated agent)' : '';
  if (lost > 0) return `*Proof:* propagation lost on ${lost} of ${plural(checked, 'node')} checked${sim}`;
  if (visible > 0) return `*Proof:* every CSI mount visible from the host on ${plural(visible, 'node')} checked${sim}`;
  if (proof.pending.length > 0) return '*Proof:* asking the node agents';
  if (checked === 0 && proof.noAgent.length < proof.nodes.length) return '*Proof:* unavailable (in the thread)';
  if (checked === 0) return '*Proof:* no agent on these nodes';
  return `*Proof:* ${plural(checked, 'node')} checked, nothing found${sim}`;
}

/** The evidence reply's proof section: every line; undefined without a proof. */
export function proofEvidenceBlock(proof: IncidentProof | undefined): Block | undefined {
  return proof ? listSection(proofTitle(proof), proofLines(proof)) : undefined;
}

/** Change-reply lines for what the proof states that the last post did not (`before`: proofKeys then). */
export function proofChangeLines(proof: IncidentProof | undefined, before: readonly string[] | undefined): string[] {
  if (!proof) return [];
  const old = new Set(before ?? []);
  const lines = proof.findings.filter((f) => !old.has(findingKey(f))).map((f) => `• ${escapeSlack(findingText(f))}`);
  const noAgent = proof.noAgent.filter((n) => !old.has(`no-agent:${n}`));
  if (noAgent.length > 0) lines.push(`• ${noAgentLine(noAgent)}`);
  return lines;
}

/** The resolution's section: the incident's nodes checked again by their agents; undefined without a check. */
export function proofRecheckBlock(proof: IncidentProof | undefined): Block | undefined {
  if (!proof) return undefined;
  const lost = proof.findings.filter((f) => f.kind === 'PROPAGATION_LOST').length;
  const visible = proof.findings.filter((f) => f.kind === 'PROPAGATION_VISIBLE').length;
  let title = '*Checked again from the nodes*';
  if (lost > 0) title += `: ${plural(lost, 'node')} still hold CSI mounts the host cannot see`;
  else if (visible > 0) title += `: the mounts are visible from the host on ${plural(visible, 'node')} checked`;
  if (proof.simulated) title += SIMULATED;
  const lines = proofLines({ ...proof, pending: [] });
  if (proof.pending.length > 0)
    lines.push(`• not checked again (no answer yet): ${escapeSlack(proofNodeList(proof.pending))}`);
  return listSection(title, lines);
}

/** Whether every node of the proof was checked and every CSI mount there is visible from the host. */
export function provenVisible(proof: IncidentProof): boolean {
  const visible = new Set(proof.findings.filter((f) => f.kind === 'PROPAGATION_VISIBLE').map((f) => f.node));
  return proof.omittedNodes === 0 && proof.nodes.length > 0 && proof.nodes.every((n) => visible.has(n));
}

// The proof is unavailable where no agent runs: one line, pointing to how to get it (said in full in /rwx help).
function noAgentLine(nodes: readonly string[]): string {
  return escapeSlack(`proof unavailable: no rwx agent runs on ${proofNodeList(nodes)} (opt-in: docs/agent.md)`);
}

/**
 * The evidence reply's drain note for the incident's nodes where an agent found a volume still staged with no pod
 * (drain advice's stages, advise/stale-stage.ts): what a drain leaves there, and the order to clear it, per node.
 */
export function staleStageBlocks(drain: readonly DrainAdvice[]): Block[] {
  const nodes = drain.filter((d) => d.stages?.checked && d.stages.stale.length > 0);
  const blocks = nodes.slice(0, STALE_NODES).map((d) => {
    const stale = d.stages?.checked ? d.stages.stale : [];
    const steps = staleStageSteps(
      d.node,
      stale.map((s) => s.path),
    ).map((step, i) => `${i + 1}. ${escapeSlack(step)}`);
    const title = `*${escapeSlack(d.node)}: staged with no pod using it (a drain does not clear it)*`;
    return listSection(title, [...stale.map((s) => `• ${escapeSlack(staleStageText(s))}`), ...steps]);
  });
  const more = nodes.length - STALE_NODES;
  if (more > 0) blocks.push(listSection('', [`• ${plural(more, 'more node')} too: /rwx drain NODE says what to do`]));
  return blocks;
}
