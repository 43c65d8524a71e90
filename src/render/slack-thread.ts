// Thread replies after the first (slack-evidence.ts): the changes since the last post, the repeat reminder and
// the reopening.
export { eventLines, renderEvidenceReply, renderEvidenceRest, renderNoEvidenceRest } from './slack-evidence.js';
import type { Incident } from '../domain/incident.js';
import { type DepartedMembers, type PostedMembers, membersOf, podOfMemberKey } from '../domain/members.js';
import { stuckPodCount } from '../domain/kept.js';
import { escapeSlack } from './escape.js';
import { proofChangeLines } from './slack-proof.js';
import { incidentFallback, summaryWords } from './slack-fallback.js';
import { nodeRowCount } from '../domain/node-rows.js';
import {
  type SlackMessage,
  capBlocks,
  context,
  formatSeconds,
  listSection,
  plural,
  section,
  slackDate,
  slackDates,
} from './slack-blocks.js';

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
  const proof = incident.verdict === 'NOT_STORAGE' ? [] : proofChangeLines(incident.proof, before.proof);
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
  const head = `*Changed:* ${slackDates(escapeSlack(summaryWords(incident.summary)))}`;
  return {
    text: incidentFallback(incident, `Changed: ${summaryWords(incident.summary)}`),
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
