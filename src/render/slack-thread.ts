// Thread replies: the first one carries everything the short root leaves out (every next step, why not to drain,
// the whole node table, the affected workloads) and the evidence behind the verdict (events grouped across pods,
// revision diff, one line per observation that misleads on-call engineers, as the correlator wrote it); then the
// changes since the last post, and the repeat reminder.
import type { Incident } from '../domain/incident.js';
import { type DepartedMembers, type PostedMembers, membersOf, podOfMemberKey } from '../domain/members.js';
import { MAX_RECORDED_PODS, stuckPodCount } from '../domain/kept.js';
import { escapeSlack } from './escape.js';
import { proofChangeLines, proofEvidenceBlock, staleStageBlocks } from './slack-proof.js';
import { groupEvents } from './event-groups.js';
import { incidentFallback, saysDoNotDrain } from './slack-fallback.js';
import { MAX_RECORDED_NODES, nodeRowCount } from '../domain/node-rows.js';
import { byStuckPods, nodeList, nodeTableRows, workloadLines } from './slack-members.js';
import {
  type Block,
  type SlackMessage,
  capBlocks,
  context,
  formatSeconds,
  listSection,
  plural,
  preSection,
  section,
  slackDate,
  slackDates,
} from './slack-blocks.js';

/** Pods an event group names; the others are counted. */
const EVENT_GROUP_PODS = 3;

