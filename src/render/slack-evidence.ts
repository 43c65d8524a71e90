// The first reply of a thread, within a phone's few screens (FIRST_REPLY_BUDGET): what to do first (the steps to
// take now, every stuck node one line each, the affected workloads), then how to verify the fix and why the
// verdict holds (the steps that verify, the node agents' proof, one line per observation that misleads on-call
// engineers as the correlator wrote it, the revision diff, events grouped across pods, the storage paths), each
// part in whole lines while the budget lasts. What does not fit is named, and is the second reply (as much of it as
// the same budget holds; `rwx scan` prints it all). Last, when the notifier asks for it (once per channel,
// steps/post-reply.ts), that proof from the nodes is possible.
import type { Incident } from '../domain/incident.js';
import { MAX_RECORDED_PODS } from '../domain/kept.js';
import { MAX_RECORDED_NODES } from '../domain/node-rows.js';
import { escapeSlack } from './escape.js';
import { fitVisible, visibleLength } from './plain.js';
import { incidentFallback, incidentTitle } from './slack-fallback.js';
import { byStuckPods, nodeList, nodeLines, workloadLines } from './slack-members.js';
import { PROOF_LINE, proofEvidenceBlock, staleStageBlocks } from './slack-proof.js';
import { groupEvents } from './event-groups.js';
import {
  type Block,
  type SlackMessage,
  capBlocks,
  context,
  plural,
  formatSeconds,
  section,
  slackDates,
} from './slack-blocks.js';

/** Visible characters the first reply holds (a few phone screens); what does not fit is named, not cut. */
export const FIRST_REPLY_BUDGET = 3000;
/** Room kept for the line that names what the first reply leaves out. */
const LEFT_OUT_LINE = 250;
/** Pods an event group names; the others are counted. */
const EVENT_GROUP_PODS = 3;
/** Stuck nodes the first reply names; the others are counted. */
const REPLY_NODE_LINES = 10;

/** One part of the first reply: what it is called when left out, its title (mrkdwn) and its lines. */
type Part = [label: string, title: string, lines: string[]];

/** The line of the first reply that says proof from the nodes is possible (said once per channel). */
export const PROOF_HINT = `${PROOF_LINE} Said once in this channel: \`/rwx help\` repeats it.`;

/** How the first reply is rendered: `proofHint` adds PROOF_HINT, the notifier's to decide (once per channel). */
export interface EvidenceOptions {
  proofHint?: boolean;
}

/** The first reply: what the root leaves out, in the order it is acted on, within FIRST_REPLY_BUDGET. */
export function renderEvidenceReply(incident: Incident, opts: EvidenceOptions = {}): SlackMessage {
  const { blocks, last, left } = firstReply(incident, opts);
  if (left.length > 0) {
    blocks.push(
      context(`Not shown here: ${left.join(', ')}: the next reply holds them, and \`rwx scan\` prints them.`),
    );
  }
  return {
    text: incidentFallback(incident, `Next steps and evidence: ${incidentTitle(incident)}`),
    blocks: capBlocks([...blocks, ...last]),
  };
}

/**
 * The second reply: what the first reply (rendered with the same options) leaves out, the parts it cut continued,
 * within the same budget; undefined when it leaves out nothing. What does not fit here either is named.
 */
export function renderEvidenceRest(incident: Incident, opts: EvidenceOptions = {}): SlackMessage | undefined {
  const { rest } = firstReply(incident, opts);
  if (rest.length === 0) return undefined;
  const { blocks, left } = fitParts(rest, FIRST_REPLY_BUDGET - LEFT_OUT_LINE);
  if (left.length > 0) blocks.push(context(`Not shown here either: ${left.join(', ')}: \`rwx scan\` prints them.`));
  return { text: incidentFallback(incident, `More evidence: ${incidentTitle(incident)}`), blocks: capBlocks(blocks) };
}

