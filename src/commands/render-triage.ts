// `/rwx triage`: the triage report as a Slack message. Like the CLI: the summary by phase, the preflight, then
// each claim needing attention with its evidence and next step. Whatever does not fit (claims beyond the inline
// cap, sections cut at Slack's limits) goes into a plain-text file uploaded next to the message.
import type { TriageReport, ClaimReport, NodeProofSection, Phase, PreflightCheck } from '../triage/types.js';
import { PHASES } from '../triage/types.js';
import { formatAge } from '../domain/duration.js';
import { escapeSlack, untrusted, SLACK_TEXT_LIMIT } from '../render/escape.js';
import { respond, type TextBlock, type CommandReply } from './message.js';
import { context, header, section, slackDate } from '../render/slack-blocks.js';
import { scopeLabel } from './scope.js';
import type { TriageScope } from './parse.js';
import { renderTable } from '../triage/render.js';

/** Claims shown inline at most; the rest are in the attached file. */
export const MAX_INLINE_CLAIMS = 20;
/** Lines of the node proof section at most. */
const MAX_PROOF_LINES = 10;
/** Lines about what holds the mounts of a claim's pods stuck at unpublish at most (the full report has the rest). */
const MAX_HOLD_LINES = 3;

/** Renders a (scope-filtered) triage report; attaches the full text report when the message had to leave out anything. */
export function renderTriage(report: TriageReport, scope: TriageScope, pub: boolean): CommandReply {
  const label = scopeLabel(scope);
  const s = report.summary;
  // Claims that need attention; PENDING_NO_CONSUMER by design (WaitForFirstConsumer) shows only in the counts.
  const bad = report.claims.filter((c) => c.needsAttention);
  const head =
    s.claimsNeedingAttention === 0
      ? `:large_green_circle: ${s.claimsExamined} RWX claim${s.claimsExamined === 1 ? '' : 's'} examined (${escapeSlack(label)}): nothing needs attention.`
      : `:red_circle: ${s.claimsExamined} RWX claim${s.claimsExamined === 1 ? '' : 's'} examined (${escapeSlack(label)}): *${s.claimsNeedingAttention} need${s.claimsNeedingAttention === 1 ? 's' : ''} attention*.`;
  const blocks: TextBlock[] = [header(`RWX triage: ${label}`), section(`${head}\n${phaseLine(s.byPhase)}`)];
  blocks.push(section(preflightText(report.preflight)));
  blocks.push(section(nodeProofText(report.nodeProof)));
  if (report.undecided.length > 0) {
    blocks.push(section(`*Could not decide*\n${report.undecided.map((u) => `• ${untrusted(u, 300)}`).join('\n')}`));
  }
  let truncated = false;
  const inline = bad.slice(0, MAX_INLINE_CLAIMS);
  for (const c of inline) {
    const { text, cut } = claimText(c);
    if (cut) truncated = true;
    blocks.push(section(text));
  }
  if (bad.length > inline.length) truncated = true;
  const file = truncated
    ? {
        filename: `rwx-triage-${report.generatedAt.replace(/[^0-9TZ]/g, '')}.txt`,
        title: `RWX triage: ${label}`,
        content: `RWX triage: ${label} (generated ${report.generatedAt})\n\n${renderTable(report)}`,
      }
    : undefined;
  const more = bad.length - inline.length;
  blocks.push(
    context(
      [
        more > 0
          ? `…and ${more} more claim${more === 1 ? '' : 's'} needing attention: the full report has them all.`
          : truncated
            ? 'Some evidence was shortened: the full report has all of it.'
            : '',
        `Generated ${slackDate(report.generatedAt)}. Read-only: nothing was changed in the cluster.`,
      ]
        .filter(Boolean)
        .join(' '),
    ),
  );
  const fallback = [
    head,
    phaseLine(s.byPhase),
    ...inline.map((c) => `${c.namespace}/${c.name}: ${c.phase}`).map(escapeSlack),
  ].join('\n');
  return file ? { response: respond(fallback, blocks, pub), file } : { response: respond(fallback, blocks, pub) };
}

/** "MOUNT_FAILED 3 · UNPUBLISH_STUCK 1 · OK 40": the non-zero phases in the CLI's order, OK last. */
export function phaseLine(byPhase: Partial<Record<Phase, number>>): string {
  const parts = PHASES.filter((p) => (byPhase[p] ?? 0) > 0).map((p) => `\`${p}\` ${byPhase[p]}`);
  return parts.length > 0 ? parts.join(' · ') : '_no ReadWriteMany claims_';
}

