// The incident's root message: everything the on-call engineer needs at a glance (stuck pods, the rollout stuck
// part-way, the CronJob that never ran, the plugin revision behind them) in one place, and for a rollout the
// "Do not drain" advice. Evidence goes to the thread (slack-thread.ts).
import type { Incident, Verdict } from '../domain/incident.js';
import { escapeSlack } from './escape.js';
import { proofRootBlock } from './slack-proof.js';
import {
  ACTION_IDS,
  type Block,
  type IncidentState,
  type SlackMessage,
  capBlocks,
  context,
  formatSeconds,
  formatTime,
  hashOf,
  header,
  listSection,
  mention,
  plural,
  preSection,
  section,
  fallbackText,
} from './slack-blocks.js';

/** Render options: `ages: false` leaves out everything that changes by itself as time passes (for the hash). */
export interface RootOptions {
  ages?: boolean;
}

/** The verdict as the root's headline says it. */
export const VERDICT_TEXT: Readonly<Record<Verdict, string>> = {
  FOLLOWS_ROLLOUT: ':rotating_light: Follows a node plugin rollout',
  FOLLOWS_NODE: ':warning: Follows one node',
  UNEXPLAINED: ':grey_question: Unexplained',
  NOT_STORAGE: ':information_source: Not storage',
};

/** The root message of an incident's thread, with its ack/mute/resolve state and buttons. */
export function renderIncidentRoot(
  incident: Incident,
  state: IncidentState = {},
  opts: RootOptions = {},
): SlackMessage {
  const ages = opts.ages ?? true;
  const blocks: Block[] = [header(`${state.resolvedAt !== undefined ? 'Resolved: ' : ''}${incident.title}`)];
  blocks.push(section(`*${VERDICT_TEXT[incident.verdict]}*\n${escapeSlack(incident.summary)}`));
  const status = statusLine(state);
  if (status) blocks.push(context(status));
  if (incident.verdict === 'FOLLOWS_ROLLOUT' && incident.rollout && state.resolvedAt === undefined) {
    blocks.push(...doNotDrain(incident));
  } else if (incident.nextSteps.length > 0 && state.resolvedAt === undefined) {
    blocks.push(
      listSection(
        '*Next steps*',
        incident.nextSteps.map((s) => `• ${escapeSlack(s)}`),
      ),
    );
  }
  const proof = state.resolvedAt === undefined ? proofRootBlock(incident.proof) : undefined;
  if (proof) blocks.push(proof);
  blocks.push(preSection('*Nodes*', nodeTable(incident, ages)));
  blocks.push(listSection('*Affected workloads*', workloadLines(incident, ages)));
  if (state.resolvedAt === undefined) blocks.push(buttons(incident.key, state));
  blocks.push(context(`incident \`${escapeSlack(incident.key)}\``));
  return { text: fallbackText(`${incident.title}: ${incident.summary}`), blocks: capBlocks(blocks) };
}

/** The "last sent hash" of a root: its rendered content without ages, so only real changes count. */
export function rootHash(incident: Incident, state: IncidentState = {}): string {
  return hashOf(renderIncidentRoot(incident, state, { ages: false }));
}

/** The ack / mute / resolved line of a root (mrkdwn), empty when there is nothing to say. */
export function statusLine(state: IncidentState): string {
  const parts: string[] = [];
  if (state.resolvedAt !== undefined) {
    // A manual Resolve says who and when; an automatic one is dated by the summary's cluster times instead.
    parts.push(
      `:white_check_mark: Resolved${state.resolvedBy ? ` by ${mention(state.resolvedBy)} at ${formatTime(state.resolvedAt)}` : ''}`,
    );
  }
  if (state.ack) parts.push(`:eyes: Acknowledged by ${mention(state.ack.user)} at ${formatTime(state.ack.at)}`);
  if (state.muteUntil !== undefined && state.resolvedAt === undefined) {
    parts.push(`:mute: Muted until ${formatTime(state.muteUntil)} (resolution is still posted)`);
  }
  return parts.join('  ·  ');
}

function doNotDrain(incident: Incident): Block[] {
  const r = incident.rollout!;
  const ds = `${r.daemonSet.namespace}/${r.daemonSet.name}`;
  const c = r.counts;
  const prev = r.previousRevision ?? r.newRevision - 1;
  const reason =
    `Stuck mounts follow the rollout of node plugin \`${escapeSlack(ds)}\` to revision ${r.newRevision}: ` +
    `nodes on revision ${r.newRevision}: ${c.newStuck} stuck, ${c.newFine} fine; on revision ${prev}: ${c.oldStuck} stuck, ${c.oldFine} fine. ` +
    `Draining moves pods onto nodes the rollout has reached or will reach: it turns working nodes into broken ones.`;
  const cordon = r.nodesOnNewRevision.map(escapeSlack);
  const lines = [
    `1. *Stop any drain.* ${reason}`,
    `2. ${rollbackLine(incident)}`,
    `3. Cordon the ${plural(cordon.length, 'node')} on revision ${r.newRevision} while it rolls back, uncordon each as its plugin returns to revision ${prev}: ${cordon.join(', ') || 'none yet'}`,
    '4. Leave stuck pods alone: the kubelet retries the mount and succeeds once the plugin under it is correct.',
  ];
  return [section(':no_entry: *Do not drain.*'), listSection('', lines)];
}

