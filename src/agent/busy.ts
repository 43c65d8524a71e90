// What holds a pod's volume mount busy. Pure. When the kubelet tears a pod's volume down (NodeUnpublishVolume, then
// removing pods/UID/volumes/kubernetes.io~csi/PV/mount), the unmount or the removal fails with "device or resource
// busy" while a process still has its working directory, its root or an open file on the mount, or while a copy
// of the mount in another mount namespace is in use. The kubelet only logs that failure (no event), so this is the
// one place it can be seen: the holders, read from /proc by the reader (scan.ts, busy-read.ts).
//
// Paths are matched as text against each namespace's own mountinfo, never looked up on the filesystem (a stat on
// a dead NFS mount blocks forever): a process's path lies on the mount of its namespace that covers it, and that
// mount is the pod's volume when it is a mount at the same point of the same filesystem (the host's own, or a
// propagated copy), or a bind of the same filesystem and directory elsewhere (a container's /data), told apart by
// the process's pod when several pods mount the same volume.
import type { MountEntry } from './mountinfo.js';
import { csiPathOf, under } from './paths.js';
import {
  PROCESSES_LISTED,
  type BusyMount,
  type BusyMountsReport,
  type HoldVia,
  type ProcessRef,
} from '../domain/node-report.js';

/** A pod volume mount on the host. */
interface Target {
  entry: MountEntry;
  podUid: string;
  pv: string;
}

/** What the reader read of one process: its namespace, pod, and the paths it holds. */
export interface ProcessPaths {
  pid: number;
  namespace: string;
  /** From its cgroup: tells binds of a volume that several pods mount apart. */
  podUid?: string;
  paths: { via: HoldVia; path: string }[];
}

/** A mount namespace's mounts, indexed by mount point (the last mount at a point is the one on top). */
export class MountView {
  private readonly byPoint = new Map<string, MountEntry>();

  constructor(mounts: readonly MountEntry[]) {
    for (const m of mounts) this.byPoint.set(m.mountPoint, m);
  }

  /** The mount a path lies on: the deepest mount point above it. One lookup per path component. */
  covering(path: string): MountEntry | undefined {
    for (let p = path; ; p = parentOf(p)) {
      const m = this.byPoint.get(p);
      if (m || p === '/') return m;
    }
  }

  /** The mount on top at each mount point. */
  tops(): MountEntry[] {
    return [...this.byPoint.values()];
  }
}

function parentOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

/** The path inside the filesystem that `path` names, given the mount it lies on. */
function inFilesystem(m: MountEntry, path: string): string {
  const rel = m.mountPoint === '/' ? path.slice(1) : path.slice(m.mountPoint.length + 1);
  if (rel === '') return m.root;
  return m.root === '/' ? `/${rel}` : `${m.root}/${rel}`;
}

/** Whether `p` is `dir` or lies under it. */
const within = (dir: string, p: string): boolean => p === dir || under(dir, p) !== undefined;

/** The pod volume mounts of the host, and which of them a process's path holds. */
export class BusyIndex {
  readonly targets: Target[] = [];
  private readonly byPoint = new Map<string, Target>();
  private readonly byDev = new Map<string, Target[]>();

  constructor(
    private readonly kubeletDir: string,
    hostMounts: readonly MountEntry[],
  ) {
    for (const entry of new MountView(hostMounts).tops()) {
      const c = csiPathOf(kubeletDir, entry.mountPoint);
      if (c?.kind !== 'publish') continue;
      const t = { entry, podUid: c.podUid, pv: c.pv };
      this.targets.push(t);
      this.byPoint.set(entry.mountPoint, t);
      this.byDev.set(entry.dev, [...(this.byDev.get(entry.dev) ?? []), t]);
    }
  }

  /** Whether a namespace has any mount of a filesystem a pod volume mount is on: else none of its processes can hold one. */
  relevant(mounts: readonly MountEntry[]): boolean {
    return mounts.some((m) => this.byDev.has(m.dev));
  }

  /** The pod volume mount at the same point of the same filesystem as `m` (the host's own, or a copy of it). */
  copyOf(m: MountEntry): Target | undefined {
    const t = this.byPoint.get(m.mountPoint);
    return t && t.entry.dev === m.dev ? t : undefined;
  }

