// The resolution reply: for every pod the incident ever had stuck, whether it recovered on its own or was deleted
// or replaced (those must be re-tested: a new pod proves nothing about its node), and for every CronJob that
// missed runs whether it has completed a run since. The caller says what it observed; we only render it, with the
// node and workload of each pod from the record's history.
import type { Incident } from '../domain/incident.js';
import type { Layer } from '../domain/location.js';
import type { HistoryPod, IncidentHistory } from '../domain/history.js';
import type { ResolutionFacts } from '../domain/resolution.js';
import { escapeSlack } from './escape.js';
import { proofRecheckBlock, provenVisible } from './slack-proof.js';
import { incidentFallback, incidentTitle } from './slack-fallback.js';
import { nodeList } from './slack-members.js';
import {
  type Block,
  type SlackMessage,
  capBlocks,
  slackDate,
  listSection,
  mention,
  plural,
  section,
} from './slack-blocks.js';

/**
 * The line for a CronJob that has completed a run (`at`, its lastSuccessfulTime) or no longer exists; `since`
 * says since when ("since", "since the resolution"). Shared by the resolution reply and its follow-up.
 */
export function cronJobDoneLine(label: string, c: { at?: string; gone?: boolean }, since: string): string {
  return c.gone
    ? `• ${label} no longer exists: check what its missed runs cost`
    : `• ${label} has completed a run ${since}${c.at ? ` (${slackDate(c.at)})` : ''}: check the artefact is the right size`;
}

// One group of pods: what the line says after the pod, in the order an on-call engineer acts on them.
const POD_GROUPS: {
  field: keyof Omit<ResolutionFacts, 'cronJobs' | 'manual' | 'proof'>;
  says: string;
  count: string;
}[] = [
  {
    field: 'deleted',
    says: 'deleted or replaced during the incident: re-test it, a new pod proves nothing about its node',
    count: 'deleted or replaced',
  },
  { field: 'notRunning', says: 'not Running yet: check it before closing', count: 'not Running yet' },
  {
    field: 'terminated',
    says: 'finished terminating: if it was force-deleted, check its volume before trusting it',
    count: 'finished terminating',
  },
  { field: 'recovered', says: 'recovered on its own (ran without being deleted)', count: 'recovered on their own' },
  { field: 'unchecked', says: 'no longer stuck (not checked)', count: 'not checked' },
];

/**
 * Layers where the pod's own spec or its scheduling held it, not a node: a replaced pod is then checked by its
 * replacement running, and says nothing about a node either way.
 */
const NOT_A_NODE_LAYERS: ReadonlySet<Layer> = new Set(['configuration', 'image', 'scheduling', 'provision']);
const REPLACED_NOT_A_NODE = 'deleted or replaced during the incident: check that its replacement is Running';

/** What the line of a pod in group `g` says: the replaced pod's line follows the layer the incident is held at. */
function says(incident: Incident, g: (typeof POD_GROUPS)[number]): string {
  const layer = incident.location?.layer;
  return g.field === 'deleted' && layer && NOT_A_NODE_LAYERS.has(layer) ? REPLACED_NOT_A_NODE : g.says;
}

