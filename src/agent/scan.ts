// The reader: everything `rwx agent` reads on the node, and nothing else. Read-only by construction (no call here
// opens a file for writing, creates, removes or mounts anything). Linear: one readlink per process, one mountinfo
// per distinct mount namespace (not per process), comm and cgroup only for the processes a report names; for the
// busy mounts check, cwd, root and open files only of processes whose namespace mounts a pod volume's filesystem.
//
// It never looks inside a mounted volume: a stat or readdir of a mount point on a dead NFS server blocks forever,
// so directories that contain mount points (the staging directory, a pod's volume directory) are listed by name
// only, and whether something is mounted comes from mountinfo alone.
import { readdir, readFile, readlink } from 'node:fs/promises';
import type { Clock } from '../domain/clock.js';
import { buildReport } from './build.js';
import { parseMountinfo, type MountEntry } from './mountinfo.js';
import { cgroupRef, normalizeDir } from './paths.js';
import { mountsUnder, type NamespaceInput } from './propagation.js';
import { PROCESSES_LISTED, type AgentReport, type ProcessRef } from '../domain/node-report.js';
import { errCode, mapLimit, PARALLEL, readText, scanKubeletDir } from './kubelet-dir.js';
import { scanBusy } from './busy-read.js';

/** Where and what to scan. */
export interface ScanOptions {
  /** The proc filesystem to read (default /proc; with hostPID it shows every process of the node). */
  procDir: string;
  kubeletDir: string;
  /**
   * Where the host's filesystem is mounted in this process ('/' in the DaemonSet, '/host' in `kubectl debug node`):
   * the kubelet dir is read at HOST_ROOT/KUBELET_DIR, while mountinfo names it KUBELET_DIR. Default '/'.
   */
  hostRoot?: string;
  /** The process whose mount namespace is the host's (the kubelet's and the runtime's): default 1. */
  hostPid: number;
  node: string;
  agentVersion: string;
  clock: Clock;
  /** This process's pid as `procDir` shows it (default process.pid): the host pid must be another process. */
  selfPid?: number;
}

const GONE = new Set(['ENOENT', 'ESRCH', 'EINVAL']);

/** Every process of `proc` with its mount namespace (undefined when unreadable or gone), lowest pid first. */
interface Processes {
  pids: number[];
  nsOf: (string | undefined)[];
  unreadable: { pid: number; reason: string }[];
}

/** Scans the node once and builds its report. Throws only on a programming error; unreadable parts are reported. */
export async function scanNode(opts: ScanOptions): Promise<AgentReport> {
  const proc = opts.procDir.replace(/\/+$/, '') || '/';
  const kubeletDir = normalizeDir(opts.kubeletDir);
  const problems: string[] = [];
  const procs = await readProcesses(proc, problems);
  const hostNamespace = procs.nsOf[procs.pids.indexOf(opts.hostPid)];
  const diskDir = onHost(opts.hostRoot ?? '/', kubeletDir);
  const hostMounts = await hostMountsOf(opts, proc, diskDir, problems);
  const { byNs, hostPids, scanned } = groupByNamespace(procs, hostNamespace, opts.hostPid);
  const namespaces = await readNamespaces(proc, kubeletDir, byNs, procs.unreadable, problems);
  const describeAll = (pids: number[]) => describe(proc, pids);
  const busyMounts = await scanBusy({
    proc,
    kubeletDir,
    ...(hostMounts ? { hostMounts } : {}),
    ...(hostNamespace ? { hostNamespace } : {}),
    hostPids,
    namespaces,
    unreadable: procs.unreadable,
    describe: describeAll,
  });
  return buildReport({
    node: opts.node,
    agentVersion: opts.agentVersion,
    now: opts.clock.now(),
    kubeletDir,
    hostPid: opts.hostPid,
    host: { ...(hostNamespace ? { namespace: hostNamespace } : {}), ...(hostMounts ? { mounts: hostMounts } : {}) },
    namespaces,
    processesScanned: scanned,
    unreadableProcesses: [...procs.unreadable].sort((a, b) => a.pid - b.pid),
    disk: await scanKubeletDir(diskDir),
    busyMounts,
    problems,
  });
}

/** The processes of `proc` and their mount namespaces: one readlink each. */
async function readProcesses(proc: string, problems: string[]): Promise<Processes> {
  const unreadable: { pid: number; reason: string }[] = [];
  let pids: number[] = [];
  try {
    pids = (await readdir(proc)).filter((n) => /^\d+$/.test(n)).map(Number);
  } catch (e) {
    problems.push(`cannot list processes in ${proc}: ${errCode(e)}`);
  }
  pids.sort((a, b) => a - b);
  const nsOf = await mapLimit(pids, PARALLEL, async (pid) => {
    try {
      return await readlink(`${proc}/${pid}/ns/mnt`);
    } catch (e) {
      const code = errCode(e);
      if (!GONE.has(code)) unreadable.push({ pid, reason: `ns/mnt: ${code}` });
      return undefined;
    }
  });
  return { pids, nsOf, unreadable };
}

