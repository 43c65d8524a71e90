// Next steps of an incident whose node holds the fault (a node that is not Ready; an attachment another node's pods
// wait for). They fit the state they describe: nothing runs on a node whose kubelet is gone (no mount test, no "find
// what holds the mount"), no cordon or drain of the node a pod merely waits on, no force delete of a pod that may
// still hold a volume, and the out-of-service taint only on the condition that the node is really shut down.
import type { StuckPodFinding } from '../domain/findings.js';
import type { Incident } from '../domain/incident.js';
import { nameList } from '../domain/names.js';

const podKey = (f: StuckPodFinding): string => `${f.pod.namespace}/${f.pod.name}`;

/** The out-of-service taint step: its condition first, and why the condition matters. */
export function outOfServiceStep(node: string): string {
  return `Only if ${node} is really shut down (powered off or gone, not merely cut off from the API server): mark it out of service, which deletes its pods and forces the detach of its volumes so they can attach elsewhere: kubectl taint nodes ${node} node.kubernetes.io/out-of-service=nodeshutdown:NoExecute. On a node that is still running, that forced detach lets another node write the same volume while ${node} still does, and the filesystem is corrupted. Remove the taint once ${node} is back.`;
}

/** Steps for a node that is not Ready. */
function downSteps(inc: Incident, node: string, away: readonly StuckPodFinding[]): string[] {
  const terminating = inc.pods.filter((f) => f.node === node && f.kind === 'stuck-terminating').map(podKey);
  return [
    `${node} is NotReady: its kubelet is not posting status, so no mount test or mount inspection can run there. Find out whether the machine is down or only cut off (cloud console, BMC, its addresses: kubectl get node ${node} -o wide).`,
    ...(inc.location?.outlook ? [inc.location.outlook] : []),
    outOfServiceStep(node),
    ...(terminating.length > 0
      ? [
          `Do not force-delete the pods stuck Terminating on ${node} (${nameList(terminating, 5, ', ')}): nothing confirms they stopped writing to their volumes. Once ${node} is known to be down, the out-of-service taint above deletes them safely.`,
        ]
      : []),
    ...awaySteps(node, away),
  ];
}

/** Steps for the pods on other nodes that wait for an attachment `node` holds: leave them, and their nodes, alone. */
function awaySteps(node: string, away: readonly StuckPodFinding[]): string[] {
  if (away.length === 0) return [];
  const nodes = [...new Set(away.map((f) => f.node ?? '?'))].sort();
  return [
    `Leave ${nameList(away.map(podKey), 5, ', ')} alone: ${away.length === 1 ? 'it attaches' : 'they attach'} by ${away.length === 1 ? 'itself' : 'themselves'} once the volume is detached from ${node}. ${nameList(nodes, 5, ', ')} ${nodes.length === 1 ? 'is' : 'are'} not at fault: do not cordon or drain ${nodes.length === 1 ? 'it' : 'them'}.`,
  ];
}

/** Steps for an attachment held by a Ready node. */
function attachSteps(inc: Incident, node: string, away: readonly StuckPodFinding[]): string[] {
  return [
    `Find what on ${node} still uses the volume: kubectl get pods -A -o wide --field-selector spec.nodeName=${node}`,
    ...(inc.location?.outlook ? [inc.location.outlook] : []),
    `Never delete the VolumeAttachment by hand or force-delete a pod on ${node} that still holds the volume: a volume attached to two nodes at once is written by both.`,
    ...awaySteps(node, away),
  ];
}

/** The next steps of a held incident (Incident.location.holder), or undefined when the incident is not one. */
export function heldSteps(inc: Incident): string[] | undefined {
  const loc = inc.location;
  const node = loc?.holder;
  if (!loc || !node || inc.verdict !== 'FOLLOWS_NODE') return undefined;
  const away = inc.pods.filter((f) => f.node !== node);
  if (loc.holderHealth) return downSteps(inc, node, away);
  return inc.key.startsWith('attach/') ? attachSteps(inc, node, away) : undefined;
}