/** The resolution reply posted in the thread: one line per pod and CronJob the incident ever had. */
export function renderResolution(incident: Incident, history: IncidentHistory, facts: ResolutionFacts): SlackMessage {
  const head = facts.manual
    ? `:white_check_mark: *Resolved manually* by ${mention(facts.manual.user)} at ${slackDate(facts.manual.at)}.`
    : movedOff(incident, facts)
      ? `:white_check_mark: *Resolved: no pod is stuck on \`${escapeSlack(incident.node ?? '')}\` any more because its stuck pods moved* (deleted or replaced, none recovered there). The node was not shown to mount again.`
      : ':white_check_mark: *Resolved*: no member is stuck any more.';
  const blocks: Block[] = [section(head)];
  const byPod = new Map(history.pods.map((p) => [p.pod, p]));
  const groups = POD_GROUPS.map((g) => ({ ...g, pods: facts[g.field] ?? [] })).filter((g) => g.pods.length > 0);
  const total = groups.reduce((n, g) => n + g.pods.length, 0);
  const omitted = history.omittedPods > 0 ? ` (and at least ${history.omittedPods} more not kept in the record)` : '';
  groups.forEach((g, i) => {
    const title =
      i === 0
        ? `*${plural(total, 'pod')} stuck during the incident${omitted}:* ${groups.map((x) => `${x.pods.length} ${x.count}`).join(', ')}`
        : '';
    blocks.push(
      listSection(
        title,
        g.pods.map((p) => `• ${podLabel(p, byPod.get(p))}: ${says(incident, g)}`),
      ),
    );
  });
  const firstSeen = new Map(history.cronJobs.map((c) => [c.cronJob, c]));
  const crons = facts.cronJobs.map((c) => {
    const h = firstSeen.get(c.cronJob);
    const label = `CronJob \`${escapeSlack(c.cronJob)}\`${h ? ` (${plural(h.missedRuns, 'scheduled run')} missed, seen from ${slackDate(h.firstSeen)})` : ''}`;
    if (c.completedSince === undefined && !c.gone)
      return `• ${label}: not checked; see whether it has completed a run since`;
    if (c.gone || c.completedSince) return cronJobDoneLine(label, c, 'since');
    const next = c.nextRunAt
      ? ` (next scheduled run ${slackDate(c.nextRunAt)}; this thread will say when one completes)`
      : '';
    return c.running
      ? `• ${label} has *not* completed a run since; one is running now: check it completes and its artefact is the right size, and what the missed runs cost${next}`
      : `• ${label} has *not* completed a run since: its missed runs are a second finding, check what they cost${next}`;
  });
  if (crons.length > 0) blocks.push(listSection('*CronJobs*', crons));
  // A fault that is not storage: the node agents' storage checks say nothing about it.
  const recheck = incident.verdict === 'NOT_STORAGE' ? undefined : proofRecheckBlock(facts.proof);
  if (recheck) blocks.push(recheck);
  const before = beforeClosing(incident, history, facts);
  if (before.length > 0) blocks.push(listSection('*Before closing*', before));
  return { text: incidentFallback(incident, incidentTitle(incident), true), blocks: capBlocks(blocks) };
}

function podLabel(key: string, p: HistoryPod | undefined): string {
  if (!p) return `\`${escapeSlack(key)}\``;
  const where = [`${p.workload.kind} ${p.workload.name}`, ...(p.node ? [`on ${p.node}`] : [])].join(' ');
  return `\`${escapeSlack(key)}\` (${escapeSlack(where)})`;
}

function beforeClosing(incident: Incident, history: IncidentHistory, facts: ResolutionFacts): string[] {
  const lines: string[] = [];
  if (incident.verdict === 'FOLLOWS_ROLLOUT') {
    const nodes =
      history.nodes.length > 0
        ? nodeList(history.nodes) + (history.omittedNodes > 0 ? ` and at least ${history.omittedNodes} more` : '')
        : '';
    lines.push(
      visibleEverywhere(facts)
        ? '• The node agents found every CSI mount visible from the host on the formerly broken nodes (above): the propagation is back.'
        : '• On a node that was broken, check the CSI mount of a test volume appears in the host mount namespace, not only in the plugin container.',
      `• Mount a fresh claim with a short-lived pod on each formerly broken node, one node at a time${nodes ? `: ${nodes}` : ''}.`,
      '• Uncordon the nodes you cordoned, and bring any drained node back into service.',
    );
  }
  if (movedOff(incident, facts)) {
    lines.push(
      `• \`${escapeSlack(incident.node ?? '')}\` may be as broken as before: mount a fresh claim there before uncordoning it or sending pods back.`,
    );
  }
  if ((facts.terminated ?? []).length > 0) {
    lines.push(
      '• If any VolumeAttachment was force-removed or any StatefulSet pod force-deleted during the incident, run a filesystem check on its volume before trusting it.',
    );
  }
  return lines;
}

// Whether a node's incident ended because its stuck pods left the node (deleted or replaced), none recovering
// there: the pods moved, the node was not shown to mount again.
function movedOff(incident: Incident, facts: ResolutionFacts): boolean {
  const left = (facts.deleted ?? []).length;
  return (
    incident.verdict === 'FOLLOWS_NODE' &&
    incident.node !== undefined &&
    left > 0 &&
    (facts.recovered ?? []).length === 0
  );
}

// Whether the agents checked every node the incident had again and found every CSI mount visible from the host.
function visibleEverywhere(facts: ResolutionFacts): boolean {
  return facts.proof !== undefined && provenVisible(facts.proof);
}
