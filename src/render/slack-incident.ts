// The incident's root message, enough to act from a phone at 3 a.m. without opening the thread: the title, the
// status, severity and verdict in words with the counts, the one action with its command, one line of proof, the
// first stuck nodes (one line each: no table, a phone wraps its columns), and the buttons. Everything else (every
// next step, every node, the affected workloads, the evidence) is in the thread (slack-thread.ts).
import type { Incident } from '../domain/incident.js';
import { blindSentence } from '../advise/blind.js';
import { incidentSeverity, incidentStatus } from '../domain/severity.js';
import { escapeSlack } from './escape.js';
import { parentThreadLine } from './slack-links.js';
import { proofRootLine } from './slack-proof.js';
import { VERDICT_TEXT, incidentFallback, saysDoNotDrain, summaryWords, incidentTitle } from './slack-fallback.js';
import { nodeRowCount } from '../domain/node-rows.js';
import { byStuckPods, nodeLines } from './slack-members.js';
import {
  ACTION_IDS,
  type Block,
  type IncidentState,
  type SlackMessage,
  capBlocks,
  context,
  header,
  listSection,
  mention,
  plural,
  section,
  slackDate,
  slackDates,
} from './slack-blocks.js';

export { VERDICT_TEXT } from './slack-fallback.js';

/** Link buttons the root carries when configured (RWX_RUNBOOK_URL, RWX_DASHBOARD_URL). */
export interface RootLinks {
  runbook?: string;
  dashboard?: string;
}

/** Render options of a root. */
export interface RootOptions {
  links?: RootLinks;
  /** A Slack user group ID (S...) to mention: given only when the root is first posted, never on an edit. */
  mention?: string;
  /** In a team channel (RWX_TEAM_CHANNELS): the incident channel's thread, which the root links. */
  parent?: { channel?: string; threadTs?: string };
}

/** Stuck nodes the root names, one line each; the first reply has them all. */
export const ROOT_NODE_LINES = 3;

/** The root message of an incident's thread, with its ack/mute/resolve state and buttons. */
export function renderIncidentRoot(
  incident: Incident,
  state: IncidentState = {},
  opts: RootOptions = {},
): SlackMessage {
  const open = state.resolvedAt === undefined;
  const group = opts.mention && /^S[A-Z0-9]{2,}$/.test(opts.mention) ? `<!subteam^${opts.mention}> ` : '';
  const blocks: Block[] = [header(`${open ? '' : 'Resolved: '}${incidentTitle(incident)}`)];
  const summary = summaryWords(incident.summary);
  blocks.push(section(`${group}${headline(incident, !open)}\n${slackDates(escapeSlack(summary))}`));
  const status = statusLine(state);
  if (status) blocks.push(context(status));
  const unseen = open ? blindBlock(incident) : undefined;
  if (unseen) blocks.push(unseen);
  const action = open ? firstAction(incident) : undefined;
  if (action) blocks.push(action);
  const proof = open && incident.verdict !== 'NOT_STORAGE' ? proofRootLine(incident.proof) : undefined;
  if (proof) blocks.push(context(proof));
  blocks.push(...nodeBlocks(incident));
  if (opts.parent) blocks.push(context(parentThreadLine(opts.parent)));
  // The runbook and dashboard are the storage ones: not offered for a fault that is not storage.
  const links = incident.verdict === 'NOT_STORAGE' ? {} : opts.links;
  if (open) blocks.push(buttons(incident.key, state, links));
  blocks.push(context(`More in the thread · \`${escapeSlack(incident.key)}\``));
  const text = incidentFallback(incident, `${incidentTitle(incident)}. ${summary}`, !open);
  return { text: group ? `${text} ${group.trim()}` : text, blocks: capBlocks(blocks) };
}

const STATUS_WORDS = { open: 'Open', recovering: 'Recovering', resolved: 'Resolved' } as const;

/** The root's first line: emoji, status, severity and the verdict in words ("Open · SEV1 · Follows a ..."). */
export function headline(incident: Incident, resolved = false): string {
  const [emoji, ...words] = VERDICT_TEXT[incident.verdict].split(' ');
  const status = STATUS_WORDS[incidentStatus(incident, resolved)];
  return `${emoji} *${status} · ${incidentSeverity(incident)} · ${words.join(' ')}*`;
}

/** The stale / ack / mute / resolved line of a root (mrkdwn), empty when there is nothing to say. */
export function statusLine(state: IncidentState): string {
  const parts: string[] = [];
  if (state.staleSince !== undefined && state.resolvedAt === undefined) {
    parts.push(`:hourglass: *Stale since ${slackDate(state.staleSince)}: the bot cannot see the cluster*`);
  }
  if (state.resolvedAt !== undefined) {
    // A manual Resolve says who and when; an automatic one is dated by the summary's cluster times instead.
    parts.push(
      `:white_check_mark: Resolved${state.resolvedBy ? ` by ${mention(state.resolvedBy)} at ${slackDate(state.resolvedAt)}` : ''}`,
    );
  }
  if (state.ack) parts.push(`:eyes: Acknowledged by ${mention(state.ack.user)} at ${slackDate(state.ack.at)}`);
  if (state.muteUntil !== undefined && state.resolvedAt === undefined) {
    parts.push(`:mute: Muted until ${slackDate(state.muteUntil)} (resolution is still posted)`);
  }
  return parts.join('  ·  ');
}

