// The propagation check. Pure. A CSI node plugin mounts volumes inside its own mount namespace; the kubelet and the
// container runtime, on the host, only see them when the plugin's kubelet-dir volume propagates mounts out
// (mountPropagation: Bidirectional). A mount under the kubelet dir that a namespace has and the host does not is a
// mount nobody who needs it can see: the proof that propagation is lost.
import type { MountEntry } from './mountinfo.js';
import { csiPathOf, under } from './paths.js';
import type { MountRef, NamespaceReport, ProcessRef, PropagationReport } from '../domain/node-report.js';

/** The host namespace's mounts, indexed by mount point (the last mount at a point is the one on top). */
export class HostView {
  private readonly byPoint = new Map<string, MountEntry>();

  constructor(mounts: readonly MountEntry[]) {
    for (const m of mounts) this.byPoint.set(m.mountPoint, m);
  }

  /** The host's mount at exactly this point. */
  at(mountPoint: string): MountEntry | undefined {
    return this.byPoint.get(mountPoint);
  }

  /**
   * Whether the host sees what `m` shows at its mount point: the host has a mount there of the same filesystem
   * (major:minor, the same in every namespace) and directory, or has no mount there and the mount covering the
   * path is that same filesystem with that same directory under it (a hostPath bind of a plain host directory).
   * Cost: one lookup per path component.
   */
  sees(m: MountEntry): boolean {
    const here = this.byPoint.get(m.mountPoint);
    if (here) return here.dev === m.dev && here.root === m.root;
    for (let p = parent(m.mountPoint); ; p = parent(p)) {
      const cover = this.byPoint.get(p);
      if (cover)
        return cover.dev === m.dev && joinPath(cover.root, m.mountPoint.slice(p === '/' ? 1 : p.length + 1)) === m.root;
      if (p === '/') return false;
    }
  }
}

function parent(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

function joinPath(dir: string, rel: string): string {
  return dir === '/' ? `/${rel}` : `${dir}/${rel}`;
}

/** Mounts strictly under the kubelet dir. */
export function mountsUnder(kubeletDir: string, mounts: readonly MountEntry[]): MountEntry[] {
  return mounts.filter((m) => under(kubeletDir, m.mountPoint) !== undefined);
}

/** A mount namespace other than the host's, as the reader found it. */
export interface NamespaceInput {
  id: string;
  /** Every process in it, lowest pid first. */
  pids: number[];
  /** Details of up to PROCESSES_LISTED of them (read only for namespaces with mounts under the kubelet dir). */
  processes: ProcessRef[];
  /** Its mountinfo; undefined when no process of it could be read. */
  mounts?: MountEntry[];
  error?: string;
}

/** What analyzePropagation needs besides the namespaces. */
export interface PropagationInput {
  kubeletDir: string;
  hostNamespace?: string;
  /** undefined when the host's mountinfo could not be read: then nothing can be proven either way. */
  hostMounts?: MountEntry[];
  processesScanned: number;
  unreadableProcesses: { pid: number; reason: string }[];
  namespaces: NamespaceInput[];
  /** Adds driver and PV to a mount reference (from the kubelet's files); identity when absent. */
  annotate?: (ref: MountRef) => MountRef;
}

/** Turns an entry into the reported reference, classified by the kubelet's CSI layout. */
export function mountRef(kubeletDir: string, m: MountEntry): MountRef {
  const ref: MountRef = { mountPoint: m.mountPoint, source: m.source, fstype: m.fstype };
  const csi = csiPathOf(kubeletDir, m.mountPoint);
  if (csi) ref.csi = csi;
  if (csi?.kind === 'stage' && csi.layout === 'sha') ref.driver = csi.driver;
  if (csi?.kind === 'stage' && csi.layout === 'pv') ref.pv = csi.pv;
  if (csi?.kind === 'publish') ref.pv = csi.pv;
  return ref;
}

/** The propagation section: every namespace with mounts under the kubelet dir, and what the host lacks of them. */
export function analyzePropagation(input: PropagationInput): PropagationReport {
  const kd = input.kubeletDir;
  const annotate = input.annotate ?? ((r: MountRef) => r);
  const host = input.hostMounts ? new HostView(input.hostMounts) : undefined;
  const hostCsiMounts = (input.hostMounts ?? []).filter((m) => csiPathOf(kd, m.mountPoint)).length;
  const namespaces: NamespaceReport[] = [];
  let unreadableNamespaces = 0;
  for (const ns of input.namespaces) {
    if (!ns.mounts) {
      unreadableNamespaces++;
      continue;
    }
    const mine = mountsUnder(kd, ns.mounts);
    if (mine.length === 0) continue;
    const hidden = host ? mine.filter((m) => !host.sees(m)).map((m) => annotate(mountRef(kd, m))) : [];
    hidden.sort((a, b) => (a.mountPoint < b.mountPoint ? -1 : a.mountPoint > b.mountPoint ? 1 : 0));
    namespaces.push({
      id: ns.id,
      processCount: ns.pids.length,
      processes: ns.processes,
      mountsUnderKubeletDir: mine.length,
      csiMounts: mine.filter((m) => csiPathOf(kd, m.mountPoint)).length,
      hidden,
    });
  }
  namespaces.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const lost = namespaces.some((n) => n.hidden.some((m) => m.csi));
  const blind = !host || unreadableNamespaces > 0 || input.unreadableProcesses.length > 0;
  const report: PropagationReport = {
    status: lost ? 'lost' : blind ? 'unknown' : 'ok',
    hostCsiMounts,
    processesScanned: input.processesScanned,
    namespacesScanned: input.namespaces.length + (input.hostNamespace ? 1 : 0),
    unreadableProcesses: input.unreadableProcesses,
    namespaces,
  };
  if (input.hostNamespace) report.hostNamespace = input.hostNamespace;
  return report;
}
