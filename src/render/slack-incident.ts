// The incident's root message, short enough to read on a phone at 3 a.m.: the title, the verdict line, the one
// action that matters (for a rollout, "Do not drain"), the first rows of the node table, and the buttons.
// Everything else (every next step, every node, the affected workloads, the evidence) is in the thread
// (slack-thread.ts).
import type { Incident } from '../domain/incident.js';
import { blindSentence } from '../advise/blind.js';
import { escapeSlack } from './escape.js';
import { parentThreadLine } from './slack-links.js';
import { proofRootBlock } from './slack-proof.js';
import { VERDICT_TEXT, incidentFallback, saysDoNotDrain } from './slack-fallback.js';
import { nodeRowCount } from '../domain/node-rows.js';
import { byStuckPods, nodeList, nodeTableRows } from './slack-members.js';
import {
  ACTION_IDS,
  type Block,
  type IncidentState,
  type SlackMessage,
  capBlocks,
  context,
  header,
  mention,
  preSection,
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

/** Rows of the node table the root shows; the evidence reply has them all. */
export const ROOT_NODE_ROWS = 5;

/** The root message of an incident's thread, with its ack/mute/resolve state and buttons. */
export function renderIncidentRoot(
  incident: Incident,
  state: IncidentState = {},
  opts: RootOptions = {},
): SlackMessage {
  const open = state.resolvedAt === undefined;
  const group = opts.mention && /^S[A-Z0-9]{2,}$/.test(opts.mention) ? `<!subteam^${opts.mention}> ` : '';
  const blocks: Block[] = [header(`${open ? '' : 'Resolved: '}${incident.title}`)];
  blocks.push(section(`${group}*${VERDICT_TEXT[incident.verdict]}*\n${slackDates(escapeSlack(incident.summary))}`));
  const status = statusLine(state);
  if (status) blocks.push(context(status));
  const unseen = open ? blindBlock(incident) : undefined;
  if (unseen) blocks.push(unseen);
  const action = open ? firstAction(incident) : undefined;
  if (action) blocks.push(action);
  const proof = open ? proofRootBlock(incident.proof) : undefined;
  if (proof) blocks.push(proof);
  blocks.push(...nodeBlocks(incident));
  if (opts.parent) blocks.push(context(parentThreadLine(opts.parent)));
  if (open) blocks.push(buttons(incident.key, state, opts.links));
  blocks.push(
    context(
      `Every next step, node and affected workload, and the evidence: in the thread · incident \`${escapeSlack(incident.key)}\``,
    ),
  );
  const text = incidentFallback(incident, `${incident.title}. ${incident.summary}`, !open);
  return { text: group ? `${text} ${group.trim()}` : text, blocks: capBlocks(blocks) };
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

// The one action that matters: the first next step. For a rollout it leads with a prominent "Do not drain." (the
// step's own "Do not drain:" opening is not repeated after it).
function firstAction(incident: Incident): Block | undefined {
  const step = incident.nextSteps[0];
  if (saysDoNotDrain(incident)) {
    const said = step?.replace(/^do not drain[.:]\s*/i, '');
    const rest = said ? ` ${escapeSlack(said.charAt(0).toUpperCase() + said.slice(1))}` : '';
    return section(`:no_entry: *Do not drain.*${rest}`);
  }
  return step ? section(`*First:* ${escapeSlack(step)}`) : undefined;
}

// The first rows of the node table (nodes with stuck pods first), how many more, and for a rollout which nodes
// the new revision has reached.
function nodeBlocks(incident: Incident): Block[] {
  const nodes = byStuckPods(incident.nodes);
  if (nodes.length === 0) return [];
  const shown = nodes.slice(0, ROOT_NODE_ROWS);
  const notes: string[] = [];
  const total = nodeRowCount(incident).nodes;
  if (total > shown.length) notes.push(`...and ${total - shown.length} more in the thread`);
  const r = incident.rollout;
  if (r) notes.push(nodeList(r.nodesOnNewRevision, `on revision ${r.newRevision}`));
  const table = preSection('*Nodes*', nodeTableRows(shown));
  return notes.length > 0 ? [table, context(notes.join('\n'))] : [table];
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
