// A node report for the terminal (`rwx node`, `rwx agent --once`): the findings first, in the bot's own words,
// then the evidence behind them. Pure. Process names and paths come from the node (a process can name itself
// anything), so the whole text is cleaned of control characters before it reaches a terminal.
import type { AgentReport, FindingScope, ProcessRef } from '../domain/node-report.js';
import { findingText, nodeFindings } from '../detect/node-findings.js';
import { clean, table } from './terminal-text.js';

function proc(p: ProcessRef): string {
  const where = [p.podUid ? `pod ${p.podUid}` : '', p.containerId ? `container ${p.containerId.slice(0, 12)}` : '']
    .filter(Boolean)
    .join(', ');
  return `${p.pid} ${p.comm}${where ? ` (${where})` : ''}`;
}

/** BUSY MOUNTS: the pod volume mounts something holds, with what; nothing from older agents. */
function busyLines(r: AgentReport): string[] {
  const b = r.busyMounts;
  if (!b) return [];
  const held = b.mounts.filter((m) => m.processCount > 0 || m.namespaces.length > 0);
  const out = ['', `BUSY MOUNTS  ${b.status}: ${held.length} of ${b.mounts.length} pod volume mount(s) held`];
  for (const m of held) {
    out.push(`    ${m.mountPoint}`);
    for (const p of m.processes) out.push(`      process ${proc(p)}: ${p.via} ${p.path}`);
    if (m.processCount > m.processes.length)
      out.push(`      and ${m.processCount - m.processes.length} more process(es)`);
    for (const ns of m.namespaces) out.push(`      copy in namespace ${ns.id} (${ns.processCount} process(es))`);
  }
  if (b.unreadableCount > 0)
    out.push(
      `    unreadable: ${b.unreadableCount} process(es): ${b.unreadable.map((u) => `${u.pid} (${u.reason})`).join(', ')}`,
    );
  return out;
}

/** The report as text, ending with a newline. `source` says where it came from (a pod, a URL). */
export function renderReport(r: AgentReport, scope: FindingScope = {}, source?: string): string {
  const out = [
    ...header(r, source),
    'FINDINGS',
    ...nodeFindings(r, scope).map((f) => `    ${findingText(f)}`),
    '',
    ...propagation(r),
    '',
    ...stagedVolumes(r),
    '',
    ...mountOptions(r),
    ...busyLines(r),
  ];
  if (r.problems.length) out.push('', 'COULD NOT READ', ...r.problems.map((x) => `    ${x}`));
  return `${clean(out.join('\n'))}\n`;
}

/** Whose report it is, from where, and a warning first when the demo made it up. */
function header(r: AgentReport, source: string | undefined): string[] {
  const out: string[] = [];
  if (r.simulated) out.push('SIMULATED: this report was made up by the demo, not read from a node.');
  const from = source ? ` from ${source}` : '';
  out.push(`node ${r.node}: agent ${r.agentVersion} report at ${r.generatedAt}${from}`, '');
  return out;
}

/** PROPAGATION: the host's CSI mounts, then each mount namespace with its processes and the mounts hidden there. */
function propagation(r: AgentReport): string[] {
  const p = r.propagation;
  const out = [`PROPAGATION  ${p.status}`];
  const host = `host namespace ${p.hostNamespace ?? '(unknown)'} (pid ${r.hostPid})`;
  const scanned = `${p.namespacesScanned} namespace(s), ${p.processesScanned} process(es) scanned`;
  out.push(`    ${host}: ${p.hostCsiMounts} CSI mount(s) under ${r.kubeletDir}; ${scanned}`);
  for (const ns of p.namespaces) {
    const listed = ns.processes.map(proc).join('; ');
    const more = ns.processCount > ns.processes.length ? `; ${ns.processCount - ns.processes.length} more` : '';
    const counts = `${ns.mountsUnderKubeletDir} mount(s) under the kubelet dir, ${ns.hidden.length} hidden from the host`;
    out.push(`    namespace ${ns.id}: ${counts}`);
    out.push(`      processes ${listed || '(none listed)'}${more}`);
    for (const m of ns.hidden) out.push(`      hidden ${m.mountPoint}  ${m.source}  ${m.fstype}`);
  }
  if (p.unreadableProcesses.length)
    out.push(`    unreadable: ${p.unreadableProcesses.map((u) => `${u.pid} (${u.reason})`).join(', ')}`);
  return out;
}

/** STAGED VOLUMES: one row per globalmount, or "(none)". */
function stagedVolumes(r: AgentReport): string[] {
  const s = r.stagedVolumes;
  const head = `STAGED VOLUMES  ${s.status}`;
  if (s.volumes.length === 0) return [head, '    (none)'];
  return [
    head,
    ...table(
      ['STATE', 'DRIVER', 'VOLUME', 'POD MOUNTS', 'POD DIRS', 'PATH'],
      s.volumes.map((v) => [
        v.state,
        v.driver ?? '-',
        v.pv ?? v.sha?.slice(0, 12) ?? '-',
        String(v.podMounts),
        String(v.podUids.length),
        v.path,
      ]),
      '    ',
    ),
  ];
}

/** MOUNT OPTIONS: one row per network volume, with the options that decide how it fails. */
function mountOptions(r: AgentReport): string[] {
  const o = r.mountOptions;
  const out = [`MOUNT OPTIONS  ${o.status === 'ok' ? `${o.volumes.length} network volume(s)` : 'unknown'}`];
  if (o.volumes.length)
    out.push(
      ...table(
        ['VOLUME', 'FSTYPE', 'VERS', 'HARD/SOFT', 'TIMEO', 'ACTIMEO', 'LOCK', 'SOURCE'],
        o.volumes.map((v) => [
          v.volume,
          v.fstype,
          v.options.vers ?? '-',
          v.options.recovery ?? '-',
          v.options.timeo ?? '-',
          v.options.actimeo ?? '-',
          v.options.lock ?? '-',
          v.source,
        ]),
        '    ',
      ),
    );
  return out;
}
