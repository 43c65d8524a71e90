// What to do, in order, for an incident: the resolution and verification steps of its verdict, filled with the names
// the incident computed (DaemonSet, revisions, nodes to cordon, storage class for the mount gate, CronJobs).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Incident } from '../domain/incident.js';
import { MAX_NAMES, nameList } from '../domain/names.js';
import { nsKey } from '../domain/refs.js';
import { configSteps, imagePullSteps } from './not-storage-steps.js';
import { blindSentence } from './blind.js';
import { cordonCost } from './cordon-cost.js';
import { rollbackOf, rollbackStep } from './rollback.js';
import { heldSteps } from './held-steps.js';

/** The StorageClass of the first stuck claim, for the post-fix mount gate; a placeholder when unknown. */
function storageClassOf(index: ClusterIndex, inc: Incident): string {
  for (const f of inc.pods)
    for (const s of f.storage) {
      const sc = s.claim
        ? index.get('pvcs', nsKey(s.claim.namespace, s.claim.name))?.spec?.storageClassName
        : undefined;
      if (sc) return sc;
    }
  return '<storage-class>';
}

function cronSteps(inc: Incident): string[] {
  return inc.cronJobs.map(
    (c) =>
      `Verify CronJob ${c.cronJob.namespace}/${c.cronJob.name} completes a pod on its next scheduled run and its output is the right size (${c.missedRuns} run${c.missedRuns === 1 ? '' : 's'} missed).`,
  );
}

function rolloutSteps(index: ClusterIndex, inc: Incident): string[] {
  const ev = inc.rollout!;
  const { namespace: ns, name } = ev.daemonSet;
  const rollback = rollbackOf(index, inc)!;
  const good = rollback.toRevision ?? ev.previousRevision;
  const prev = good !== undefined ? `revision ${good}` : 'the previous revision';
  const broken = inc.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node);
  const sample = broken[0] ?? ev.nodesOnNewRevision[0] ?? 'NODE';
  return [
    `Do not drain: the stuck mounts follow ${ns}/${name} revision ${ev.newRevision}, not the nodes. A drain moves pods onto nodes the rollout has reached (${ev.updatedNodes} of ${ev.desiredNodes}) or will reach. Stop any drain in progress.`,
    rollbackStep(rollback),
    `Cordon the ${ev.nodesOnNewRevision.length} nodes on revision ${ev.newRevision} while it rolls back, and uncordon each as its plugin pod returns to ${prev}: kubectl cordon ${nameList(ev.nodesOnNewRevision)}.${cordonCost(ev.nodesOnNewRevision, ev.desiredNodes, broken)}`,
    'Leave stuck pods alone: the kubelet retries the mount on its own backoff and they recover once the plugin under them is fixed; a pod you delete tells you nothing about the node.',
    `Hold the upgrade at ${prev} until someone has read the volumeMounts stanza of revision ${ev.newRevision}: rwx diff daemonset/${name} -n ${ns}`,
    `Verify: the DaemonSet reports desired, current, ready and up-to-date equal to the node count on the rolled-back revision: kubectl rollout status daemonset/${name} -n ${ns}`,
    `Verify on a formerly broken node that the CSI mount appears in the host mount namespace, not only in the plugin container: kubectl debug node/${sample} -it --image=busybox -- grep -c '${inc.driver ?? ev.driver ?? 'DRIVER'}' /host/proc/1/mountinfo`,
    'Verify the stuck pods reach Running without being deleted; note which ones, and re-test any pod that was deleted.',
    `Verify each formerly broken node with a fresh claim, one node at a time: rwx gate --storage-class ${storageClassOf(index, inc)} --nodes ${nameList(broken, MAX_NAMES, ',')}`,
    ...cronSteps(inc),
    'Verify no VolumeAttachment was force-removed and no StatefulSet pod force-deleted during the incident; if either happened, check the filesystem before trusting the volume.',
  ];
}

/**
 * A node to test next to `affected`, so a fresh mount on both tells node from workload: schedulable, holding no
 * stuck pod of any incident (`busy`), with the incident's driver registered when CSINodes say so; first by name.
 */
