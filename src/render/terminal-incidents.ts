// `rwx scan` output: each incident with its key, verdict, counts, members, node table (plugin revision and age),
// CronJobs, explanations, next steps and drain advice per affected node.
import type { BlindSpot, Incident } from '../domain/incident.js';
import { blindSentence } from '../advise/blind.js';
import { formatAge } from '../domain/duration.js';
import { renderDrainLine } from './terminal-drain.js';
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

/** Renders one incident as plain text lines. */
export function renderIncident(inc: Incident): string[] {
  const out = [
    `[${inc.verdict}] ${clean(inc.key)}`,
    `  ${clean(inc.title)}`,
    `  ${clean(inc.summary)}`,
    ...rolloutLines(inc),
  ];
  if (inc.nodes.length > 0) {
    out.push('  Nodes:');
    out.push(
      ...table(
        ['NODE', 'PLUGIN', 'REVISION', 'PLUGIN AGE', 'STUCK PODS', 'RUNNING (same workloads)'],
        inc.nodes.map((n) => [
          n.node,
          n.plugin?.pod ?? '-',
          n.plugin?.revision !== undefined ? String(n.plugin.revision) : '-',
          n.plugin?.ageSeconds !== undefined ? formatAge(n.plugin.ageSeconds * 1000) : '-',
          n.stuckPods.join(' ') || '-',
          (n.runningPods ?? []).join(' ') || '-',
        ]),
        '    ',
      ),
    );
  }
  if (inc.workloads.length > 0) {
    out.push('  Workloads:');
    for (const w of inc.workloads)
      out.push(`    ${clean(`${w.kind} ${w.namespace}/${w.name}`)}: ${clean(w.pods.join(' ') || '(no stuck pod)')}`);
  }
  if (inc.cronJobs.length > 0) {
    out.push('  CronJobs:');
    for (const c of inc.cronJobs) {
      const jobs = c.jobs.map(
        (j) =>
          `${j.name} (active ${j.active}, succeeded ${j.succeeded}, failed ${j.failed}${j.pods.length ? `, pods ${j.pods.join(' ')}` : ''})`,
      );
      out.push(
        clean(
          `    ${c.cronJob.namespace}/${c.cronJob.name}  "${c.schedule}"${c.timeZone ? ` ${c.timeZone}` : ''}: ${c.missedRuns} missed run${c.missedRuns === 1 ? '' : 's'}, latest scheduled ${c.latestScheduled}, last success ${c.lastSuccessfulTime ?? 'never'}`,
        ),
      );
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
export function renderIncidents(incidents: readonly Incident[], blind: readonly BlindSpot[] = []): string {
  // With an input unread, "none found" is not "none": say so instead (and above any incidents found anyway).
  const unseen = blind.length > 0 ? `${clean(`Incomplete view. ${blindSentence(blind)}`)}\n` : '';
  if (incidents.length === 0) {
    return blind.length > 0
      ? `Cannot tell whether there are incidents: none found in what could be read.\n${unseen}`
      : 'No incidents: no stuck pods and no missed CronJob runs.\n';
  }
  const head = `${incidents.length} incident${incidents.length === 1 ? '' : 's'}: ${incidents.map((i) => `${i.verdict} ${i.key}`).join(', ')}`;
  return `${unseen}${clean(head)}\n\n${incidents.map((i) => renderIncident(i).join('\n')).join('\n\n')}\n`;
}
