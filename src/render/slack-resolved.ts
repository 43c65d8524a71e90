// The root of a resolved incident: a summary of the whole incident from the record's history (the peak, how long,
// every node and workload involved), not the last partial state the correlator reported before it cleared.
import type { Incident } from '../domain/incident.js';
import type { IncidentHistory } from '../domain/history.js';
import { escapeSlack } from './escape.js';
import {
  type Block,
  type IncidentState,
  type SlackMessage,
  capBlocks,
  context,
  formatSeconds,
  slackDate,
  header,
  listSection,
  plural,
  section,
} from './slack-blocks.js';
import { incidentFallback, incidentTitle } from './slack-fallback.js';
import { type RootOptions, headline, statusLine } from './slack-incident.js';
import { parentThreadLine } from './slack-links.js';
import { nodeList } from './slack-members.js';

/** Workload lines the resolved root shows; the resolution reply names every pod. */
const ROOT_WORKLOADS = 2;
/** Pods named per workload line; the rest are counted. */
const PODS_PER_WORKLOAD = 10;

/** The resolved root: headline, peak, duration, nodes and workloads involved; no buttons. */
export function renderResolvedRoot(
  incident: Incident,
  history: IncidentHistory,
  state: IncidentState,
  opts: Pick<RootOptions, 'parent'> = {},
): SlackMessage {
  const blocks: Block[] = [header(`Resolved: ${incidentTitle(incident)}`)];
  const p = history.peak;
  const worst =
    `At its worst: ${plural(p.pods, 'stuck pod')} on ${plural(p.nodes, 'node')}` +
    `${p.cronJobs > 0 ? `, ${plural(p.cronJobs, 'CronJob')} with missed runs` : ''}` +
    ` (${plural(history.pods.length + history.omittedPods, 'pod')} stuck over the whole incident).`;
  blocks.push(section(`${headline(incident, true)}\n${span(history)}${escapeSlack(worst)}`));
  // The headline says it is resolved: the status line only when it says more (who resolved it, an ack).
  const status = statusLine(state.resolvedBy ? state : { ...state, resolvedAt: undefined, muteUntil: undefined });
  if (status) blocks.push(context(status));
  const more = history.omittedNodes > 0 ? ` and at least ${history.omittedNodes} more` : '';
  blocks.push(section(`*Nodes involved:* ${nodeList(history.nodes)}${more}`));
  const workloads = workloadLines(history);
  const hidden = workloads.length - ROOT_WORKLOADS;
  blocks.push(
    listSection(
      '*Affected workloads*',
      hidden > 0 ? [...workloads.slice(0, ROOT_WORKLOADS), `...and ${hidden} more in the thread`] : workloads,
    ),
  );
  if (opts.parent) blocks.push(context(parentThreadLine(opts.parent)));
  blocks.push(context(`Which pods recovered on their own: in the thread · \`${escapeSlack(incident.key)}\``));
  return { text: incidentFallback(incident, incidentTitle(incident), true), blocks: capBlocks(blocks) };
}

// "Stuck mounts from T1 to T2 (3h12m). " in cluster time; empty when the history has no pod times.
function span(h: IncidentHistory): string {
  if (h.firstStuckAt === undefined || h.lastStuckAt === undefined) return '';
  return `Pods stuck from ${slackDate(h.firstStuckAt)} to ${slackDate(h.lastStuckAt)} (${formatSeconds((h.lastStuckAt - h.firstStuckAt) / 1000)}). `;
}

function workloadLines(h: IncidentHistory): string[] {
  const byWorkload = new Map<string, { kind: string; namespace: string; name: string; pods: string[] }>();
  for (const p of h.pods) {
    const k = `${p.workload.kind}/${p.workload.namespace}/${p.workload.name}`;
    const w = byWorkload.get(k) ?? { ...p.workload, pods: [] };
    const name = p.pod.slice(p.pod.indexOf('/') + 1);
    w.pods.push(p.node ? `${name} (on ${p.node})` : name);
    byWorkload.set(k, w);
  }
  const crons = new Map(h.cronJobs.map((c) => [c.cronJob, c]));
  const lines = [...byWorkload.values()].map((w) => {
    const cron = w.kind === 'CronJob' ? crons.get(`${w.namespace}/${w.name}`) : undefined;
    if (cron) crons.delete(cron.cronJob);
    const shown =
      w.pods.slice(0, PODS_PER_WORKLOAD).join(', ') +
      (w.pods.length > PODS_PER_WORKLOAD ? ` and ${w.pods.length - PODS_PER_WORKLOAD} more` : '');
    const missed = cron ? `${plural(cron.missedRuns, 'scheduled run')} missed; ` : '';
    return `• \`${escapeSlack(w.namespace)}\` ${escapeSlack(w.kind)} *${escapeSlack(w.name)}*: ${missed}${escapeSlack(shown)}`;
  });
  for (const c of crons.values()) {
    const [ns, name] = [c.cronJob.slice(0, c.cronJob.indexOf('/')), c.cronJob.slice(c.cronJob.indexOf('/') + 1)];
    lines.push(
      `• \`${escapeSlack(ns)}\` CronJob *${escapeSlack(name)}*: ${plural(c.missedRuns, 'scheduled run')} missed`,
    );
  }
  // CronJobs first: a missed run is the finding a resolution most easily hides.
  lines.sort((a, b) => Number(!a.includes(' CronJob ')) - Number(!b.includes(' CronJob ')));
  if (h.omittedPods + h.omittedCronJobs > 0)
    lines.push(`• ...and at least ${h.omittedPods + h.omittedCronJobs} more members not kept in the record`);
  return lines.length > 0 ? lines : ['• none recorded'];
}
