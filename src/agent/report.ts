// The node report's zod schema: how the bot validates a report at the boundary (client.ts) and how the agent's
// tests check what it writes. The types live in src/domain/node-report.ts; the assertion at the end fails to
// compile when this schema and those types describe different reports. Unknown fields are dropped when parsing
// (a newer agent may add some).
import { z } from 'zod';
import { REPORT_KIND, type AgentReport } from '../domain/node-report.js';

const csiPath = z.union([
  z.object({ kind: z.literal('stage'), layout: z.literal('sha'), driver: z.string(), sha: z.string() }),
  z.object({ kind: z.literal('stage'), layout: z.literal('pv'), pv: z.string() }),
  z.object({ kind: z.literal('publish'), podUid: z.string(), pv: z.string() }),
  z.object({ kind: z.literal('block') }),
]);

const mountRef = z.object({
  mountPoint: z.string(),
  source: z.string(),
  fstype: z.string(),
  /** Where the mount sits in the kubelet's CSI layout; absent for other paths under the kubelet dir. */
  csi: csiPath.optional(),
  /** The CSI driver, from the path or the kubelet's vol_data.json. */
  driver: z.string().optional(),
  /** The PersistentVolume, from the path or the kubelet's vol_data.json. */
  pv: z.string().optional(),
});

const processRef = z.object({
  pid: z.number().int(),
  comm: z.string(),
  podUid: z.string().optional(),
  containerId: z.string().optional(),
});

const namespaceReport = z.object({
  /** The namespace as /proc/PID/ns/mnt names it, e.g. "mnt:[4026532179]". */
  id: z.string(),
  processCount: z.number().int(),
  /** Up to PROCESSES_LISTED of its processes, lowest pid first. */
  processes: z.array(processRef),
  /** Mounts strictly under the kubelet dir in this namespace. */
  mountsUnderKubeletDir: z.number().int(),
  /** Of those, mounts at CSI volume paths. */
  csiMounts: z.number().int(),
  /** Mounts under the kubelet dir that the host namespace does not have: the propagation-loss proof. */
  hidden: z.array(mountRef),
});

const propagation = z.object({
  /** lost: some namespace holds CSI mounts the host cannot see; unknown: a namespace or the host was unreadable. */
  status: z.enum(['ok', 'lost', 'unknown']),
  hostNamespace: z.string().optional(),
  /** CSI mounts the host namespace has under the kubelet dir. */
  hostCsiMounts: z.number().int(),
  processesScanned: z.number().int(),
  namespacesScanned: z.number().int(),
  /** Processes whose namespace could not be read (not counting processes that exited meanwhile). */
  unreadableProcesses: z.array(z.object({ pid: z.number().int(), reason: z.string() })),
  /** Namespaces other than the host's with anything mounted under the kubelet dir. */
  namespaces: z.array(namespaceReport),
});

const stagedVolume = z.object({
  path: z.string(),
  layout: z.enum(['sha', 'pv']),
  driver: z.string().optional(),
  sha: z.string().optional(),
  pv: z.string().optional(),
  /**
   * IN_USE: mounted on the host with pod bind mounts; ORPHANED: mounted with none; LEFTOVER_DIR: a directory,
   * nothing mounted anywhere; HIDDEN: mounted only inside another mount namespace (propagation lost).
   */
  state: z.enum(['IN_USE', 'ORPHANED', 'LEFTOVER_DIR', 'HIDDEN']),
  source: z.string().optional(),
  fstype: z.string().optional(),
  /** Pod bind mounts (pods/UID/volumes/kubernetes.io~csi/PV/mount) of the same filesystem and root. */
  podMounts: z.number().int(),
  /** Pods whose volume directories on disk name this volume. */
  podUids: z.array(z.string()),
});

const staged = z.object({
  /** orphaned: some staged volume is mounted with no pod bind mount; unknown: the host or a directory was unreadable. */
  status: z.enum(['ok', 'orphaned', 'unknown']),
  volumes: z.array(stagedVolume),
});

const keyOptions = z.object({
  vers: z.string().optional(),
  recovery: z.string().optional(),
  timeo: z.string().optional(),
  retrans: z.string().optional(),
  actimeo: z.string().optional(),
  lock: z.string().optional(),
  proto: z.string().optional(),
  access: z.enum(['ro', 'rw']),
});

const volumeOptions = z.object({
  /** The PV name when known, else DRIVER/SHA: the same on every node for the same volume. */
  volume: z.string(),
  pv: z.string().optional(),
  driver: z.string().optional(),
  fstype: z.string(),
  source: z.string(),
  mountPoint: z.string(),
  /** How many host mounts share this filesystem and root (the globalmount and the pod bind mounts). */
  mounts: z.number().int(),
  options: keyOptions,
  /** Per-mount then per-superblock options, exactly as mountinfo shows them. */
  raw: z.string(),
});

const mountHolder = processRef.extend({
  /** How the process holds the path: its working directory, its root directory, or an open file. */
  via: z.enum(['cwd', 'root', 'fd']),
  /** The path it holds, as its own mount namespace names it. */
  path: z.string(),
});

const busyMount = z.object({
  mountPoint: z.string(),
  podUid: z.string(),
  pv: z.string(),
  driver: z.string().optional(),
  /** Processes whose cwd, root or an open file is on it, in their own mount namespace (the count is complete). */
  processCount: z.number().int(),
  /** Up to PROCESSES_LISTED of them, lowest pid first. */
  processes: z.array(mountHolder),
  /** Mount namespaces other than the host's that hold a mount of it at the same path. */
  namespaces: z.array(z.object({ id: z.string(), processCount: z.number().int() })),
});

const busyMounts = z.object({
  /** unknown: the host's mounts, or some process's namespace, cwd, root or open files, could not be read. */
  status: z.enum(['ok', 'unknown']),
  mounts: z.array(busyMount),
  processesChecked: z.number().int(),
  unreadableCount: z.number().int(),
  unreadable: z.array(z.object({ pid: z.number().int(), reason: z.string() })),
});

/** The schema of a report. */
export const reportSchema = z.object({
  kind: z.literal(REPORT_KIND),
  schemaVersion: z.number().int(),
  agentVersion: z.string(),
  node: z.string(),
  generatedAt: z.string(),
  /** True only for reports made up by the demo's simulated agent: never evidence about a real node. */
  simulated: z.boolean().optional(),
  kubeletDir: z.string(),
  hostPid: z.number().int(),
  propagation,
  stagedVolumes: staged,
  mountOptions: z.object({ status: z.enum(['ok', 'unknown']), volumes: z.array(volumeOptions) }),
  /** What holds pods' volume mounts still mounted on the host; absent from older agents' reports. */
  busyMounts: busyMounts.optional(),
  /** What the agent could not read, in words. */
  problems: z.array(z.string()),
});

/** True when A and B are the same type, field for field, optional fields included (not mere assignability). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compile-time check: the schema parses exactly the domain's AgentReport. */
const schemaMatchesDomain: Same<z.infer<typeof reportSchema>, AgentReport> = true;
void schemaMatchesDomain;
