// An incident's members as Slack shows them: node lists (collapsed past a few names), one line per node (no
// table: a phone wraps its columns) and the affected workloads. The root shows the first node lines; the first
// reply shows them all. Every list of nodes in a Slack message goes through nodeList.
import { failedReasonsPhrase, inProgressPhrase } from '../domain/cron-runs.js';
import type { Incident, IncidentNode } from '../domain/incident.js';
import { naturalOrder } from '../domain/node-rows.js';
import { escapeSlack } from './escape.js';
import { readinessSuffix } from './readiness.js';
import { formatSeconds, plural, slackDate } from './slack-blocks.js';

/** Names a node list shows in full; longer lists collapse to the first and last. */
export const NODE_LIST_NAMES = 6;

export { byStuckPods, naturalOrder } from '../domain/node-rows.js';

/**
 * "3 nodes on revision 2: node-12, node-19, node-40", or past NODE_LIST_NAMES "28 nodes on revision 2: node-12
 * ... node-40" (first and last in natural order). `where` ("on revision 2") may be empty; names are escaped here.
 */
export function nodeList(nodes: readonly string[], where = ''): string {
  const sorted = [...new Set(nodes)].sort(naturalOrder).map(escapeSlack);
  const head = `${plural(sorted.length, 'node')}${where ? ` ${where}` : ''}`;
  if (sorted.length === 0) return head;
  const names = sorted.length <= NODE_LIST_NAMES ? sorted.join(', ') : `${sorted[0]} ... ${sorted[sorted.length - 1]}`;
  return `${head}: ${names}`;
}

/**
 * One line per node (escaped mrkdwn), in `nodes` order, that a phone does not wrap into columns: "• `node-19`
 * revision 2, plugin pod 3h5m: platform/postgres-2", or with `plugin` false "• `node-19`: platform/postgres-2".
 * The plugin facts are left out where the incident has none (a fault that is not storage has no node plugin); a
 * node's first stuck pod is named, the others counted.
 */
export function nodeLines(nodes: readonly IncidentNode[], plugin = true): string[] {
  return nodes.map((n) => {
    const p = plugin ? n.plugin : undefined;
    const facts = [
      ...(p?.revision !== undefined ? [`revision ${p.revision}`] : []),
      ...(p?.ageSeconds !== undefined ? [`plugin pod ${formatSeconds(p.ageSeconds)}`] : []),
    ].join(', ');
    const stuck = n.stuckPods.length === 0 ? 'no stuck pod' : stuckCell(n.stuckPods);
    return `• \`${escapeSlack(n.node)}\`${facts ? ` ${facts}` : ''}: ${escapeSlack(stuck)}`;
  });
}

function stuckCell(pods: readonly string[]): string {
  return `${pods[0]}${pods.length > 1 ? ` and ${plural(pods.length - 1, 'more stuck pod')}` : ''}`;
}

/**
 * One line (escaped mrkdwn) per affected workload with its stuck pods, and per CronJob that missed runs. A bare
 * pod is its own workload: named once ("Pod *trainer-2* (ContainerCreating 30m on node-07)").
 */
export function workloadLines(incident: Incident): string[] {
  const byKey = new Map(incident.pods.map((p) => [`${p.pod.namespace}/${p.pod.name}`, p]));
  const crons = new Map(incident.cronJobs.map((c) => [`${c.cronJob.namespace}/${c.cronJob.name}`, c]));
  const missed = (c: Incident['cronJobs'][number]): string => {
    const last = c.lastSuccessfulTime ? `last completed ${slackDate(c.lastSuccessfulTime)}` : 'never completed';
    // Reasons only (the thread's explanations and `rwx scan` carry the messages): the first reply's budget is shared.
    const said = [escapeSlack(failedReasonsPhrase(c)), inProgressPhrase(c, slackDate)].filter(Boolean).join('; ');
    // Only a run that never started goes unseen by a job failure alert.
    return `${plural(c.missedRuns, 'scheduled run')} missed, ${last}${said ? `; ${said}` : ' (no job failure alert fires: its run never started)'}`;
  };
  const stateOf = (key: string): string => {
    const p = byKey.get(key);
    const stuck = p
      ? `${p.kind === 'stuck-terminating' ? 'Terminating' : 'ContainerCreating'} ${formatSeconds(p.stuckSeconds)}`
      : 'stuck';
    return `(${stuck}${p?.node ? ` on ${escapeSlack(p.node)}` : ''})`;
  };
  const lines = incident.workloads.map((w) => {
    const head = `• \`${escapeSlack(w.namespace)}\` ${escapeSlack(w.kind)} *${escapeSlack(w.name)}*${readinessSuffix(w.readiness)}`;
    if (w.kind === 'Pod' && w.pods.length === 1) return `${head} ${stateOf(w.pods[0]!)}`;
    const pods = w.pods.map((key) => `${escapeSlack(key.slice(key.indexOf('/') + 1))} ${stateOf(key)}`);
    const cron = w.kind === 'CronJob' ? crons.get(`${w.namespace}/${w.name}`) : undefined;
    if (cron) crons.delete(`${w.namespace}/${w.name}`);
    // Pods a record counted without listing them (domain/kept.ts).
    if (w.podsNotKept) pods.push(`and ${plural(w.podsNotKept, 'more stuck pod')}, not listed`);
    return `${head}: ${cron ? missed(cron) : ''}${cron && pods.length > 0 ? '; ' : ''}${pods.join(', ')}`;
  });
  for (const c of crons.values()) {
    lines.push(`• \`${escapeSlack(c.cronJob.namespace)}\` CronJob *${escapeSlack(c.cronJob.name)}*: ${missed(c)}`);
  }
  return lines.length > 0 ? lines : ['• none recorded'];
}
