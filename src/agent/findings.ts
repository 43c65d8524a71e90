// What the bot states from node reports: domain data, then one rendering function (findingText) that every
// surface (the thread, triage, `rwx node`) uses, so they cannot word the same proof differently. Pure.
import { COMPARED_OPTIONS, type ComparedOption } from './options.js';
import type { AgentReport, MountRef, ProcessRef } from './report.js';

interface Base {
  node: string;
  /** From a simulated agent (the demo): never evidence about a real node. */
  simulated?: true;
}

/** One thing a node report proves, or says it cannot. */
export type NodeFinding =
  | (Base & {
      kind: 'PROPAGATION_LOST';
      kubeletDir: string;
      driver?: string;
      /** CSI mounts under the kubelet dir that the host cannot see. */
      mounts: number;
      mountPoints: string[];
      namespaces: { id: string; processes: ProcessRef[]; plugin: boolean }[];
    })
  | (Base & {
      kind: 'PROPAGATION_VISIBLE';
      kubeletDir: string;
      driver?: string;
      /** CSI mounts the host has under the kubelet dir. */
      hostMounts: number;
      namespaces: number;
    })
  | (Base & { kind: 'ORPHANED_STAGE'; volume: string; driver?: string; path: string; podUids: string[] })
  | (Base & { kind: 'PROOF_UNAVAILABLE'; check: 'propagation' | 'staged volumes' | 'mount options'; reason: string })
  | {
      kind: 'MOUNT_OPTIONS_DIFFER';
      volume: string;
      option: ComparedOption;
      /** The minority value and the nodes that have it. */
      value: string;
      nodes: string[];
      /** The most common value and how many other nodes have it. */
      otherValue: string;
      otherNodes: number;
      simulated?: true;
    };

/** Which incident the findings are for: the node, and when known the driver and the node plugin's pod UID. */
export interface FindingScope {
  node?: string;
  driver?: string;
  pluginPodUid?: string;
}

const matchesDriver = (m: MountRef, driver?: string) => !driver || !m.driver || m.driver === driver;

/** The findings one node report supports. */
export function nodeFindings(report: AgentReport, scope: FindingScope = {}): NodeFinding[] {
  const base: Base = { node: scope.node ?? report.node, ...(report.simulated ? { simulated: true as const } : {}) };
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

/**
 * Mount options that differ between nodes for the same volume: for each volume and compared option, every value
 * held by fewer nodes than the most common one. Reports are one per node; a node without the volume is left out.
 */
export function mountOptionDifferences(
  reports: readonly AgentReport[],
  scope: { driver?: string } = {},
): NodeFinding[] {
  const byVolume = new Map<string, Map<string, Map<ComparedOption, string>>>();
  const simulated = reports.some((r) => r.simulated);
  for (const r of reports) {
    for (const v of r.mountOptions.volumes) {
      if (scope.driver && v.driver && v.driver !== scope.driver) continue;
      let nodes = byVolume.get(v.volume);
      if (!nodes) byVolume.set(v.volume, (nodes = new Map()));
      const opts = new Map<ComparedOption, string>();
      for (const o of COMPARED_OPTIONS) opts.set(o, v.options[o] ?? DEFAULT);
      nodes.set(r.node, opts);
    }
  }
  const out: NodeFinding[] = [];
  for (const [volume, nodes] of [...byVolume].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const option of COMPARED_OPTIONS) {
      const byValue = new Map<string, string[]>();
      for (const [node, opts] of nodes) {
        const v = opts.get(option) ?? DEFAULT;
        byValue.set(v, [...(byValue.get(v) ?? []), node]);
      }
      if (byValue.size < 2) continue;
      const ranked = [...byValue].sort(([va, a], [vb, b]) => b.length - a.length || (va < vb ? -1 : 1));
      const [otherValue, majority] = ranked[0] as [string, string[]];
      for (const [value, held] of ranked.slice(1)) {
        out.push({
          kind: 'MOUNT_OPTIONS_DIFFER',
          volume,
          option,
          value,
          nodes: held.sort(),
          otherValue,
          otherNodes: majority.length,
          ...(simulated ? { simulated: true as const } : {}),
        });
      }
    }
  }
  return out;
}

/** The value compared when a mount does not state an option. */
const DEFAULT = 'default';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function procs(ps: ProcessRef[]): string {
  return ps
    .slice(0, 3)
    .map((p) => `pid ${p.pid} ${p.comm}`)
    .join(', ');
}

function optionWords(option: ComparedOption, value: string): string {
  if (option === 'recovery') return value === DEFAULT ? 'with the default hard/soft' : value;
  return value === DEFAULT
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