/** The host's mounts, or undefined (with the problem said) when they are not the host's or cannot be read. */
async function hostMountsOf(
  opts: ScanOptions,
  proc: string,
  diskDir: string,
  problems: string[],
): Promise<MountEntry[] | undefined> {
  // Without the host's mounts nothing can be proven either way, and each of these means they are not the host's.
  let hostMounts = await readHostMounts(proc, opts.hostPid, problems);
  if (opts.hostPid === (opts.selfPid ?? process.pid)) {
    problems.push(
      `the host pid ${opts.hostPid} is this agent itself: it does not run in the host's PID namespace (hostPID)`,
    );
    hostMounts = undefined;
  }
  try {
    await readdir(diskDir);
  } catch (e) {
    problems.push(`cannot read the kubelet dir ${diskDir}: ${errCode(e)} (is --kubelet-dir the path the host uses?)`);
    hostMounts = undefined;
  }
  return hostMounts;
}

/** The processes by mount namespace: the host's apart, the others by namespace id. */
function groupByNamespace(procs: Processes, hostNamespace: string | undefined, hostPid: number) {
  const byNs = new Map<string, number[]>();
  const hostPids: number[] = [];
  let scanned = 0;
  procs.pids.forEach((pid, i) => {
    const ns = procs.nsOf[i];
    if (ns === undefined) return;
    scanned++;
    if (ns === hostNamespace || pid === hostPid) {
      hostPids.push(pid);
      return;
    }
    const list = byNs.get(ns);
    if (list) list.push(pid);
    else byNs.set(ns, [pid]);
  });
  return { byNs, hostPids, scanned };
}

/** One mountinfo per namespace other than the host's; processes described for those with kubelet-dir mounts. */
async function readNamespaces(
  proc: string,
  kubeletDir: string,
  byNs: Map<string, number[]>,
  unreadable: { pid: number; reason: string }[],
  problems: string[],
): Promise<NamespaceInput[]> {
  const found = await mapLimit([...byNs], PARALLEL, async ([id, nsPids]): Promise<NamespaceInput | undefined> => {
    const read = await firstMountinfo(proc, nsPids, problems);
    if (read === 'gone') return undefined;
    if ('error' in read) {
      unreadable.push({ pid: nsPids[0] as number, reason: `mountinfo: ${read.error}` });
      return { id, pids: nsPids, processes: [], error: read.error };
    }
    const listed = mountsUnder(kubeletDir, read.mounts).length > 0 ? nsPids.slice(0, PROCESSES_LISTED) : [];
    return { id, pids: nsPids, mounts: read.mounts, processes: await describe(proc, listed) };
  });
  return found.filter((n): n is NamespaceInput => n !== undefined);
}

async function readHostMounts(proc: string, pid: number, problems: string[]): Promise<MountEntry[] | undefined> {
  try {
    return mountinfo(await readFile(`${proc}/${pid}/mountinfo`, 'utf8'), pid, problems);
  } catch (e) {
    problems.push(`cannot read the host mount namespace (${proc}/${pid}/mountinfo): ${errCode(e)}`);
    return undefined;
  }
}

/** A host path as this process reaches it. */
function onHost(hostRoot: string, path: string): string {
  const root = hostRoot.replace(/\/+$/, '');
  return root === '' ? path : `${root}${path}`;
}

function mountinfo(text: string, pid: number, problems: string[]): MountEntry[] {
  const { mounts, problems: bad } = parseMountinfo(text);
  if (bad.length) problems.push(`mountinfo of pid ${pid}: ${bad.length} malformed line(s) skipped (${bad[0]?.reason})`);
  return mounts;
}

/** The mountinfo of the first process of a namespace that is still there. */
async function firstMountinfo(
  proc: string,
  pids: number[],
  problems: string[],
): Promise<{ mounts: MountEntry[] } | { error: string } | 'gone'> {
  for (const pid of pids) {
    try {
      return { mounts: mountinfo(await readFile(`${proc}/${pid}/mountinfo`, 'utf8'), pid, problems) };
    } catch (e) {
      const code = errCode(e);
      if (!GONE.has(code)) return { error: code };
    }
  }
  return 'gone';
}

async function describe(proc: string, pids: number[]): Promise<ProcessRef[]> {
  return Promise.all(
    pids.map(async (pid) => {
      const ref: ProcessRef = { pid, comm: (await readText(`${proc}/${pid}/comm`))?.trim() || '?' };
      const cg = cgroupRef((await readText(`${proc}/${pid}/cgroup`)) ?? '');
      if (cg.podUid) ref.podUid = cg.podUid;
      if (cg.containerId) ref.containerId = cg.containerId;
      return ref;
    }),
  );
}
