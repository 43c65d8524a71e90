// Reading what processes hold, for the busy mounts check (busy.ts): each process's cwd and root and the targets of
// its open file descriptors, as readlink on /proc/PID/{cwd,root,fd/N} names them (relative to the process's own
// mount namespace). Read-only, and never a stat or open of the paths themselves (a dead NFS mount blocks). Only
// processes of mount namespaces that mount a filesystem a pod volume mount is on are read: linear in their file
// descriptors, a few readlinks each.
import { readdir, readlink } from 'node:fs/promises';
import type { MountEntry } from './mountinfo.js';
import { analyzeBusy, BusyIndex, holdersOf, MountView, type BusyNamespace, type ProcessPaths } from './busy.js';
import { cgroupRef } from './paths.js';
import { errCode, mapLimit, PARALLEL, readText } from './kubelet-dir.js';
import { PROCESSES_LISTED, type BusyMountsReport, type HoldVia, type ProcessRef } from '../domain/node-report.js';

const GONE = new Set(['ENOENT', 'ESRCH']);

/** What the busy check reads besides /proc: the host's mounts and every namespace, the host's included. */
export interface BusyScan {
  proc: string;
  kubeletDir: string;
  hostMounts?: MountEntry[];
  hostNamespace?: string;
  /** Processes of the host's namespace. */
  hostPids: number[];
  /** The other namespaces, as the propagation check read them. */
  namespaces: BusyNamespace[];
  /** Processes whose namespace could not be read: whether they hold a mount cannot be told. */
  unreadable: { pid: number; reason: string }[];
  /** Reads comm, pod and container of the processes the report names. */
  describe: (pids: number[]) => Promise<ProcessRef[]>;
}

/** A path from readlink, or undefined for what is not a path (socket:[N], pipe:[N], anon_inode:...). */
function pathOf(link: string): string | undefined {
  if (!link.startsWith('/')) return undefined;
  return link.endsWith(' (deleted)') ? link.slice(0, -' (deleted)'.length) : link;
}

/** The paths one process holds; 'gone' when it exited meanwhile. */
async function readPaths(
  proc: string,
  pid: number,
): Promise<{ paths: ProcessPaths['paths'] } | { error: string } | 'gone'> {
  const paths: ProcessPaths['paths'] = [];
  const link = async (via: HoldVia, name: string) => {
    const p = pathOf(await readlink(`${proc}/${pid}/${name}`));
    if (p) paths.push({ via, path: p });
  };
  try {
    await link('cwd', 'cwd');
    await link('root', 'root');
    for (const fd of await readdir(`${proc}/${pid}/fd`)) {
      try {
        await link('fd', `fd/${fd}`);
      } catch (e) {
        if (!GONE.has(errCode(e))) throw e; // closed meanwhile
      }
    }
    return { paths };
  } catch (e) {
    const code = errCode(e);
    return GONE.has(code) ? 'gone' : { error: code };
  }
}

/** The busy mounts section (busy.ts): reads the processes that can hold a pod volume mount, then names holders. */
export async function scanBusy(s: BusyScan): Promise<BusyMountsReport> {
  const index = new BusyIndex(s.kubeletDir, s.hostMounts ?? []);
  const unreadable = [...s.unreadable];
  const views = new Map<string, MountView>();
  const read: { pid: number; namespace: string }[] = [];
  const all = [
    ...(s.hostNamespace && s.hostMounts ? [{ id: s.hostNamespace, pids: s.hostPids, mounts: s.hostMounts }] : []),
    ...s.namespaces,
  ];
  for (const ns of index.targets.length > 0 ? all : []) {
    // A namespace whose mountinfo could not be read is among `unreadable` already.
    if (!ns.mounts || !index.relevant(ns.mounts)) continue;
    views.set(ns.id, new MountView(ns.mounts));
    for (const pid of ns.pids) read.push({ pid, namespace: ns.id });
  }
  const found = await mapLimit(read, PARALLEL, async ({ pid, namespace }): Promise<ProcessPaths | undefined> => {
    const r = await readPaths(s.proc, pid);
    if (r === 'gone') return undefined;
    if ('error' in r) {
      unreadable.push({ pid, reason: `cwd, root or fd: ${r.error}` });
      return undefined;
    }
    const podUid = cgroupRef((await readText(`${s.proc}/${pid}/cgroup`)) ?? '').podUid;
    return { pid, namespace, paths: r.paths, ...(podUid ? { podUid } : {}) };
  });
  const processes = found.filter((p): p is ProcessPaths => p !== undefined);
  const holders = holdersOf(index, views, processes);
  // Only the processes the report lists are described: PROCESSES_LISTED per mount.
  const perMount = new Map<string, number>();
  const listed = holders.filter((h) => {
    const n = perMount.get(h.target) ?? 0;
    perMount.set(h.target, n + 1);
    return n < PROCESSES_LISTED;
  });
  const refs = await s.describe([...new Set(listed.map((h) => h.pid))]);
  return analyzeBusy({
    kubeletDir: s.kubeletDir,
    ...(s.hostMounts ? { hostMounts: s.hostMounts } : {}),
    namespaces: s.namespaces,
    holders,
    refs: new Map(refs.map((r) => [r.pid, r])),
    processesChecked: processes.length,
    unreadable,
  });
}