function controlNode(
  index: ClusterIndex,
  inc: Incident,
  affected: string,
  busy: ReadonlySet<string>,
): string | undefined {
  const candidates = [...index.all('nodes')]
    .filter((n) => n.metadata?.name && n.metadata.name !== affected && !busy.has(n.metadata.name))
    .filter((n) => !n.spec?.unschedulable)
    .map((n) => n.metadata!.name!)
    .sort();
  const driver = inc.driver;
  return candidates.find((n) => !driver || index.driversOnNode(n)?.has(driver)) ?? candidates[0];
}

/** The gate on the affected node and a control node: a step that tests both, or says why it tests one. */
function gateStep(index: ClusterIndex, inc: Incident, affected: string, busy: ReadonlySet<string>): string {
  const other = controlNode(index, inc, affected, busy);
  const gate = `rwx gate --storage-class ${storageClassOf(index, inc)} --nodes ${other ? `${affected},${other}` : affected}`;
  return other
    ? `Test a fresh mount on ${affected} and on ${other}, a node without stuck pods: ${gate}`
    : `Test a fresh mount on ${affected} (no schedulable node without stuck pods is known to compare with): ${gate}`;
}

/**
 * The ordered next steps for an incident (drain advice is separate, per node). `busy`: the nodes holding a stuck
 * pod of any incident, never chosen as the healthy node of a comparison. When an input could not be read, the
 * last step says so.
 */
export function nextSteps(index: ClusterIndex, inc: Incident, busy: ReadonlySet<string> = new Set()): string[] {
  const steps = stepsFor(index, inc, busy);
  // Last, so the first step stays the action that matters (the root shows it).
  return inc.blind && inc.blind.length > 0
    ? [...steps, `${blindSentence(inc.blind)} The steps above may be incomplete.`]
    : steps;
}

function stepsFor(index: ClusterIndex, inc: Incident, busy: ReadonlySet<string>): string[] {
  const node = inc.node ?? 'NODE';
  switch (inc.verdict) {
    case 'FOLLOWS_ROLLOUT':
      return rolloutSteps(index, inc);
    case 'FOLLOWS_NODE': {
      const held = heldSteps(inc);
      if (held) return [...held, ...cronSteps(inc)];
      const terminating = inc.pods.some((f) => f.kind === 'stuck-terminating');
      return [
        `Confirm the fault follows ${node}. ${gateStep(index, inc, node, busy)}`,
        ...registrationSteps(inc, node),
        `Read the ${logsOf(inc)} on ${node} (kubectl get pods -A -o wide --field-selector spec.nodeName=${node}).`,
        ...(terminating
          ? [
              `Do not force-delete the pods stuck Terminating on ${node}: that leaves the volume staged on the node with no pod using it (an orphaned mount, see docs/failure-modes.md). Find what holds the mount ("device or resource busy") and release it.`,
            ]
          : []),
        `Once confirmed, cordon ${node} so new pods mount elsewhere: kubectl cordon ${node}`,
        ...cronSteps(inc),
      ];
    }
    case 'NOT_STORAGE': {
      if (inc.key.startsWith('config/')) return [...configSteps(inc), ...cronSteps(inc)];
      if (inc.key === 'not-storage/image-pull') return [...imagePullSteps(inc), ...cronSteps(inc)];
      if (inc.node) {
        return [
          `Not storage: read the FailedCreatePodSandBox messages (kubectl describe pod) and check the CNI plugin pods and container runtime on ${node}.`,
          `kubectl get pods -A -o wide --field-selector spec.nodeName=${node}`,
          ...cronSteps(inc),
        ];
      }
      const nodes = inc.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node);
      return [
        `Not storage: read the FailedCreatePodSandBox messages (kubectl describe pod) and check the CNI plugin pods and container runtime on ${nameList(nodes, MAX_NAMES, ', ')}.`,
        'Several nodes at once: if the CNI DaemonSet is rolling out, the nodes break in rollout order; check its rollout (kubectl get ds -A) before touching nodes. Draining does not help a sandbox failure.',
        ...cronSteps(inc),
      ];
    }
    default:
      if (inc.key.startsWith('cronjob/')) {
        const c = inc.cronJobs[0];
        const failed = c?.jobs.find((j) => j.failure);
        return [
          ...(failed
            ? [
                `kubectl describe job ${failed.name} -n ${c?.cronJob.namespace}: the newest failed run (${failed.failureReason}); read its events, and its pods' logs while they are kept (kubectl logs job/${failed.name} -n ${c?.cronJob.namespace}).`,
              ]
            : []),
          `kubectl describe cronjob ${c?.cronJob.name} -n ${c?.cronJob.namespace}: look for FailedCreate events, suspend, or concurrencyPolicy Forbid blocked by an active Job.`,
          `kubectl get jobs -n ${c?.cronJob.namespace} --sort-by=.metadata.creationTimestamp`,
          ...cronSteps(inc),
        ];
      }
      if (inc.key.startsWith('volume/')) return [...volumeSteps(index, inc), ...cronSteps(inc)];
      return unexplainedSteps(index, inc, busy);
  }
}

