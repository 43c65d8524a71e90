// The next steps for each phase, in the order to do them: never strip finalizers by hand, never force-delete a pod
// that holds an RWX volume, the ordered stale-attachment recovery (src/advise's, drain advice uses the same); mount
// steps fit the kind of storage.
import type { StorageKind } from '../detect/storage-path.js';
import { releaseHeldStep } from '../advise/release.js';
import { staleStageSteps } from '../advise/stale-stage.js';
import { MAX_NAMES, nameList } from '../domain/names.js';
import type { Phase } from './types.js';

/** The UNPUBLISH_STUCK step for nodes whose agent named no holder (unpublishSteps swaps in the agent's names). */
const FIND_HOLDER = 'On {nodes}, find it (fuser -vm / lsof on the pod volume directory) and let it exit.';

/**
 * Next steps per phase; `{node}` (the first node), `{nodes}` (all of them) and `{volume}` are filled in by adviceFor.
 */
const ADVICE: Record<Phase, string[]> = {
  PENDING_NO_CONSUMER: [
    'Nothing to fix in storage: with WaitForFirstConsumer the claim stays Pending until a pod using it is scheduled.',
    'If a pod should exist, find why it does not schedule (kubectl describe pod; FailedScheduling events).',
  ],
  PROVISION_FAILED: [
    "Read the claim's ProvisioningFailed events and the csi-provisioner log (kubectl -n <driver-ns> logs deploy/<controller> -c csi-provisioner).",
    'Check the StorageClass parameters against the array (appliance, pool, zone) and their names against the driver version you run (renamed keys are silently ignored).',
    "Check the controller's array credentials (an expired secret fails in the driver container, not the provisioner).",
    'Check that a controller replica holds the leader Lease (kubectl -n <driver-ns> get lease): with no leader nothing provisions.',
  ],
  BOUND_NO_PV: [
    'The claim names PV {volume}, which does not exist. Do not delete or recreate the claim blindly.',
    'Find whether the volume still exists on the array, then re-create the PV statically (same name, same volumeHandle, claimRef to this claim).',
  ],
  LOST: [
    'The claim lost its PV {volume} (deleted, or re-bound elsewhere). Do not delete the claim: the data may still be on the array.',
    'Re-create a PV with the same volumeHandle and a claimRef to this claim; the claim binds again.',
  ],
  MOUNT_FAILED: [], // mountSteps: they depend on the kind of storage
  UNPUBLISH_STUCK: [
    'A process in the container almost always still holds a file open on the mount, and NodeUnpublishVolume correctly refuses.',
    FIND_HOLDER,
    'Never remove the finalizers by hand and never force-delete (--grace-period=0 --force) a pod that holds an RWX volume: both strand the staged mount on the node.',
  ],
  UNSCHEDULABLE: [
    'Not a storage fault: the claim waits (WaitForFirstConsumer) for its pod to be scheduled, and the provisioner has not been asked yet.',
    'Read why the scheduler places the pod nowhere (kubectl describe pod: FailedScheduling): resources, node selectors, taints, affinity. Once it is scheduled, the claim is provisioned on its node.',
  ],
  STALE_ATTACHMENT: [], // staleStageSteps: the one recovery order, drain advice's too
  OK: [],
};

/**
 * The steps for a mount failing on `nodes` (every node named), fitted to the storage: who mounts it (the node plugin,
 * or the kubelet for an in-tree volume), then the export checks for NFS or the attach checks for a block volume.
 */