/** The rollback step as the advice computed it (src/advise/rollback.ts), its command as code. */
function rollbackLine(incident: Incident): string {
  const { rollback, rollout } = incident;
  if (!rollback) {
    // Never from an evaluation (it always computes the step); an incident built elsewhere points at the history.
    const ds = `daemonset/${rollout?.daemonSet.name ?? 'NAME'} -n ${rollout?.daemonSet.namespace ?? 'NAMESPACE'}`;
    return `Roll back off revision ${rollout?.newRevision ?? '?'} to the newest revision with another template: \`${escapeSlack(`kubectl rollout history ${ds}`)}\``;
  }
  const command = rollback.command ? `: \`${escapeSlack(rollback.command)}\`` : '.';
  return `${escapeSlack(rollback.text)}${command}`;
}

function nodeTable(incident: Incident, ages: boolean): string[] {
  const rows = incident.nodes.map((n) => [
    n.node,
    n.plugin?.revision !== undefined ? String(n.plugin.revision) : '?',
    ages ? formatSeconds(n.plugin?.ageSeconds) : '-',
    n.stuckPods.length === 0 ? '0' : `${n.stuckPods.length} (${n.stuckPods.join(', ')})`,
  ]);
  const head = ['node', 'plugin revision', 'plugin pod age', 'stuck pods'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]): string =>
    escapeSlack(cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join(' | '));
  return [fmt(head), ...rows.map(fmt)];
}

function workloadLines(incident: Incident, ages: boolean): string[] {
  const byKey = new Map(incident.pods.map((p) => [`${p.pod.namespace}/${p.pod.name}`, p]));
  const crons = new Map(incident.cronJobs.map((c) => [`${c.cronJob.namespace}/${c.cronJob.name}`, c]));
  const missed = (c: Incident['cronJobs'][number]): string => {
    const last = c.lastSuccessfulTime ? `last completed ${formatTime(c.lastSuccessfulTime)}` : 'never completed';
    return `${plural(c.missedRuns, 'scheduled run')} missed, ${last} (its run is stuck, so it never started: no job failure alert fires)`;
  };
  const lines = incident.workloads.map((w) => {
    const pods = w.pods.map((key) => {
      const p = byKey.get(key);
      const name = key.includes('/') ? key.slice(key.indexOf('/') + 1) : key;
      const stuck = p
        ? `${p.kind === 'stuck-terminating' ? 'Terminating' : 'ContainerCreating'}${ages ? ` ${formatSeconds(p.stuckSeconds)}` : ''}`
        : 'stuck';
      return `${escapeSlack(name)} (${stuck}${p?.node ? ` on ${escapeSlack(p.node)}` : ''})`;
    });
    const cron = w.kind === 'CronJob' ? crons.get(`${w.namespace}/${w.name}`) : undefined;
    if (cron) crons.delete(`${w.namespace}/${w.name}`);
    return `• \`${escapeSlack(w.namespace)}\` ${escapeSlack(w.kind)} *${escapeSlack(w.name)}*: ${cron ? `${missed(cron)}; ` : ''}${pods.join(', ')}`;
  });
  for (const c of crons.values()) {
    lines.push(`• \`${escapeSlack(c.cronJob.namespace)}\` CronJob *${escapeSlack(c.cronJob.name)}*: ${missed(c)}`);
  }
  return lines.length > 0 ? lines : ['• none recorded'];
}

function buttons(key: string, state: IncidentState): Block {
  const button = (text: string, action: string, style?: 'primary' | 'danger'): Record<string, unknown> => ({
    type: 'button',
    text: { type: 'plain_text', text },
    action_id: action,
    value: key,
    ...(style ? { style } : {}),
  });
  return {
    type: 'actions',
    block_id: 'rwx_incident_actions',
    elements: [
      button(state.ack ? 'Acknowledged' : 'Acknowledge', ACTION_IDS.ack, state.ack ? undefined : 'primary'),
      button('Mute 1h', ACTION_IDS.mute1h),
      button('Mute 4h', ACTION_IDS.mute4h),
      button('Resolve', ACTION_IDS.resolve, 'danger'),
    ],
  };
}