/** When the incident's driver is not registered on its node (locate.ts): the node plugin pod there and its registrar. */
function registrationSteps(inc: Incident, node: string): string[] {
  const driver = inc.location?.unregistered;
  if (!driver) return [];
  const plugin = inc.nodes.find((n) => n.node === node)?.plugin;
  const logs = plugin?.daemonSet
    ? `kubectl logs -n ${plugin.daemonSet.namespace} ${plugin.pod} --all-containers`
    : `no node plugin pod of ${driver} was found on ${node}: check its DaemonSet's nodeSelector and tolerations`;
  return [
    `${driver} is not registered with the kubelet on ${node} (kubectl get csinode ${node} -o yaml lists the drivers it registered): its node plugin's registrar (node-driver-registrar) never reached the kubelet there. ${logs}`,
  ];
}

/**
 * Whose logs tell why a mount failed: the kubelet's alone when every volume of the incident is of a built-in
 * (in-tree) type, which the kubelet mounts itself with no node plugin; else the kubelet's and the node plugin's.
 */
function logsOf(inc: Incident): string {
  const paths = inc.pods.flatMap((p) => p.storage);
  const inTree = paths.length > 0 && paths.every((s) => s.inTree !== undefined && s.driver === undefined);
  return inTree
    ? 'kubelet log (the volumes are of a built-in type: the kubelet mounts them itself, there is no node plugin)'
    : 'kubelet and node plugin logs';
}

/** Steps for a volume that fails on every node it is tried on: the volume, never the nodes. */
function volumeSteps(index: ClusterIndex, inc: Incident): string[] {
  const [ns, claim] = inc.key.slice('volume/'.length).split('/');
  const pv = ns && claim ? index.get('pvcs', nsKey(ns, claim))?.spec?.volumeName : undefined;
  return [
    `Look at the volume, not the nodes: read the mount error in the pods' FailedMount events (kubectl describe pvc ${claim} -n ${ns}${pv ? `; kubectl get pv ${pv} -o yaml` : ''}) and check what serves it: the export and its access rules, permissions, the backend volume itself.`,
    'Do not drain, cordon or roll back anything for it: the claim fails on every node it is tried on, while those nodes mount other volumes of the same driver.',
  ];
}

function unexplainedSteps(index: ClusterIndex, inc: Incident, busy: ReadonlySet<string>): string[] {
  const nodes = inc.nodes.filter((n) => n.stuckPods.length > 0 && n.node !== '(unscheduled)').map((n) => n.node);
  const affected = nodes[0];
  const where = nodes.length > 0 ? ` on ${nameList(nodes, MAX_NAMES, ', ')}` : ' on their nodes';
  return [
    `Read the events of the stuck pods (kubectl describe pod) and the ${logsOf(inc)}${where}.`,
    ...(affected
      ? [`Test whether the fault follows the node or the workload. ${gateStep(index, inc, affected, busy)}`]
      : []),
    ...cronSteps(inc),
  ];
}