function mountSteps(all: readonly string[], volume: string, storage: StorageKind): string[] {
  const nodes = nodesPhrase(all);
  const inTree = storage.kind === 'unknown' ? undefined : storage.inTree;
  const who = inTree
    ? [
        `Provisioning worked; the failure is on ${nodes}. The volume uses the built-in ${inTree} volume type: the kubelet mounts it itself, there is no node plugin pod to check.`,
        `Read the kubelet log on ${nodes} (journalctl -u kubelet, look for the mount command and its error) and the pod's FailedMount events.`,
      ]
    : [
        `Provisioning worked; the failure is on the node. Go to the node plugin on ${nodes}, not the controller.`,
        "Read the node plugin's log there (NodeStageVolume / NodePublishVolume: mount, denied, timeout, stale) and the pod's FailedMount events.",
        'If the driver is not registered on the node (CSINode), fix the node plugin pod there first.',
      ];
  if (storage.kind === 'nfs') {
    const server = storage.server ?? '<server>';
    return [
      ...who,
      `On ${nodes}, check the NFS export is reachable without Kubernetes: showmount -e ${server}, rpcinfo -t ${server} nfs, and a full-size packet with ping -M do -s 8972 ${server} (if that fails and small pings work, the network drops large packets).`,
    ];
  }
  if (storage.kind === 'block')
    return [
      ...who,
      `Check that ${volume} is attached to ${nodes}: kubectl get volumeattachment (look for it, ATTACHED true, no attach error). An attach error comes from the driver's controller (its csi-attacher log), not the node.`,
    ];
  return who;
}

/** How the nodes of a step are named: "node-01", "node-01 and node-02", or "<node>" when none is known. */
function nodesPhrase(nodes: readonly string[]): string {
  if (nodes.length === 0) return '<node>';
  if (nodes.length <= 2) return nodes.join(' and ');
  return nameList(nodes, MAX_NAMES, ', ');
}

/**
 * The next steps for a phase with placeholders filled in (unknown values stay as <node> / <volume>). `nodes`: every
 * node the problem is on (a mount failing on two nodes names both); `storage`: what serves the claim.
 */
export function adviceFor(
  phase: Phase,
  fill: {
    nodes?: readonly string[];
    volume?: string | null;
    storage?: StorageKind;
    path?: string;
    /** UNPUBLISH_STUCK: what the node agents named as holding the mounts (UnmountHold lines with held). */
    held?: readonly { node: string; text: string }[];
  },
): string[] {
  const nodes = fill.nodes ?? [];
  const node = nodes[0] ?? '<node>';
  const volume = fill.volume ?? '<volume>';
  if (phase === 'MOUNT_FAILED') return mountSteps(nodes, volume, fill.storage ?? { kind: 'unknown' });
  if (phase === 'STALE_ATTACHMENT')
    return staleStageSteps(node, fill.path ? [fill.path] : []).map((s, i) => `${i + 1}. ${s}`);
  const fillIn = (s: string, on: readonly string[]): string =>
    s.replaceAll('{nodes}', nodesPhrase(on)).replaceAll('{node}', node).replaceAll('{volume}', volume);
  if (phase === 'UNPUBLISH_STUCK' && fill.held?.length) return unpublishSteps(nodes, fill.held, fillIn);
  return ADVICE[phase].map((s) => fillIn(s, nodes));
}

/**
 * UNPUBLISH_STUCK with holders named: on each node whose agent named them, release those (the drain advice's
 * sentence); the other nodes keep "find it".
 */
function unpublishSteps(
  nodes: readonly string[],
  held: readonly { node: string; text: string }[],
  fillIn: (s: string, on: readonly string[]) => string,
): string[] {
  const named = [...new Set(held.map((h) => h.node))].sort();
  const rest = nodes.filter((n) => !named.includes(n));
  const release = named.map((n) =>
    releaseHeldStep(
      n,
      held.filter((h) => h.node === n).map((h) => h.text),
    ),
  );
  return ADVICE.UNPUBLISH_STUCK.flatMap((s) =>
    s === FIND_HOLDER ? [...release, ...(rest.length > 0 ? [fillIn(s, rest)] : [])] : [fillIn(s, nodes)],
  );
}

/** The step about the leader Lease in the PROVISION_FAILED advice (the one leaderlessAdvice puts first). */
const LEADER_STEP = /leader Lease/;

/**
 * The advice of a claim whose provisioner has no live leader (its Lease stale or unheld): the leader first, since
 * no replica provisions anything until one holds the Lease; the other steps after it, for once there is one.
 */
export function leaderlessAdvice(driver: string, advice: readonly string[]): string[] {
  return [
    `The ${driver} controller has no live leader (its Lease is not renewed, see preflight): no replica provisions anything until one holds it. Check its controller pods and their csi-provisioner log for leader election errors before anything else.`,
    ...advice.filter((s) => !LEADER_STEP.test(s)),
  ];
}