function preflightText(checks: readonly PreflightCheck[]): string {
  const notOk = checks.filter((c) => c.status !== 'ok');
  if (notOk.length === 0) return `*Preflight* :white_check_mark: all ${checks.length} checks passed`;
  const lines = notOk.slice(0, 15).map((c) => {
    const mark = c.status === 'problem' ? ':x:' : ':grey_question:';
    const nodes =
      c.nodes && c.nodes.length > 0
        ? ` (nodes: ${untrusted(c.nodes.slice(0, 10).join(', '), 400)}${c.nodes.length > 10 ? `, +${c.nodes.length - 10}` : ''})`
        : '';
    return `${mark} ${c.check} \`${untrusted(c.subject, 100)}\`: ${untrusted(c.detail, 300)}${nodes}`;
  });
  if (notOk.length > 15) lines.push(`…and ${notOk.length - 15} more`);
  return `*Preflight* (${notOk.length} of ${checks.length} need a look)\n${lines.join('\n')}`;
}

/** The agents' findings beyond the claims, and where no agent could say (their text is from the nodes: untrusted). */
function nodeProofText(p: NodeProofSection): string {
  const answered = p.nodesAsked > 0 ? ` (${p.reports} of ${p.nodesAsked} node agents answered)` : '';
  const lines = [
    ...p.findings.map(
      (f) => `:warning: ${untrusted(f.text, 300)}${f.claim ? ` (claim \`${untrusted(f.claim, 200)}\`)` : ''}`,
    ),
    ...p.unavailable.map((u) => `:grey_question: ${untrusted(u, 400)}`),
  ];
  const shown = lines.slice(0, MAX_PROOF_LINES);
  if (lines.length > shown.length) shown.push(`…and ${lines.length - shown.length} more`);
  if (shown.length === 0) shown.push("nothing beyond the claims' evidence below");
  return `*Proof from the nodes*${answered}\n${shown.join('\n')}`;
}

/** One claim: name, phase, detail, evidence (latest events, pods, nodes, attachments, what holds the mounts, stages),
 * next step. `cut` is true when anything was shortened or left out, so the caller attaches the full report. */
function claimText(c: ClaimReport): { text: string; cut: boolean } {
  let cut = false;
  const u = (s: string, max: number): string => {
    if (s.length > max) cut = true;
    return untrusted(s, max);
  };
  const ev = c.evidence;
  // The latest two events and the first next step are the summary by design; longer lists are not.
  if (ev.pods.length > 5 || ev.attachments.length > 5) cut = true;
  const lines = [
    `*${u(`${c.namespace}/${c.name}`, 200)}* — \`${c.phase}\`${c.alsoPhases.length ? ` (also ${c.alsoPhases.join(', ')})` : ''}`,
  ];
  lines.push(u(c.detail, 400));
  for (const e of ev.events.slice(0, 2)) {
    const age = e.ageSeconds !== undefined ? `, ${formatAge(e.ageSeconds * 1000)} ago` : '';
    lines.push(`> ${u(e.reason, 60)} (x${e.count}${age}): ${u(e.message, 300)}`);
  }
  const pods = ev.pods.slice(0, 5).map((p) => {
    const overdue = p.overdueSeconds !== undefined ? `, ${formatAge(p.overdueSeconds * 1000)} past deletion` : '';
    const fin = p.finalizers && p.finalizers.length ? `, finalizers ${p.finalizers.join(', ')}` : '';
    return u(`${p.namespace}/${p.name}${p.node ? ` on ${p.node}` : ''}${overdue}${fin}`, 300);
  });
  if (pods.length) lines.push(`Pods: ${pods.join('; ')}${ev.pods.length > 5 ? `; +${ev.pods.length - 5}` : ''}`);
  const unregistered = ev.nodes.filter((n) => n.driverRegistered === false).map((n) => n.name);
  if (unregistered.length) lines.push(`:x: Driver not registered on ${u(unregistered.join(', '), 300)} (CSINode)`);
  const atts = ev.attachments
    .slice(0, 5)
    .map((a) => u(`${a.name} on ${a.node}${a.deleting ? ' (deleting)' : ''}`, 200));
  if (atts.length) lines.push(`Attachments with no consumer: ${atts.join('; ')}`);
  if (ev.holds.length > MAX_HOLD_LINES) cut = true;
  lines.push(
    ...ev.holds.slice(0, MAX_HOLD_LINES).map((h) => `${h.held ? ':lock:' : ':grey_question:'} ${u(h.text, 600)}`),
  );
  if (ev.stages.length > 5) cut = true;
  const stages = ev.stages.slice(0, 5).map((s) => `\`${u(s.path, 300)}\` on ${u(s.node, 253)}`);
  if (stages.length) lines.push(`Staged with no pod bind mount (node agents): ${stages.join('; ')}`);
  const next = c.advice[0];
  if (next) lines.push(`*Next:* ${u(next, 600)}`);
  const text = lines.join('\n');
  return { text, cut: cut || text.length > SLACK_TEXT_LIMIT };
}
