// What the bot states from node reports: domain data, then one rendering function (findingText) that every
// surface (the thread, triage, `rwx node`) uses, so they cannot word the same proof differently. Pure.
import {
  UNSTATED_OPTION,
  type AgentReport,
  type ComparedOption,
  type FindingScope,
  type MountRef,
  type NodeFinding,
  type ProcessRef,
} from '../domain/node-report.js';

const matchesDriver = (m: MountRef, driver?: string) => !driver || !m.driver || m.driver === driver;

/** The findings one node report supports. */
export function nodeFindings(report: AgentReport, scope: FindingScope = {}): NodeFinding[] {
  const base: { node: string; simulated?: true } = {
    node: scope.node ?? report.node,
    ...(report.simulated ? { simulated: true as const } : {}),
  };
  const drv = scope.driver ? { driver: scope.driver } : {};
  const out: NodeFinding[] = [];
  const p = report.propagation;
  const lost = p.namespaces
    .map((ns) => ({ ns, hidden: ns.hidden.filter((m) => m.csi && matchesDriver(m, scope.driver)) }))
    .filter((x) => x.hidden.length > 0);
  if (lost.length) {
    out.push({
      ...base,
      kind: 'PROPAGATION_LOST',
      kubeletDir: report.kubeletDir,
      ...drv,
      mounts: lost.reduce((n, x) => n + x.hidden.length, 0),
      mountPoints: lost.flatMap((x) => x.hidden.map((m) => m.mountPoint)),
      namespaces: lost.map(({ ns }) => ({
        id: ns.id,
        processes: ns.processes,
        plugin: scope.pluginPodUid !== undefined && ns.processes.some((pr) => pr.podUid === scope.pluginPodUid),
      })),
    });
  } else if (p.status === 'unknown') {
    out.push({ ...base, kind: 'PROOF_UNAVAILABLE', check: 'propagation', reason: blindReason(report) });
  } else {
    out.push({
      ...base,
      kind: 'PROPAGATION_VISIBLE',
      kubeletDir: report.kubeletDir,
      ...drv,
      hostMounts: p.hostCsiMounts,
      namespaces: p.namespacesScanned,
    });
  }
  const staged = report.stagedVolumes;
  for (const v of staged.volumes) {
    if (v.state !== 'ORPHANED' || (scope.driver && v.driver && v.driver !== scope.driver)) continue;
    out.push({
      ...base,
      kind: 'ORPHANED_STAGE',
      volume: v.pv ?? v.sha ?? v.path,
      ...(v.driver ? { driver: v.driver } : {}),
      path: v.path,
      podUids: v.podUids,
    });
  }
  if (staged.status === 'unknown')
    out.push({ ...base, kind: 'PROOF_UNAVAILABLE', check: 'staged volumes', reason: blindReason(report) });
  if (report.mountOptions.status === 'unknown')
    out.push({ ...base, kind: 'PROOF_UNAVAILABLE', check: 'mount options', reason: blindReason(report) });
  return out;
}

function blindReason(r: AgentReport): string {
  const unreadable = r.propagation.unreadableProcesses;
  const parts = [...r.problems];
  if (unreadable.length) {
    const pids = unreadable.slice(0, 5).map((u) => `${u.pid} (${u.reason})`);
    parts.push(
      `${unreadable.length} process(es) unreadable: ${pids.join(', ')}${unreadable.length > 5 ? ', ...' : ''}`,
    );
  }
  return parts.join('; ') || 'the agent could not read every part of the node';
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function procs(ps: ProcessRef[]): string {
  return ps
    .slice(0, 3)
    .map((p) => `pid ${p.pid} ${p.comm}`)
    .join(', ');
}

function optionWords(option: ComparedOption, value: string): string {
  if (option === 'recovery') return value === UNSTATED_OPTION ? 'with the default hard/soft' : value;
  return value === UNSTATED_OPTION
    ? `without ${option} (client default)`
    : `with ${option === 'actimeo' || option === 'lock' ? value : `${option}=${value}`}`;
}

/**
 * The sentence the bot states for a finding: the one wording of it, everywhere. Plain text holding strings from the
 * node (process names, paths, PV names): escape it for where it goes (escapeSlack, or clean for a terminal).
 */
export function findingText(f: NodeFinding): string {
  const sim = f.simulated ? '(simulated agent) ' : '';
  switch (f.kind) {
    case 'PROPAGATION_LOST': {
      const one = f.namespaces.length === 1 ? f.namespaces[0] : undefined;
      const names = f.namespaces.map((n) => procs(n.processes) || n.id).join('; ');
      let who = `${f.namespaces.length} mount namespaces (${names}) hold`;
      if (one) who = one.plugin ? "the node plugin's mount namespace holds" : `the mount namespace of ${names} holds`;
      const what = `${plural(f.mounts, 'CSI mount')} under ${f.kubeletDir}`;
      return `${sim}${f.node}: ${who} ${what} that the host cannot see: propagation lost`;
    }
    case 'PROPAGATION_VISIBLE': {
      const which = f.driver ? `every CSI mount of ${f.driver}` : 'every CSI mount';
      const where = `under ${f.kubeletDir} in the node's ${plural(f.namespaces, 'mount namespace')}`;
      return `${sim}${f.node}: ${which} ${where} is visible from the host (${f.hostMounts} on the host)`;
    }
    case 'ORPHANED_STAGE': {
      const what = f.driver ? `${f.volume} (${f.driver})` : f.volume;
      const dirs = `the volume directories of pod(s) ${f.podUids.join(', ')} still name it`;
      const refs = f.podUids.length
        ? `0 pod bind mounts, though ${dirs} (a pod starting or stopping?)`
        : '0 pod references';
      return `${sim}${f.node}: globalmount of ${what} still mounted, ${refs}`;
    }
    case 'PROOF_UNAVAILABLE':
      if (f.check === 'report') return `${sim}${f.node}: proof unavailable: ${f.reason}`;
      return `${sim}${f.node}: the agent could not check ${f.check}, so nothing is proven either way: ${f.reason}`;
    case 'MOUNT_OPTIONS_DIFFER': {
      const who = f.nodes.length === 1 ? `${f.nodes[0]} mounts` : `${f.nodes.join(', ')} mount`;
      const others = `${plural(f.otherNodes, 'other node')} ${optionWords(f.option, f.otherValue)}`;
      return `${sim}${who} ${f.volume} ${optionWords(f.option, f.value)}, ${others}`;
    }
  }
}

/** Whether a finding needs someone's attention (everything but visible propagation). */
export function needsAttention(f: NodeFinding): boolean {
  return f.kind !== 'PROPAGATION_VISIBLE';
}

/** True when any finding of the report needs attention: the exit code of `rwx agent --once` and `rwx node`. */
export function reportNeedsAttention(report: AgentReport, scope: FindingScope = {}): boolean {
  return nodeFindings(report, scope).some(needsAttention);
}