// What the evaluation could not read (src/advise/blind.ts), while it lasts: the advice below may be incomplete.
function blindBlock(incident: Incident): Block | undefined {
  if (!incident.blind || incident.blind.length === 0) return undefined;
  const unseen = `${blindSentence(incident.blind)} Drain advice is UNKNOWN for nodes without a rollout to block them.`;
  return context(`:grey_question: *Incomplete view.* ${escapeSlack(unseen)}`);
}

// The one action that matters, with its command. A rollout: "Do not drain" and the rollback to run, or, once the
// rollback is under way, wait and watch it (an undo now would restore the bad template). Otherwise the first next
// step (a node fault: the node and what to do with it).
function firstAction(incident: Incident): Block | undefined {
  const rb = incident.rollback;
  const r = incident.rollout;
  const cmd = rb?.command ? `\n\`${escapeSlack(rb.command)}\`` : '';
  if (incident.verdict === 'FOLLOWS_ROLLOUT' && r && rb) {
    if (!saysDoNotDrain(incident)) {
      const nodes = `${r.updatedNodes} of ${r.desiredNodes} nodes to go`;
      const to = rb.toRevision !== undefined ? ` to revision ${rb.toRevision}` : '';
      return section(`:hourglass_flowing_sand: *Wait: the rollback${to} is under way* (${nodes}):${cmd}`);
    }
    if (rb.state === 'undo' && rb.command)
      return section(`:no_entry: *Do not drain. Roll back to revision ${rb.toRevision ?? '?'}:*${cmd}`);
    return section(`:no_entry: *Do not drain.* ${escapeSlack(rb.text)}${cmd}`);
  }
  const step = incident.nextSteps[0];
  if (saysDoNotDrain(incident)) {
    const said = step?.replace(/^do not drain[.:]\s*/i, '');
    return section(`:no_entry: *Do not drain.*${said ? ` ${escapeSlack(said)}` : ''}`);
  }
  return step ? section(`*First:* ${escapeSlack(step)}`) : undefined;
}

// The first stuck nodes, one line each, and how many more the thread lists; none when the summary names them all.
function nodeBlocks(incident: Incident): Block[] {
  const stuck = byStuckPods(incident.nodes).filter((n) => n.stuckPods.length > 0);
  // Said once: nodes the summary already names are not listed again.
  if (stuck.every((n) => incident.summary.includes(n.node))) return [];
  const total = nodeRowCount(incident).withStuckPods;
  const lines = nodeLines(stuck.slice(0, ROOT_NODE_LINES), false);
  const more = total - Math.min(stuck.length, ROOT_NODE_LINES);
  if (more > 0) lines.push(`...and ${more} more`);
  return [listSection(`*Stuck on ${plural(total, 'node')}*`, lines)];
}

// Resolve asks first (Block Kit `confirm`): it closes the thread for everyone, and a mis-click is hard to undo.
const RESOLVE_CONFIRM = {
  title: { type: 'plain_text', text: 'Resolve this incident?' },
  text: {
    type: 'mrkdwn',
    text: 'The thread is closed now and the bot stays quiet while the cluster still reports the fault; it opens a new thread if the fault comes back after it cleared.',
  },
  confirm: { type: 'plain_text', text: 'Resolve' },
  deny: { type: 'plain_text', text: 'Cancel' },
  style: 'danger',
};

function buttons(key: string, state: IncidentState, links: RootLinks = {}): Block {
  const button = (text: string, action: string, style?: 'primary' | 'danger'): Record<string, unknown> => ({
    type: 'button',
    text: { type: 'plain_text', text },
    action_id: action,
    value: key,
    ...(style ? { style } : {}),
    ...(action === ACTION_IDS.resolve ? { confirm: RESOLVE_CONFIRM } : {}),
  });
  const link = (text: string, action: string, url: string): Record<string, unknown> => ({
    type: 'button',
    text: { type: 'plain_text', text },
    action_id: action,
    url,
  });
  return {
    type: 'actions',
    block_id: 'rwx_incident_actions',
    elements: [
      button(state.ack ? 'Acknowledged' : 'Acknowledge', ACTION_IDS.ack, state.ack ? undefined : 'primary'),
      button('Mute 1h', ACTION_IDS.mute1h),
      button('Mute 4h', ACTION_IDS.mute4h),
      button('Resolve', ACTION_IDS.resolve, 'danger'),
      ...(links.runbook ? [link('Runbook', ACTION_IDS.runbook, links.runbook)] : []),
      ...(links.dashboard ? [link('Dashboard', ACTION_IDS.dashboard, links.dashboard)] : []),
    ],
  };
}
