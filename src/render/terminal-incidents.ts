// `rwx scan` output: each incident with its key, verdict, counts, members, node table (plugin revision and age),
// CronJobs, explanations, next steps and drain advice per affected node.
import type { BlindSpot, Incident } from '../domain/incident.js';
import { blindSentence } from '../advise/blind.js';
import { inProgressPhrase } from '../domain/cron-runs.js';
import { formatAge } from '../domain/duration.js';
import { renderDrainLine } from './terminal-drain.js';
import { readinessSuffix } from './readiness.js';
import { clean, table } from './terminal-text.js';

function rolloutLines(inc: Incident): string[] {
  const ev = inc.rollout;
  if (!ev) return [];
  const c = ev.counts;
  const prev = ev.previousRevision !== undefined ? `revision ${ev.previousRevision}` : 'previous';
  return [
    `  Rollout: ${ev.daemonSet.namespace}/${ev.daemonSet.name} revision ${ev.newRevision}, started ${ev.rolloutStart ?? 'unknown'}, ${ev.updatedNodes}/${ev.desiredNodes} nodes updated`,
    ...table(
      ['NODES', 'STUCK', 'FINE', 'MOUNTED SINCE PLUGIN START'],
      [
        [`revision ${ev.newRevision} (new)`, String(c.newStuck), String(c.newFine), String(c.newProven ?? 0)],
        [prev, String(c.oldStuck), String(c.oldFine), String(c.oldProven ?? 0)],
      ],
      '    ',
    ),
    `  Revision diff ${ev.previousRevision ?? '?'} -> ${ev.newRevision}:${ev.diff.length === 0 ? ' (no template change found)' : ''}`,
    // Container-level texts already start with the container name; mount texts name the mount, so add the container.
    ...ev.diff.map(
      (d) =>
        `    [${d.category}]${d.container && !d.text.startsWith(`${d.container}:`) ? ` (${clean(d.container)})` : ''} ${clean(d.text)}`,
    ),
  ];
}

/** Options of the terminal output; `wide` is `-o wide`. */
export interface IncidentTextOptions {
  /** Adds the incident's driver, DaemonSet and revision, and node columns DAEMONSET, PLUGIN STARTED, STUCK, RUNNING. */
  wide?: boolean;
}

/** The incident's driver, DaemonSet and revision as one line (wide), or nothing when it names none. */
function ownerLine(inc: Incident): string[] {
  const parts = [
    inc.driver !== undefined && `Driver: ${inc.driver}`,
    inc.daemonSet && `DaemonSet: ${inc.daemonSet.namespace}/${inc.daemonSet.name}`,
    inc.revision !== undefined && `Revision: ${inc.revision}`,
  ].filter((p): p is string => typeof p === 'string');
  return parts.length > 0 ? [`  ${clean(parts.join('  '))}`] : [];
}

/** The node table; wide adds the plugin's DaemonSet and start time and the pod counts. */
function nodeTable(inc: Incident, wide: boolean): string[] {
  const header = wide
    ? ['NODE', 'DAEMONSET', 'PLUGIN', 'REVISION', 'PLUGIN AGE', 'PLUGIN STARTED', 'STUCK', 'RUNNING', 'STUCK PODS']
    : ['NODE', 'PLUGIN', 'REVISION', 'PLUGIN AGE', 'STUCK PODS'];
  const rows = inc.nodes.map((n) => {
    const ds = n.plugin?.daemonSet ? `${n.plugin.daemonSet.namespace}/${n.plugin.daemonSet.name}` : '-';
    const running = n.runningPods ?? [];
    const common = [
      n.plugin?.pod ?? '-',
      n.plugin?.revision !== undefined ? String(n.plugin.revision) : '-',
      n.plugin?.ageSeconds !== undefined ? formatAge(n.plugin.ageSeconds * 1000) : '-',
    ];
    const wideCells = wide ? [n.plugin?.createdAt ?? '-', String(n.stuckPods.length), String(running.length)] : [];
    return [
      n.node,
      ...(wide ? [ds] : []),
      ...common,
      ...wideCells,
      n.stuckPods.join(' ') || '-',
      running.join(' ') || '-',
    ];
  });
  return table([...header, 'RUNNING (same workloads)'], rows, '    ');
}

/** Renders one incident as plain text lines. */
export function renderIncident(inc: Incident, opts: IncidentTextOptions = {}): string[] {
  const out = [
    `[${inc.verdict}] ${clean(inc.key)}`,
    `  ${clean(inc.title)}`,
    ...(opts.wide ? ownerLine(inc) : []),
    `  ${clean(inc.summary)}`,
    ...rolloutLines(inc),
  ];
  if (inc.nodes.length > 0) {
    out.push('  Nodes:');
    out.push(...nodeTable(inc, opts.wide === true));
  }
  if (inc.workloads.length > 0) {
    out.push('  Workloads:');
    for (const w of inc.workloads)
      out.push(
        `    ${clean(`${w.kind} ${w.namespace}/${w.name}${readinessSuffix(w.readiness)}`)}: ${clean(w.pods.join(' ') || '(no stuck pod)')}`,
      );
  }
  if (inc.cronJobs.length > 0) {
    out.push('  CronJobs:');
    for (const c of inc.cronJobs) {
      const jobs = c.jobs.map(
        (j) =>
          `${j.name} (active ${j.active}, succeeded ${j.succeeded}, failed ${j.failed}${j.pods.length ? `, pods ${j.pods.join(' ')}` : ''})${j.failure ? `: ${j.failure}` : ''}`,
      );
      out.push(
        clean(
          `    ${c.cronJob.namespace}/${c.cronJob.name}  "${c.schedule}"${c.timeZone ? ` ${c.timeZone}` : ''}: ${c.missedRuns} missed run${c.missedRuns === 1 ? '' : 's'}, latest scheduled ${c.latestScheduled}, last success ${c.lastSuccessfulTime ?? 'never'}`,
        ),
      );
      if (c.inProgress) out.push(clean(`      ${inProgressPhrase(c)}`));
      for (const j of jobs) out.push(clean(`      job ${j}`));
    }
  }
  if ((inc.explanations ?? []).length > 0) {
    out.push('  Why:');
    for (const e of inc.explanations ?? []) out.push(`    - ${clean(e)}`);
  }
  if (inc.nextSteps.length > 0) {
    out.push('  Next steps:');
    inc.nextSteps.forEach((s, i) => out.push(`    ${i + 1}. ${clean(s)}`));
  }
  if (inc.drain.length > 0) {
    out.push('  Drain advice:');
    for (const d of inc.drain) out.push(`    ${renderDrainLine(d)}`);
  }
  return out;
}

/** Renders every incident, separated by blank lines, with a one-line header. */
export function renderIncidents(
  incidents: readonly Incident[],
  blind: readonly BlindSpot[] = [],
  opts: IncidentTextOptions = {},
): string {
  // With an input unread, "none found" is not "none": say so instead (and above any incidents found anyway).
  const unseen = blind.length > 0 ? `${clean(`Incomplete view. ${blindSentence(blind)}`)}\n` : '';
  if (incidents.length === 0) {
    return blind.length > 0
      ? `Cannot tell whether there are incidents: none found in what could be read.\n${unseen}`
      : 'No incidents: no stuck pods and no missed CronJob runs.\n';
  }
  const head = `${incidents.length} incident${incidents.length === 1 ? '' : 's'}: ${incidents.map((i) => `${i.verdict} ${i.key}`).join(', ')}`;
  return `${unseen}${clean(head)}\n\n${incidents.map((i) => renderIncident(i, opts).join('\n')).join('\n\n')}\n`;
}