/** What the second reply says once the incident's evidence fits the first reply's room (it is edited in place). */
export function renderNoEvidenceRest(incident: Incident): SlackMessage {
  const line = 'Nothing more: as the incident is now, its evidence fits the reply above (`rwx scan` prints it all).';
  return { text: incidentFallback(incident, `More evidence: ${incidentTitle(incident)}`), blocks: [context(line)] };
}

// The first reply's blocks (the hint, `last`, goes after the line naming what is left out), what it leaves out
// (labels) and the lines it leaves out, by part.
function firstReply(
  incident: Incident,
  opts: EvidenceOptions,
): { blocks: Block[]; last: Block[]; left: string[]; rest: Part[] } {
  const head: Block[] = [...staleStageBlocks(incident.drain), ...notKeptLines(incident).map((l) => context(l))];
  const last = opts.proofHint ? [context(PROOF_HINT)] : [];
  const fixed = [...head, ...last].reduce((n, b) => n + visibleLength(blockText(b)), 0);
  const fit = fitParts([...actParts(incident), ...whyParts(incident)], FIRST_REPLY_BUDGET - LEFT_OUT_LINE - fixed);
  return { blocks: [...head, ...fit.blocks], last, left: fit.left, rest: fit.rest };
}

// Each part in whole lines while `room` lasts: its section, or its label among what is left out (with the lines
// left out, as a part of their own, "continued" when the part was cut).
function fitParts(parts: readonly Part[], room: number): { blocks: Block[]; left: string[]; rest: Part[] } {
  const blocks: Block[] = [];
  const left: string[] = [];
  const rest: Part[] = [];
  for (const [label, title, lines] of parts) {
    const text = fitVisible(lines, room - visibleLength(title));
    if (!text) {
      left.push(label);
      rest.push([label, title, lines]);
      continue;
    }
    blocks.push(section(`${title}\n${text}`));
    room -= visibleLength(`${title}\n${text}`);
    const more = /\n\.\.\.and (\d+) more$/.exec(text);
    if (!more) continue;
    left.push(`${more[1]} more ${label}`);
    rest.push([label, `${title} (continued)`, lines.slice(lines.length - Number(more[1]))]);
  }
  return { blocks, left, rest };
}

// How to verify the fix and why the verdict holds: the steps that verify, the proof (not for a fault that is not
// storage), the explanations, the revision diff, the events and the storage paths.
function whyParts(incident: Incident): Part[] {
  const verify = incident.nextSteps
    .map((s, i) => (isVerify(s) ? `${i + 1}. ${slackDates(escapeSlack(s))}` : ''))
    .filter(Boolean);
  const parts: Part[] = [];
  const proof = incident.verdict === 'NOT_STORAGE' ? undefined : proofEvidenceBlock(incident.proof);
  if (proof) {
    const [title = '', ...lines] = blockText(proof).split('\n');
    parts.push(['proof lines', title, lines]);
  }
  parts.push([
    'explanations',
    '*Why it looks like something else*',
    (incident.explanations ?? []).map((e) => `• ${slackDates(escapeSlack(e))}`),
  ]);
  parts.push(['verification steps', '*Once it is fixed*', verify]);
  const r = incident.rollout;
  if (r) {
    const diff = r.diff.map((d) => `• ${escapeSlack(`${d.container ? `${d.container}: ` : ''}${d.text}`)}`);
    const title = `*Plugin pod template, revision ${r.previousRevision ?? '?'} -> ${r.newRevision}*`;
    parts.push(['template changes', title, diff.length > 0 ? diff : ['• no template difference found']]);
  }
  const events = eventLines(incident).map((e) => `• ${e}`);
  parts.push(['events', '*Events*', events.length > 0 ? events : ['• no events recorded']]);
  const claims = incident.pods.flatMap((p) =>
    p.storage.map(
      (s) =>
        `• ${escapeSlack(`${p.pod.namespace}/${p.pod.name} volume ${s.volume} -> claim ${s.claim ? `${s.claim.namespace}/${s.claim.name}` : '?'} -> PV ${s.pv ?? '?'} -> driver ${s.driver ?? '?'}`)}`,
    ),
  );
  if (incident.verdict !== 'NOT_STORAGE') parts.push(['storage paths', '*Storage path*', claims]);
  return parts.filter(([, , lines]) => lines.length > 0);
}