  /** The pod volume mount a path holds in a namespace (see the file comment), if any. */
  held(view: MountView, path: string, podUid: string | undefined): Target | undefined {
    const m = view.covering(path);
    if (!m || !this.byDev.has(m.dev)) return undefined;
    const copy = this.copyOf(m);
    if (copy) return copy;
    // Another mount under the kubelet dir (the globalmount, another pod's mount) is not this pod's.
    if (under(this.kubeletDir, m.mountPoint) !== undefined) return undefined;
    const fsPath = inFilesystem(m, path);
    const same = (this.byDev.get(m.dev) ?? []).filter((t) => within(t.entry.root, fsPath));
    if (same.length <= 1) return same[0];
    const mine = same.filter((t) => t.podUid === podUid);
    return mine.length === 1 ? mine[0] : undefined;
  }
}

/** One other mount namespace, as the reader found it. */
export interface BusyNamespace {
  id: string;
  pids: number[];
  /** undefined when it could not be read (the reader counts it as unreadable). */
  mounts?: MountEntry[];
}

/** What analyzeBusy needs: the host's mounts, the other namespaces, what each process holds, and who they are. */
export interface BusyInput {
  kubeletDir: string;
  /** undefined when the host's mountinfo could not be read: then no mount is known, and the status is unknown. */
  hostMounts?: MountEntry[];
  namespaces: BusyNamespace[];
  /** The processes whose paths were read, with the targets each holds (holdersOf). */
  holders: { pid: number; target: string; via: HoldVia; path: string }[];
  /** The processes the report names, by pid (comm, pod, container). */
  refs: ReadonlyMap<number, ProcessRef>;
  processesChecked: number;
  /** Processes whose namespace, cwd, root or open files could not be read. */
  unreadable: { pid: number; reason: string }[];
}

/** What each process holds: one entry per process and pod volume mount (its first path there), lowest pid first. */
export function holdersOf(index: BusyIndex, views: ReadonlyMap<string, MountView>, processes: readonly ProcessPaths[]) {
  const out: BusyInput['holders'] = [];
  for (const p of [...processes].sort((a, b) => a.pid - b.pid)) {
    const view = views.get(p.namespace);
    if (!view) continue;
    const seen = new Set<string>();
    for (const { via, path } of p.paths) {
      const t = index.held(view, path, p.podUid);
      if (!t || seen.has(t.entry.mountPoint)) continue;
      seen.add(t.entry.mountPoint);
      out.push({ pid: p.pid, target: t.entry.mountPoint, via, path });
    }
  }
  return out;
}

/** The busy mounts section: every pod volume mount on the host with what holds it (see the file comment). */
export function analyzeBusy(input: BusyInput): BusyMountsReport {
  const index = new BusyIndex(input.kubeletDir, input.hostMounts ?? []);
  const mounts = new Map<string, BusyMount>();
  for (const t of index.targets)
    mounts.set(t.entry.mountPoint, {
      mountPoint: t.entry.mountPoint,
      podUid: t.podUid,
      pv: t.pv,
      processCount: 0,
      processes: [],
      namespaces: [],
    });
  for (const h of input.holders) {
    const m = mounts.get(h.target);
    if (!m) continue;
    m.processCount++;
    const ref = input.refs.get(h.pid) ?? { pid: h.pid, comm: '?' };
    if (m.processes.length < PROCESSES_LISTED) m.processes.push({ ...ref, via: h.via, path: h.path });
  }
  for (const ns of [...input.namespaces].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    for (const e of ns.mounts ?? []) {
      const t = index.copyOf(e);
      if (t) mounts.get(t.entry.mountPoint)?.namespaces.push({ id: ns.id, processCount: ns.pids.length });
    }
  const unreadable = [...input.unreadable].sort((a, b) => a.pid - b.pid);
  return {
    status: !input.hostMounts || unreadable.length > 0 ? 'unknown' : 'ok',
    mounts: [...mounts.values()].sort((a, b) => (a.mountPoint < b.mountPoint ? -1 : 1)),
    processesChecked: input.processesChecked,
    unreadableCount: unreadable.length,
    unreadable: unreadable.slice(0, PROCESSES_LISTED),
  };
}