/** The first reply: what the root leaves out, then the evidence and what each confusing observation means. */
export function renderEvidenceReply(incident: Incident): SlackMessage {
  const blocks: Block[] = [];
  if (incident.nextSteps.length > 0) {
    blocks.push(
      listSection(
        '*Next steps*',
        incident.nextSteps.map((s, i) => `${i + 1}. ${escapeSlack(s)}`),
      ),
    );
  }
  const why = drainReason(incident);
  if (why) blocks.push(section(why));
  blocks.push(...staleStageBlocks(incident.drain));
  if (incident.nodes.length > 0) blocks.push(preSection('*Nodes*', nodeTableRows(byStuckPods(incident.nodes))));
  for (const line of notKeptLines(incident)) blocks.push(context(line));
  blocks.push(listSection('*Affected workloads*', workloadLines(incident)));
  blocks.push(section('*Evidence*'));
  // The same explanations `rwx scan` prints (src/correlate/explain.ts): one source, so the thread and the CLI agree.
  const meaning = (incident.explanations ?? []).map((e) => `• ${slackDates(escapeSlack(e))}`);
  const proof = proofEvidenceBlock(incident.proof);
  if (proof) blocks.push(proof);
  if (meaning.length > 0) blocks.push(listSection('*Why it looks like something else*', meaning));
  const r = incident.rollout;
  if (r) {
    const diff = r.diff.map((d) => `${d.container ? `${d.container}: ` : ''}${d.text}`);
    blocks.push(
      preSection(
        `*Plugin pod template, revision ${r.previousRevision ?? '?'} -> ${r.newRevision}*`,
        diff.length > 0 ? diff.map(escapeSlack) : ['no template difference found'],
      ),
    );
  }
  const events = eventLines(incident);
  blocks.push(preSection('*Events*', events.length > 0 ? events : ['no events recorded']));
  const claims = incident.pods.flatMap((p) =>
    p.storage.map(
      (s) =>
        `${p.pod.namespace}/${p.pod.name} volume ${s.volume} -> claim ${s.claim ? `${s.claim.namespace}/${s.claim.name}` : '?'} -> PV ${s.pv ?? '?'} -> driver ${s.driver ?? '?'}`,
    ),
  );
  if (claims.length > 0) blocks.push(preSection('*Storage path*', claims.map(escapeSlack)));
  return { text: incidentFallback(incident, `Next steps and evidence: ${incident.title}`), blocks: capBlocks(blocks) };
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

// Why a drain makes a rollout incident worse, with the counts that show the fault follows the revision.
function drainReason(incident: Incident): string | undefined {
  const r = incident.rollout;
  if (!saysDoNotDrain(incident) || !r) return undefined;
  const c = r.counts;
  const prev = r.previousRevision ?? r.newRevision - 1;
  const ds = escapeSlack(`${r.daemonSet.namespace}/${r.daemonSet.name}`);
  return (
    `:no_entry: *Do not drain.* Stuck mounts follow the rollout of node plugin \`${ds}\` to revision ${r.newRevision}: ` +
    `nodes on revision ${r.newRevision}: ${c.newStuck} stuck, ${c.newFine} fine; on revision ${prev}: ${c.oldStuck} stuck, ${c.oldFine} fine. ` +
    `Draining moves pods onto nodes the rollout has reached or will reach: it turns working nodes into broken ones.\n` +
    nodeList(r.nodesOnNewRevision, `on revision ${r.newRevision}`)
  );
}

/**
 * A reply naming the nodes, workloads and CronJobs that joined since `before`, and the pods that left (`departed`:
 * recovered, deleted, or no longer counted here); undefined when none joined or left.
 */
export function renderChangeReply(
  incident: Incident,
  before: PostedMembers,
  departed?: DepartedMembers,
): SlackMessage | undefined {
  const now = membersOf(incident);
  const added = (a: string[], b: string[]): string[] => a.filter((x) => !b.includes(x));
  // After a post that counted members it did not list, a member listed now may have been there: not named as new.
  const nodes = before.notListed?.nodes ? [] : added(now.nodes, before.nodes);
  const workloads = added(now.workloads, before.workloads);
  const cronJobs = added(now.cronJobs, before.cronJobs);
  const pods = before.notListed?.pods ? [] : added(now.pods, before.pods);
  const left = departedLines(departed);
  const proof = proofChangeLines(incident.proof, before.proof);
  const counted = notListedLines(before, now, nodes.length, pods.length);
  const changes =
    nodes.length + workloads.length + cronJobs.length + pods.length + left.length + proof.length + counted.length;
  if (changes === 0) return undefined;
  const lines: string[] = [];
  for (const n of nodes) {
    const row = incident.nodes.find((x) => x.node === n);
    lines.push(
      `• new node \`${escapeSlack(n)}\` (plugin revision ${row?.plugin?.revision ?? '?'}): ${escapeSlack((row?.stuckPods ?? []).join(', '))}`,
    );
  }
  for (const w of workloads) lines.push(`• new workload \`${escapeSlack(w)}\``);
  for (const c of cronJobs)
    lines.push(`• new CronJob with missed runs \`${escapeSlack(c.replace(/^cronjob-missed\//, ''))}\``);
  if (nodes.length === 0 && workloads.length === 0) {
    for (const p of pods) lines.push(`• newly stuck pod \`${escapeSlack(podOfMemberKey(p))}\``);
  }
  lines.push(...left);
  lines.push(...counted);
  lines.push(...proof);
  const head = `*Changed:* ${slackDates(escapeSlack(incident.summary))}`;
  return {
    text: incidentFallback(incident, `Changed: ${incident.summary}`),
    blocks: capBlocks([section(head), listSection('', lines)]),
  };
}

// One line per pod that left the incident since the last post, by what the cluster says of it.
function departedLines(d: DepartedMembers | undefined): string[] {
  if (!d) return [];
  const pods = (l: string[]): string => l.map((p) => `\`${escapeSlack(p)}\``).join(', ');
  return [
    ...(d.recovered.length > 0 ? [`• recovered on its own (still open for the others): ${pods(d.recovered)}`] : []),
    ...(d.deleted.length > 0 ? [`• deleted or replaced (re-test its replacement): ${pods(d.deleted)}`] : []),
    ...(d.other.length > 0 ? [`• no longer counted in this incident, not Running: ${pods(d.other)}`] : []),
  ];
}

/**
 * What changed among the members counted and not listed (domain/kept.ts), when either post had some: the change of
 * the totals that the joins named above and the departures (listed before, not now) do not account for. A member
 * that only moved from counted to listed changes no total; one listed never drops out of the list while it stays.
 */
function notListedLines(before: PostedMembers, now: PostedMembers, nodesNamed: number, podsNamed: number): string[] {
  const total = (m: PostedMembers, k: 'pods' | 'nodes'): number => m[k].length + (m.notListed?.[k] ?? 0);
  const gone = (k: 'pods' | 'nodes'): number => before[k].filter((x) => !now[k].includes(x)).length;
  const line = (k: 'pods' | 'nodes', named: number, what: string): string[] => {
    const n = total(now, k) - total(before, k) - (named - gone(k));
    if (n === 0 || !(before.notListed?.[k] || now.notListed?.[k])) return [];
    return [`• ${total(now, k)} ${what} in all: ${n > 0 ? '+' : '-'}${Math.abs(n)} not named here`];
  };
  return [...line('pods', podsNamed, 'stuck pods'), ...line('nodes', nodesNamed, 'nodes with stuck pods')];
}

// The node rows and stuck pods the record left out (domain/node-rows.ts, kept.ts), counted under the table.
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

/** The repeat_interval reminder: still open, with how long and how many. */
export function renderRepeatReply(incident: Incident, openSinceMs: number, now: number): SlackMessage {
  const text =
    `Still open after ${formatSeconds((now - openSinceMs) / 1000)}: ${plural(stuckPodCount(incident), 'stuck pod')} on ` +
    `${plural(nodeRowCount(incident).withStuckPods, 'node')}, ${plural(incident.cronJobs.length, 'CronJob')} with missed runs.`;
  return { text: incidentFallback(incident, text), blocks: [context(escapeSlack(text))] };
}

/**
 * The reply of a thread that reopens: the incident came back `now`, after its resolution at `resolvedAt` (the root
 * above shows it live again). Its fallback leads with the verdict, as an open incident's does.
 */
export function renderReopenReply(incident: Incident, resolvedAt: number, now: number): SlackMessage {
  const what =
    `${plural(incident.pods.length, 'stuck pod')} on ${plural(nodeRowCount(incident).withStuckPods, 'node')}, ` +
    `${plural(incident.cronJobs.length, 'CronJob')} with missed runs`;
  const text = `It came back ${formatSeconds((now - resolvedAt) / 1000)} after it was resolved: ${what}.`;
  const head = `:rotating_light: *It came back* ${formatSeconds((now - resolvedAt) / 1000)} after the resolution (${slackDate(resolvedAt)}): ${escapeSlack(what)}. The incident is open again; the root shows it as it is now.`;
  return { text: incidentFallback(incident, text), blocks: [section(head)] };
}
