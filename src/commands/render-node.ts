// `/rwx node NODE`: the node agent's report for NODE in Slack, the same renderer as `rwx node` (its findings in the
// bot's one wording, then the evidence), every line escaped: process names and paths come from the node. The
// findings go inline; the whole report goes inline when it fits, else into a file next to the message.
import type { FindingScope } from '../domain/node-report.js';
import { AGENT_ENABLE_HINT, type NodeReportState } from '../domain/proof.js';
import { findingText, nodeFindings } from '../detect/node-findings.js';
import { escapeSlack, untrusted, SLACK_TEXT_LIMIT } from '../render/escape.js';
import { context, header, listSection, section } from '../render/slack-blocks.js';
import { renderReport } from '../render/terminal-node.js';
import { respond, type TextBlock, type CommandReply } from './message.js';

/** The reply to `/rwx node NODE`, from what the agent on NODE answered (or why there is no answer). */
export function renderNode(node: string, state: NodeReportState, pub: boolean): CommandReply {
  const n = escapeSlack(node);
  if (state.kind !== 'report') {
    const why =
      state.kind === 'no-agent'
        ? `no rwx agent runs on \`${n}\`, so nothing is proven either way. ${escapeSlack(AGENT_ENABLE_HINT)}`
        : `proof unavailable: ${untrusted(state.kind === 'unavailable' ? state.reason : 'the agent did not answer yet', 400)}`;
    const text = `:grey_question: No report from node \`${n}\`: ${why}`;
    return { response: respond(text, [section(text)], pub), failed: state.kind !== 'no-agent' };
  }
  const r = state.report;
  const scope: FindingScope = { node };
  const findings = nodeFindings(r, scope).map((f) => `• ${escapeSlack(findingText(f))}`);
  const full = renderReport(r, scope);
  const pre = '```' + escapeSlack(full.trimEnd()) + '```';
  const blocks: TextBlock[] = [header(`Node report: ${node}`)];
  if (r.simulated)
    blocks.push(section(':warning: *SIMULATED*: this report was made up by the demo, not read from a node.'));
  blocks.push(listSection('*Findings*', findings));
  const fits = pre.length <= SLACK_TEXT_LIMIT;
  if (fits) blocks.push(section(pre));
  const when = `Agent ${escapeSlack(r.agentVersion)} report at ${escapeSlack(r.generatedAt)}.`;
  blocks.push(
    context(`${when} ${fits ? '' : 'The full report is in the attached file. '}Read-only: nothing was changed.`),
  );
  const fallback = [`Node report: ${n}`, ...findings].join('\n');
  const reply: CommandReply = { response: respond(fallback, blocks, pub) };
  if (!fits) {
    const stamp = r.generatedAt.replace(/[^0-9TZ]/g, '');
    reply.file = { filename: `rwx-node-${node}-${stamp}.txt`, title: `Node report: ${node}`, content: full };
  }
  return reply;
}
