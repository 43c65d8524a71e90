// The resolution reply: which pods recovered on their own and which were deleted (seed verification step 3), and
// whether each missed CronJob has completed since (step 5). The caller says what it observed; we only render it.
import type { Incident } from '../domain/incident.js';
import { escapeSlack } from './escape.js';
import { type Block, type SlackMessage, capBlocks, formatTime, listSection, mention, section } from './slack-blocks.js';

/** What the caller observed when an incident cleared. Pods are "namespace/name". */
export interface ResolutionFacts {
  /** Pods that reached Running without being deleted. */
  recovered: string[];
  /** Pods deleted (or replaced) during the incident: re-test these. */
  deleted: string[];
  /** Per missed CronJob ("namespace/name"): whether a run has completed since, and when. */
  cronJobs: { cronJob: string; completedSince: boolean; at?: string }[];
  /** Set when someone pressed Resolve rather than every member recovering. */
  manual?: { user: string; at: number };
}

/** Facts when the caller observed nothing: every pod counted as no longer stuck, CronJobs unknown. */
export function defaultFacts(incident: Incident): ResolutionFacts {
  return {
    recovered: [],
    deleted: [],
    cronJobs: incident.cronJobs.map((c) => ({ cronJob: `${c.cronJob.namespace}/${c.cronJob.name}`, completedSince: false })),
  };
}

/** The resolution reply posted in the thread. */
export function renderResolution(incident: Incident, facts: ResolutionFacts, resolvedAt: number): SlackMessage {
  const head = facts.manual
    ? `:white_check_mark: *Resolved manually* by ${mention(facts.manual.user)} at ${formatTime(facts.manual.at)}.`
    : `:white_check_mark: *Resolved* at ${formatTime(resolvedAt)}: no member is stuck any more.`;
  const blocks: Block[] = [section(head)];
  const lines: string[] = [];
  for (const p of facts.recovered) lines.push(`• \`${escapeSlack(p)}\` recovered on its own (reached Running without being deleted)`);
  for (const p of facts.deleted) lines.push(`• \`${escapeSlack(p)}\` was deleted during the incident: re-test it, it proves nothing about its node`);
  if (lines.length > 0) blocks.push(listSection('*Pods*', lines));
  const crons = facts.cronJobs.map((c) =>
    c.completedSince
      ? `• CronJob \`${escapeSlack(c.cronJob)}\` has completed a run since${c.at ? ` (${formatTime(c.at)})` : ''}: check the artefact is the right size`
      : `• CronJob \`${escapeSlack(c.cronJob)}\` has *not* completed a run since: its missed runs are a second finding, check what they cost`);
  if (crons.length > 0) blocks.push(listSection('*CronJobs*', crons));
  if (incident.verdict === 'FOLLOWS_ROLLOUT') {
    blocks.push(listSection('*Before closing*', [
      '• On a node that was broken, check the CSI mount of a test volume appears in the host mount namespace, not only in the plugin container.',
      '• Mount a fresh claim with a short-lived pod on each formerly broken node, one node at a time.',
      '• Uncordon the nodes you cordoned, and bring any drained node back into service.',
    ]));
  }
  return { text: escapeSlack(`Resolved: ${incident.title}`), blocks: capBlocks(blocks) };
}
