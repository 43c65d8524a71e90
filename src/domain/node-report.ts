// The node report: what `rwx agent` serves on /report, and what the bot reads about a node from it; then what the
// bot concludes from reports (NodeFinding). Types only, plus the report's constants. The agent's zod schema
// (src/agent/report.ts) validates a report at the boundary and is checked at compile time to describe exactly
// these types, so the agent that writes a report and the bot that reads one cannot disagree. A change that
// removes or re-means a field bumps REPORT_SCHEMA_VERSION.

/** The report schema this code writes and reads. */
export const REPORT_SCHEMA_VERSION = 1;
/** The `kind` every report carries. */
export const REPORT_KIND = 'RwxAgentReport';
/** How many processes a namespace lists (the count is always complete). */
export const PROCESSES_LISTED = 10;

/** Where a mount sits in the kubelet's CSI layout. */
export type CsiPath =
  | { kind: 'stage'; layout: 'sha'; driver: string; sha: string }
  | { kind: 'stage'; layout: 'pv'; pv: string }
  | { kind: 'publish'; podUid: string; pv: string }
  | { kind: 'block' };

/** A mount under the kubelet dir, as reported. */
export interface MountRef {
  mountPoint: string;
  source: string;
  fstype: string;
  /** Where the mount sits in the kubelet's CSI layout; absent for other paths under the kubelet dir. */
  csi?: CsiPath;
  /** The CSI driver, from the path or the kubelet's vol_data.json. */
  driver?: string;
  /** The PersistentVolume, from the path or the kubelet's vol_data.json. */
  pv?: string;
}

/** A process, as reported. */
export interface ProcessRef {
  pid: number;
  comm: string;
  podUid?: string;
  containerId?: string;
}

/** One mount namespace, as reported. */
export interface NamespaceReport {
  /** The namespace as /proc/PID/ns/mnt names it, e.g. "mnt:[4026532179]". */
  id: string;
  processCount: number;
  /** Up to PROCESSES_LISTED of its processes, lowest pid first. */
  processes: ProcessRef[];
  /** Mounts strictly under the kubelet dir in this namespace. */
  mountsUnderKubeletDir: number;
  /** Of those, mounts at CSI volume paths. */
  csiMounts: number;
  /** Mounts under the kubelet dir that the host namespace does not have: the propagation-loss proof. */
  hidden: MountRef[];
}

/** The propagation section. */
export interface PropagationReport {
  /** lost: some namespace holds CSI mounts the host cannot see; unknown: a namespace or the host was unreadable. */
  status: 'ok' | 'lost' | 'unknown';
  hostNamespace?: string;
  /** CSI mounts the host namespace has under the kubelet dir. */
  hostCsiMounts: number;
  processesScanned: number;
  namespacesScanned: number;
  /** Processes whose namespace could not be read (not counting processes that exited meanwhile). */
  unreadableProcesses: { pid: number; reason: string }[];
  /** Namespaces other than the host's with anything mounted under the kubelet dir. */
  namespaces: NamespaceReport[];
}

/**
 * A staged volume's state. IN_USE: mounted on the host with pod bind mounts; ORPHANED: mounted with none;
 * LEFTOVER_DIR: a directory, nothing mounted anywhere; HIDDEN: mounted only inside another mount namespace.
 */
export type StagedState = 'IN_USE' | 'ORPHANED' | 'LEFTOVER_DIR' | 'HIDDEN';

/** One staged volume (a globalmount). */
export interface StagedVolume {
  path: string;
  layout: 'sha' | 'pv';
  driver?: string;
  sha?: string;
  pv?: string;
  state: StagedState;
  source?: string;
  fstype?: string;
  /** Pod bind mounts (pods/UID/volumes/kubernetes.io~csi/PV/mount) of the same filesystem and root. */
  podMounts: number;
  /** Pods whose volume directories on disk name this volume. */
  podUids: string[];
}

/** The staged volumes section. */
export interface StagedReport {
  /** orphaned: some staged volume is mounted with no pod bind mount; unknown: the host or a directory was unreadable. */
  status: 'ok' | 'orphaned' | 'unknown';
  volumes: StagedVolume[];
}

/** The options compared across nodes; undefined when the mount does not state one (the client default applies). */
export interface KeyOptions {
  /** Protocol version: NFS vers=, SMB vers=. */
  vers?: string;
  /** hard, soft or softerr: what the client does when the server stops answering. */
  recovery?: string;
  timeo?: string;
  retrans?: string;
  /** Attribute caching: actimeo=N, or the ac* options the kernel shows instead ("acregmin=3,acdirmax=60"), or noac. */
  actimeo?: string;
  /** lock, nolock, or local_lock=...; NFSv4 locks through the protocol and shows only local_lock. */
  lock?: string;
  proto?: string;
  /** ro when the mount is read-only, else rw. */
  access: 'ro' | 'rw';
}

