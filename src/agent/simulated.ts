// A simulated agent for the demo: made-up node reports served over HTTP the way `rwx agent` serves real ones.
// Every report it makes carries `simulated: true`, and everything that renders a report or a finding says so
// ("SIMULATED", "(simulated agent)"): a simulated report is never evidence about a real node.
//
//   GET /nodes/NODE/report   the report for NODE (404 when reportFor has none)
//   GET /report              the report for `node`, when one was given (an agent pod's own URL)
//   GET /healthz
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { globalmountPath } from './paths.js';
import {
  REPORT_KIND,
  REPORT_SCHEMA_VERSION,
  type AgentReport,
  type BusyMount,
  type BusyMountsReport,
  type MountRef,
  type StagedVolume,
} from '../domain/node-report.js';
import { handleSha } from './staged.js';
import { agentVersion } from './version.js';

/** A pod stuck Terminating on a simulated node, and the PV of its volume mount. */
export interface SimulatedTerminating {
  podUid: string;
  pv: string;
  /** What holds it: a copy in the broken node plugin's mount namespace, or a process on the host. */
  heldBy: 'plugin' | 'process';
}

/** What a simulated node looks like. */
export interface SimulatedNode {
  node: string;
  /** Epoch ms the report is dated. */
  now: number;
  driver: string;
  /** PVs the node plugin has staged and published inside its own mount namespace only: propagation lost. */
  hiddenVolumes?: string[];
  /** PVs staged and published where the host sees them. */
  visibleVolumes?: string[];
  /** PVs whose globalmount is still mounted with no pod bind mount. */
  orphanedVolumes?: string[];
  /** Pods stuck Terminating here, whose volume mounts are still mounted and held (the busy mounts section). */
  terminating?: SimulatedTerminating[];
  /** The node plugin's pod UID, so the proof can say "the node plugin's mount namespace". */
  pluginPodUid?: string;
  kubeletDir?: string;
}

const podUid = (node: string, pv: string) => `sim-${node}-${pv}`;
/** The made-up process that holds a terminating pod's volume mount on a node whose plugin is not broken. */
const HOLDER = { pid: 31337, comm: 'tar' };
/** The node plugin's made-up mount namespace. */
const PLUGIN_NAMESPACE = 'mnt:[4026532500]';

/** A made-up report for one node, labelled simulated. */
export function simulatedReport(n: SimulatedNode): AgentReport {
  const k = n.kubeletDir ?? '/var/lib/kubelet';
  const hidden = (n.hiddenVolumes ?? []).flatMap((pv) => volumeMounts(n, k, pv));
  const visible = (n.visibleVolumes ?? []).flatMap((pv) => volumeMounts(n, k, pv));
  const orphaned = n.orphanedVolumes ?? [];
  const plugin = { pid: 4242, comm: 'csi-node-plugin', ...(n.pluginPodUid ? { podUid: n.pluginPodUid } : {}) };
  const report: AgentReport = {
    kind: REPORT_KIND,
    schemaVersion: REPORT_SCHEMA_VERSION,
    agentVersion: agentVersion(),
    node: n.node,
    generatedAt: new Date(n.now).toISOString(),
    simulated: true,
    kubeletDir: k,
    hostPid: 1,
    propagation: {
      status: hidden.length ? 'lost' : 'ok',
      hostNamespace: 'mnt:[4026531840]',
      hostCsiMounts: visible.length + orphaned.length,
      processesScanned: 180,
      namespacesScanned: 12,
      unreadableProcesses: [],
      namespaces: [
        {
          id: PLUGIN_NAMESPACE,
          processCount: 1,
          processes: [plugin],
          mountsUnderKubeletDir: hidden.length + visible.length + 1,
          csiMounts: hidden.length + visible.length,
          hidden,
        },
      ],
    },
    stagedVolumes: { status: orphaned.length ? 'orphaned' : 'ok', volumes: stagedVolumes(n, k) },
    mountOptions: { status: 'ok', volumes: [] },
    problems: [],
  };
  if (n.terminating) report.busyMounts = busyMounts(n, k, n.terminating);
  return report;
}

