// The demo's node agents: FAKE reports, made up from the simulated cluster and served over HTTP by the simulated
// agent server (src/agent/simulated.ts), so `rwx demo` shows the proof line the way a cluster with the agent
// would. Every report is labelled simulated, and every message built from one says so: none of it was read from a
// node. The made-up rule follows the scenario's own kubelet model: a node whose node plugin pod runs a revision
// the scenario calls broken holds the volumes of the pods stuck there in the plugin's mount namespace only, and a
// copy of the volume mounts of the pods stuck Terminating there; on other nodes, a made-up process on the host
// holds those (the busy mounts section).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { AgentReport } from '../domain/node-report.js';
import type { Pod } from '../domain/objects.js';
import { controllerOf, nsKey } from '../domain/refs.js';
import {
  simulatedReport,
  startSimulatedAgents,
  type SimulatedAgents,
  type SimulatedTerminating,
} from '../agent/simulated.js';
import type { AgentTarget } from '../agent/locate.js';

/** What the fake reports follow: the scenario's kubelet model (revision hashes that cannot mount). */
export interface DemoKubelet {
  brokenRevisionHashes?: string[];
}

/** The simulated agents of the demo and the `locate` that points the pipeline at them. */
export interface DemoAgents {
  agents: SimulatedAgents;
  locate: (node: string) => AgentTarget;
}

/** Starts the simulated agent server on a free port; reports are made from `index()` at `now()`. */
export async function startDemoAgents(
  index: () => ClusterIndex | undefined,
  kubelet: DemoKubelet,
  now: () => number,
): Promise<DemoAgents> {
  const agents = await startSimulatedAgents({
    reportFor: (node) => {
      const idx = index();
      return idx ? demoReport(idx, kubelet, node, now()) : undefined;
    },
  });
  return { agents, locate: (node) => ({ kind: 'agent', url: agents.urlFor(node) }) };
}

/** The FAKE report of one simulated node (see the file comment); undefined for a node the cluster does not have. */
export function demoReport(
  index: ClusterIndex,
  kubelet: DemoKubelet,
  node: string,
  now: number,
): AgentReport | undefined {
  if (!index.get('nodes', node)) return undefined;
  const broken = new Set(kubelet.brokenRevisionHashes ?? []);
  const pods = index.podsOnNode(node);
  const plugin = pods.find((p) => isBrokenPlugin(p, broken));
  const hidden: string[] = [];
  const visible: string[] = [];
  const terminating: SimulatedTerminating[] = [];
  let driver = '';
  for (const p of pods) {
    for (const { pv, csiDriver } of csiVolumes(index, p)) {
      driver ||= csiDriver;
      const stuck = p.status?.phase === 'Pending';
      const uid = p.metadata?.uid;
      if (plugin && stuck) hidden.push(pv);
      else if (p.status?.phase === 'Running') visible.push(pv);
      if (p.metadata?.deletionTimestamp && uid)
        terminating.push({ podUid: uid, pv, heldBy: plugin ? 'plugin' : 'process' });
    }
  }
  const uid = plugin?.metadata?.uid;
  return simulatedReport({
    node,
    now,
    driver: driver || 'ebs.csi.aws.com',
    hiddenVolumes: [...new Set(hidden)].sort(),
    visibleVolumes: [...new Set(visible)].sort(),
    ...(terminating.length > 0 ? { terminating } : {}),
    ...(uid ? { pluginPodUid: uid } : {}),
  });
}

function isBrokenPlugin(p: Pod, broken: ReadonlySet<string>): boolean {
  const hash = p.metadata?.labels?.['controller-revision-hash'];
  return controllerOf(p)?.kind === 'DaemonSet' && !!hash && broken.has(hash) && !p.metadata?.deletionTimestamp;
}

// The CSI volumes a pod's claims are bound to.
function csiVolumes(index: ClusterIndex, p: Pod): { pv: string; csiDriver: string }[] {
  const out: { pv: string; csiDriver: string }[] = [];
  for (const v of p.spec?.volumes ?? []) {
    const claim = v.persistentVolumeClaim?.claimName;
    if (!claim) continue;
    const pv = index.get('pvcs', nsKey(p.metadata?.namespace, claim))?.spec?.volumeName;
    const driver = pv ? index.get('pvs', pv)?.spec?.csi?.driver : undefined;
    if (pv && driver) out.push({ pv, csiDriver: driver });
  }
  return out;
}