/** The options compared across nodes, in the order they are shown. */
export const COMPARED_OPTIONS = ['recovery', 'vers', 'timeo', 'actimeo', 'lock'] as const;
/** The value compared when a mount does not state an option (the client default applies). */
export const UNSTATED_OPTION = 'default';
/** One of COMPARED_OPTIONS. */
export type ComparedOption = (typeof COMPARED_OPTIONS)[number];

/** The options of one network volume on this node. */
export interface VolumeOptions {
  /** The PV name when known, else DRIVER/SHA: the same on every node for the same volume. */
  volume: string;
  pv?: string;
  driver?: string;
  fstype: string;
  source: string;
  mountPoint: string;
  /** How many host mounts share this filesystem and root (the globalmount and the pod bind mounts). */
  mounts: number;
  options: KeyOptions;
  /** Per-mount then per-superblock options, exactly as mountinfo shows them. */
  raw: string;
}

/** How a process holds a path: its working directory, its root directory, or an open file descriptor. */
export type HoldVia = 'cwd' | 'root' | 'fd';

/** A process holding a pod's volume mount, with the path it holds as its own mount namespace names it. */
export interface MountHolder extends ProcessRef {
  via: HoldVia;
  path: string;
}

/** A pod's volume mount (NodePublishVolume's target, pods/UID/volumes/kubernetes.io~csi/PV/mount) still mounted. */
export interface BusyMount {
  mountPoint: string;
  podUid: string;
  /** The PersistentVolume, from the path or the kubelet's vol_data.json. */
  pv: string;
  driver?: string;
  /** Processes whose cwd, root or an open file is on it, in their own mount namespace (the count is complete). */
  processCount: number;
  /** Up to PROCESSES_LISTED of them, lowest pid first. */
  processes: MountHolder[];
  /** Mount namespaces other than the host's that hold a mount of it at the same path, lowest id first. */
  namespaces: { id: string; processCount: number }[];
}

/**
 * What holds pods' volume mounts that are still mounted on the host: an unmount of such a mount fails with "device
 * or resource busy" while any of it holds it. A newer section: reports of older agents lack it.
 */
export interface BusyMountsReport {
  /** unknown: the host's mounts, or some process's namespace, cwd, root or open files, could not be read. */
  status: 'ok' | 'unknown';
  /** Every pod volume mount still mounted on the host, lowest mount point first. */
  mounts: BusyMount[];
  /** Processes whose cwd, root and open files were read. */
  processesChecked: number;
  /** How many processes could not be read (not counting processes that exited meanwhile). */
  unreadableCount: number;
  /** Up to PROCESSES_LISTED of them, with what could not be read, lowest pid first. */
  unreadable: { pid: number; reason: string }[];
}

/** A node report. */
export interface AgentReport {
  kind: typeof REPORT_KIND;
  schemaVersion: number;
  agentVersion: string;
  node: string;
  generatedAt: string;
  /** True only for reports made up by the demo's simulated agent: never evidence about a real node. */
  simulated?: boolean;
  kubeletDir: string;
  hostPid: number;
  propagation: PropagationReport;
  stagedVolumes: StagedReport;
  mountOptions: { status: 'ok' | 'unknown'; volumes: VolumeOptions[] };
  /** What holds pods' volume mounts still mounted on the host; absent from older agents' reports. */
  busyMounts?: BusyMountsReport;
  /** What the agent could not read, in words. */
  problems: string[];
}

interface FindingBase {
  node: string;
  /** From a simulated agent (the demo): never evidence about a real node. */
  simulated?: true;
}

/** Which check of a report a PROOF_UNAVAILABLE finding is about; `report` when there is no report at all. */
export type ProofCheck = 'propagation' | 'staged volumes' | 'mount options' | 'report';

/** One thing node reports prove, or say they cannot. */
export type NodeFinding =
  | (FindingBase & {
      kind: 'PROPAGATION_LOST';
      kubeletDir: string;
      driver?: string;
      /** CSI mounts under the kubelet dir that the host cannot see. */
      mounts: number;
      mountPoints: string[];
      namespaces: { id: string; processes: ProcessRef[]; plugin: boolean }[];
    })
  | (FindingBase & {
      kind: 'PROPAGATION_VISIBLE';
      kubeletDir: string;
      driver?: string;
      /** CSI mounts the host has under the kubelet dir. */
      hostMounts: number;
      namespaces: number;
    })
  | (FindingBase & { kind: 'ORPHANED_STAGE'; volume: string; driver?: string; path: string; podUids: string[] })
  | (FindingBase & { kind: 'PROOF_UNAVAILABLE'; check: ProofCheck; reason: string })
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

/** Which incident findings are for: the node, and when known the driver and the node plugin's pod UID. */
export interface FindingScope {
  node?: string;
  driver?: string;
  pluginPodUid?: string;
}
