// An incident's members as Slack shows them: node lists (collapsed past a few names), the node table (node | plugin
// revision | plugin pod age | stuck pods) and the affected workloads. The root shows the first rows of the table;
// the evidence reply shows all of it. Every list of nodes in a Slack message goes through nodeList.
import type { Incident, IncidentNode } from '../domain/incident.js';
import { naturalOrder } from '../domain/node-rows.js';
import { escapeSlack } from './escape.js';
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
 * The node table's rows (escaped, unfenced): a header, then one row per node in `nodes` order. The stuck pods
 * column names the first pod and counts the others, so a row stays one phone line.
 */
export function nodeTableRows(nodes: readonly IncidentNode[], ages = true): string[] {
  const rows = nodes.map((n) => [
    n.node,
    n.plugin?.revision !== undefined ? String(n.plugin.revision) : '?',
    ages ? formatSeconds(n.plugin?.ageSeconds) : '-',
    stuckCell(n.stuckPods),
  ]);
  const head = ['node', 'plugin revision', 'plugin pod age', 'stuck pods'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]): string =>
    escapeSlack(cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join(' | '));
  return [fmt(head), ...rows.map(fmt)];
}

function stuckCell(pods: readonly string[]): string {
  if (pods.length === 0) return '0';
  return `${pods.length} (${pods[0]}${pods.length > 1 ? ` and ${pods.length - 1} more` : ''})`;
}

/** One line (escaped mrkdwn) per affected workload with its stuck pods, and per CronJob that missed runs. */
export function workloadLines(incident: Incident): string[] {
  const byKey = new Map(incident.pods.map((p) => [`${p.pod.namespace}/${p.pod.name}`, p]));
  const crons = new Map(incident.cronJobs.map((c) => [`${c.cronJob.namespace}/${c.cronJob.name}`, c]));
  const missed = (c: Incident['cronJobs'][number]): string => {
    const last = c.lastSuccessfulTime ? `last completed ${slackDate(c.lastSuccessfulTime)}` : 'never completed';
    return `${plural(c.missedRuns, 'scheduled run')} missed, ${last} (its run is stuck, so it never started: no job failure alert fires)`;
  };
  const lines = incident.workloads.map((w) => {
    const pods = w.pods.map((key) => {
      const p = byKey.get(key);
      const name = key.includes('/') ? key.slice(key.indexOf('/') + 1) : key;
      const stuck = p
        ? `${p.kind === 'stuck-terminating' ? 'Terminating' : 'ContainerCreating'} ${formatSeconds(p.stuckSeconds)}`
        : 'stuck';
      return `${escapeSlack(name)} (${stuck}${p?.node ? ` on ${escapeSlack(p.node)}` : ''})`;
    });
    const cron = w.kind === 'CronJob' ? crons.get(`${w.namespace}/${w.name}`) : undefined;
    if (cron) crons.delete(`${w.namespace}/${w.name}`);
    // Pods a record counted without listing them (domain/kept.ts).
    if (w.podsNotKept) pods.push(`and ${plural(w.podsNotKept, 'more stuck pod')}, not listed`);
    return `• \`${escapeSlack(w.namespace)}\` ${escapeSlack(w.kind)} *${escapeSlack(w.name)}*: ${cron ? `${missed(cron)}; ` : ''}${pods.join(', ')}`;
  });
  for (const c of crons.values()) {
    lines.push(`• \`${escapeSlack(c.cronJob.namespace)}\` CronJob *${escapeSlack(c.cronJob.name)}*: ${missed(c)}`);
  }
  return lines.length > 0 ? lines : ['• none recorded'];
}