/** Where the kubelet stages a PV of the node's driver. */
function stageOf(n: SimulatedNode, pv: string) {
  return { kind: 'stage' as const, layout: 'sha' as const, driver: n.driver, sha: handleSha(pv) };
}

/** The globalmount and the pod bind mount of one PV. */
function volumeMounts(n: SimulatedNode, k: string, pv: string): MountRef[] {
  const uid = podUid(n.node, pv);
  const common = { source: '/dev/sim', fstype: 'ext4', driver: n.driver, pv };
  return [
    { mountPoint: globalmountPath(k, stageOf(n, pv)), ...common, csi: stageOf(n, pv) },
    {
      mountPoint: `${k}/pods/${uid}/volumes/kubernetes.io~csi/${pv}/mount`,
      ...common,
      csi: { kind: 'publish', podUid: uid, pv },
    },
  ];
}

/** The staged volumes section: hidden, in use and orphaned PVs, by path. */
function stagedVolumes(n: SimulatedNode, k: string): StagedVolume[] {
  const staged = (pv: string, state: 'IN_USE' | 'ORPHANED' | 'HIDDEN'): StagedVolume => ({
    path: globalmountPath(k, stageOf(n, pv)),
    layout: 'sha',
    driver: n.driver,
    sha: handleSha(pv),
    pv,
    state,
    source: '/dev/sim',
    fstype: 'ext4',
    podMounts: state === 'IN_USE' ? 1 : 0,
    podUids: state === 'ORPHANED' ? [] : [podUid(n.node, pv)],
  });
  return [
    ...(n.hiddenVolumes ?? []).map((pv) => staged(pv, 'HIDDEN')),
    ...(n.visibleVolumes ?? []).map((pv) => staged(pv, 'IN_USE')),
    ...(n.orphanedVolumes ?? []).map((pv) => staged(pv, 'ORPHANED')),
  ].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * The busy mounts section for pods stuck Terminating: each one's volume mount is still mounted on the host, held by
 * the node plugin's mount namespace (a copy of it) when the plugin is broken, else by a process on the host.
 */
function busyMounts(n: SimulatedNode, k: string, pods: readonly SimulatedTerminating[]): BusyMountsReport {
  const mounts = pods.map((p): BusyMount => {
    const mountPoint = `${k}/pods/${p.podUid}/volumes/kubernetes.io~csi/${p.pv}/mount`;
    const base = { mountPoint, podUid: p.podUid, pv: p.pv, driver: n.driver };
    if (p.heldBy === 'plugin')
      return { ...base, processCount: 0, processes: [], namespaces: [{ id: PLUGIN_NAMESPACE, processCount: 1 }] };
    return { ...base, processCount: 1, processes: [{ ...HOLDER, via: 'cwd', path: mountPoint }], namespaces: [] };
  });
  mounts.sort((a, b) => (a.mountPoint < b.mountPoint ? -1 : 1));
  return { status: 'ok', mounts, processesChecked: 180, unreadableCount: 0, unreadable: [] };
}

/** A running simulated agent server. */
export interface SimulatedAgents {
  /** Base URL, e.g. http://127.0.0.1:40123. */
  url: string;
  port: number;
  /** The report URL for a node. */
  urlFor(node: string): string;
  stop(): Promise<void>;
}

/** Serves simulated reports (see the file comment) on `port` (0: any free one) at 127.0.0.1. */
export async function startSimulatedAgents(opts: {
  reportFor: (node: string) => AgentReport | undefined;
  node?: string;
  port?: number;
}): Promise<SimulatedAgents> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const node = path === '/report' ? opts.node : /^\/nodes\/([a-z0-9.-]{1,253})\/report$/.exec(path)?.[1];
    if (req.method === 'GET' && path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok (simulated agent)\n');
      return;
    }
    const report = req.method === 'GET' && node ? opts.reportFor(node) : undefined;
    if (!report) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no simulated report here\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(`${JSON.stringify(report)}\n`);
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    urlFor: (node) => `${url}/nodes/${encodeURIComponent(node)}/report`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
