// The seed's next step for each strand, in the order to do them. Wording follows the seed: never strip
// finalizers by hand, never force-delete a pod that holds an RWX volume, the ordered stale-attachment recovery.
import type { Phase } from './types.js';

/** Next steps per phase; `{node}` / `{volume}` / `{driver}` are filled in by adviceFor. */
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
  MOUNT_FAILED: [
    'Provisioning worked; the failure is on the node. Go to the node plugin on {node}, not the controller.',
    "Read the node plugin's log there (NodeStageVolume / NodePublishVolume: mount, denied, timeout, stale) and the pod's FailedMount events.",
    'If the driver is not registered on the node (CSINode), fix the node plugin pod there first.',
    'On the node, check the export is reachable without Kubernetes: showmount -e, rpcinfo -t <data-ip> nfs 3, ping -M do -s 8972.',
  ],
  UNPUBLISH_STUCK: [
    'A process in the container almost always still holds a file open on the mount, and NodeUnpublishVolume correctly refuses.',
    'On {node}, find it (fuser -vm / lsof on the pod volume directory) and let it exit.',
    'Never remove the finalizers by hand and never force-delete (--grace-period=0 --force) a pod that holds an RWX volume: both strand the staged mount on the node.',
  ],
  STALE_ATTACHMENT: [
    '1. Confirm no pod on {node} uses the volume (kubectl get pods -A -o wide --field-selector spec.nodeName={node}); unmounting under a live workload corrupts data.',
    '2. Cordon {node}.',
    '3. Restart the node plugin pod on {node} first: it clears in-memory operation locks and often resolves it without touching mounts.',
    '4. Only if it persists, unmount that globalmount path and remove the empty directory (lazy unmount only as a last resort).',
    '5. Uncordon and verify a new pod on {node} can mount the same volume.',
  ],
  OK: [],
};

/** The next steps for a phase with placeholders filled in (unknown values stay as <node> / <volume>). */
export function adviceFor(phase: Phase, fill: { node?: string; volume?: string | null }): string[] {
  const node = fill.node ?? '<node>';
  const volume = fill.volume ?? '<volume>';
  return ADVICE[phase].map((s) => s.replaceAll('{node}', node).replaceAll('{volume}', volume));
}