// The steps that verify the fix start with "Verify" (src/advise): they go in the second reply.
function isVerify(step: string): boolean {
  return /^verify\b/i.test(step);
}

// What to do, in the order it is read: the steps for now, the stuck nodes (one line each) and the nodes running
// the same workloads, the affected workloads.
function actParts(incident: Incident): Part[] {
  const now = incident.nextSteps
    .map((s, i) => (isVerify(s) ? '' : `${i + 1}. ${slackDates(escapeSlack(s))}`))
    .filter(Boolean);
  const nodes = byStuckPods(incident.nodes);
  const stuck = nodes.filter((n) => n.stuckPods.length > 0);
  const others = nodes.filter((n) => n.stuckPods.length === 0).map((n) => n.node);
  const shown = nodeLines(stuck.slice(0, REPLY_NODE_LINES));
  if (stuck.length > REPLY_NODE_LINES) shown.push(`...and ${plural(stuck.length - REPLY_NODE_LINES, 'more node')}`);
  if (others.length > 0) shown.push(`Running the same workloads: ${nodeList(others)}`);
  const parts: Part[] = [
    ['steps', '*Next steps*', now],
    ['nodes', `*Stuck on ${plural(stuck.length, 'node')}*`, shown],
    ['workloads', '*Affected workloads*', workloadLines(incident)],
  ];
  return parts.filter(([, , lines]) => lines.length > 0);
}

/** Identical events across pods as one line each ("Warning FailedMount x54 on 12 pods, latest 71s ago: ..."). */
export function eventLines(incident: Incident): string[] {
  const groups = groupEvents(
    incident.pods.flatMap((p) => p.events.map((event) => ({ pod: `${p.pod.namespace}/${p.pod.name}`, event }))),
  );
  return groups.map((g) => {
    const on = g.pods.length === 1 ? `on ${g.pods[0]}` : `on ${plural(g.pods.length, 'pod')}`;
    const age = g.ageSeconds !== undefined ? `, latest ${formatSeconds(g.ageSeconds)} ago` : '';
    const named =
      g.pods.length > 1
        ? ` (${g.pods.slice(0, EVENT_GROUP_PODS).join(', ')}${g.pods.length > EVENT_GROUP_PODS ? ` and ${g.pods.length - EVENT_GROUP_PODS} more` : ''})`
        : '';
    return escapeSlack(`${g.type} ${g.reason} x${g.count} ${on}${age}: ${g.message}${named}`);
  });
}

// The mrkdwn of a section or context block.
function blockText(b: Block): string {
  const t = b.text as { text?: string } | undefined;
  const e = (b.elements as { text?: string }[] | undefined)?.map((x) => x.text ?? '').join('\n');
  return t?.text ?? e ?? '';
}

// The node rows and stuck pods the record left out (domain/node-rows.ts, kept.ts), counted under the node lines.
function notKeptLines(incident: Incident): string[] {
  const n = incident.nodesNotKept;
  const pods = incident.podsNotKept ?? 0;
  return [
    ...(n && n.nodes > 0
      ? [
          `+${plural(n.nodes, 'more node')} (${n.withStuckPods} with stuck pods), not listed: an incident keeps its first ${MAX_RECORDED_NODES} node rows.`,
        ]
      : []),
    ...(pods > 0
      ? [
          `+${plural(pods, 'more stuck pod')}, not listed: an incident keeps ${MAX_RECORDED_PODS} stuck pods (events and storage paths below are theirs).`,
        ]
      : []),
  ];
}
