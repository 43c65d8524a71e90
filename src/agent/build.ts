// Building the node report from what the reader found. Pure: the reader (scan.ts) does all /proc and filesystem
// access and hands over plain data, so every rule here is tested on recorded input.
import type { MountEntry } from './mountinfo.js';
import { analyzePropagation, type NamespaceInput } from './propagation.js';
import { normalizeDir } from './paths.js';
import { REPORT_KIND, REPORT_SCHEMA_VERSION, type AgentReport, type BusyMountsReport } from '../domain/node-report.js';
import { analyzeOptions, analyzeStaged, VolumeIndex, type DiskScan } from './staged.js';

/** Everything the reader found on one node. */
export interface ScanInput {
  node: string;
  agentVersion: string;
  /** Epoch ms of the scan. */
  now: number;
  kubeletDir: string;
  hostPid: number;
  host: { namespace?: string; mounts?: MountEntry[] };
  /** Mount namespaces other than the host's. */
  namespaces: NamespaceInput[];
  processesScanned: number;
  unreadableProcesses: { pid: number; reason: string }[];
  disk: DiskScan;
  /** What holds pods' volume mounts (busy.ts); absent when not checked. */
  busyMounts?: BusyMountsReport;
  /** What could not be read, in words (the reader's, then the disk scan's are appended). */
  problems: string[];
  simulated?: boolean;
}

/** The report for one scan. */
export function buildReport(input: ScanInput): AgentReport {
  const kubeletDir = normalizeDir(input.kubeletDir);
  const index = new VolumeIndex(kubeletDir, input.disk);
  const hostMounts = input.host.mounts;
  const propagation = analyzePropagation({
    kubeletDir,
    hostMounts,
    processesScanned: input.processesScanned,
    unreadableProcesses: input.unreadableProcesses,
    namespaces: input.namespaces,
    annotate: (r) => index.annotate(r),
    ...(input.host.namespace ? { hostNamespace: input.host.namespace } : {}),
  });
  const hidden = propagation.namespaces.flatMap((n) => n.hidden);
  const report: AgentReport = {
    kind: REPORT_KIND,
    schemaVersion: REPORT_SCHEMA_VERSION,
    agentVersion: input.agentVersion,
    node: input.node,
    generatedAt: new Date(input.now).toISOString(),
    kubeletDir,
    hostPid: input.hostPid,
    propagation,
    stagedVolumes: analyzeStaged(kubeletDir, hostMounts, input.disk, index, hidden),
    mountOptions: hostMounts
      ? { status: 'ok', volumes: analyzeOptions(kubeletDir, hostMounts, index) }
      : { status: 'unknown', volumes: [] },
    problems: [...input.problems, ...input.disk.problems],
  };
  if (input.busyMounts) report.busyMounts = withDrivers(input.busyMounts, index);
  if (input.simulated) report.simulated = true;
  return report;
}

/** The busy mounts with the PV and driver the kubelet's vol_data.json names for each pod volume. */
function withDrivers(busy: BusyMountsReport, index: VolumeIndex): BusyMountsReport {
  const mounts = busy.mounts.map((m) => {
    const a = index.annotate({
      mountPoint: m.mountPoint,
      source: '',
      fstype: '',
      csi: { kind: 'publish', podUid: m.podUid, pv: m.pv },
    });
    return { ...m, pv: a.pv ?? m.pv, ...(a.driver ? { driver: a.driver } : {}) };
  });
  return { ...busy, mounts };
}
