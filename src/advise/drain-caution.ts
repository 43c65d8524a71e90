// CAUTION in drain advice: what on a node makes a drain hang, strands the pods it moves, or moves a pod onto the
// same fault elsewhere.
// - pods stuck Terminating with claims: the drain waits for them, and force-deleting leaves the volume staged;
// - stale VolumeAttachments: the pods it moves cannot attach those volumes elsewhere until they are detached;
// - any stuck pod of any incident (a node holding one is never OK): FOLLOWS_NODE, the fault is the node's, so
//   draining is the way out but a pod stuck on a mount can still hang it; UNEXPLAINED, the cause is not known, so
//   the pod may hang the drain or meet the same fault on another node; NOT_STORAGE, the sandbox fault may follow it,
//   a missing Secret/ConfigMap surely does, and a pod waiting on its own SELinux label or fsGroup gains nothing.
// Rollout incidents are not here: a stuck pod of one makes the node BLOCK (drain.ts).
import type { ConfigWait, StuckPodFinding } from '../domain/findings.js';
import type { Incident } from '../domain/incident.js';
import type { VolumeAttachment } from '../domain/objects.js';
import { nameList } from '../domain/names.js';
import type { NodeHealth } from '../domain/location.js';
import { describeHealth } from '../domain/node-health.js';
import { outOfServiceStep } from './held-steps.js';
import { releaseHeldStep } from './release.js';
import type { MovedIntoFailure } from './running-consumers.js';

/** The stuck pods ("namespace/name") an incident has on one node. */
export interface StuckHere {
  incident: Incident;
  pods: readonly string[];
}

/** What a CAUTION says: the one-line reason and what to do. */
export interface Caution {
  reason: string;
  steps: string[];
}

/** What is on the node. */
export interface NodeBurden {
  terminating: readonly StuckPodFinding[];
  stale: readonly VolumeAttachment[];
  stuck: readonly StuckHere[];
  /** The node's health when it is not Ready (domain/node-health.ts): nothing on it can be evicted or inspected. */
  down?: NodeHealth;
  /** Running pods here whose volume stuck pods cannot mount now (running-consumers.ts). */
  running?: readonly MovedIntoFailure[];
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Why a stuck pod of a non-rollout incident makes a drain risky, by the incident's location and verdict. */
function whyStuck(s: StuckHere, node: string, down: NodeHealth | undefined): string {
  const pods = `${plural(s.pods.length, 'stuck pod')} of incident ${s.incident.key} (${nameList(s.pods, 5, ', ')})`;
  const them = s.pods.length === 1 ? 'it' : 'them';
  const holder = s.incident.location?.holder;
  if (heldElsewhere(s, node))
    return `${node} holds ${pods}, waiting for an attachment ${holder} holds: ${node} is not at fault, and evicted, ${them} will wait the same way on any node until the volume is detached from ${holder}`;
  if (down) return `${node} holds ${pods}`;
  if (s.incident.key.startsWith('volume/'))
    return `${node} holds ${pods}, whose volume fails on every node it is tried on: draining moves ${them} into the same failure elsewhere and does nothing for the volume`;
  switch (s.incident.verdict) {
    case 'FOLLOWS_NODE':
      return `${node} holds ${pods}: the fault follows ${node}, so draining moves its pods to nodes where mounts work, but a pod stuck on a mount can hang the drain`;
    case 'NOT_STORAGE':
      return notStorageWhy(s, node, pods, them);
    default:
      return `${node} holds ${pods} whose cause is not known: the drain may hang on ${them}, or move ${them} onto the same fault on another node`;
  }
}

/** Why draining does not help pods waiting on their own settings (detect/pod-settings.ts), by the setting. */
const SETTING_WHY: Record<ConfigWait['kind'], (node: string, pods: string) => string> = {
  selinux: (node, pods) =>
    `${node} holds ${pods}, waiting because the volume is mounted there with another pod's SELinux label (configuration, not storage); draining does not help: the pod specs conflict, and the conflict comes back on any node the pods share`,
  fsgroup: (node, pods) =>
    `${node} holds ${pods}, waiting while the kubelet changes the ownership of every file on the volume to the pod's fsGroup (configuration, not storage); draining does not help: on another node the change starts again from the first file`,
};

/** A NOT_STORAGE incident's pods, by their layer: a pod setting, a missing Secret/ConfigMap, an image pull, a sandbox. */
function notStorageWhy(s: StuckHere, node: string, pods: string, them: string): string {
  // The cause is the pods' own: a missing Secret/ConfigMap is missing on every node; a sandbox fault may be too.
  const layer = s.incident.location?.layer;
  const wait = s.incident.pods.find((p) => p.configWait)?.configWait;
  if (wait) return SETTING_WHY[wait.kind](node, pods);
  if (s.incident.pods.some((p) => p.cause === 'config'))
    return `${node} holds ${pods}, waiting for a Secret or ConfigMap that does not exist (configuration, not storage): evicted, ${them} will wait the same way on any node`;
  if (layer === 'image')
    return `${node} holds ${pods}, still pulling ${s.pods.length === 1 ? 'its image' : 'their images'} (not storage): evicted, ${them} will pull again from the start on another node`;
  return `${node} holds ${pods}, stuck creating a pod sandbox (not storage): evicted, ${them} may meet the same network fault on another node`;
}

/** The steps for the stuck pods of non-rollout incidents on the node. */
function stuckSteps(stuck: readonly StuckHere[], node: string, down: NodeHealth | undefined): string[] {
  const own = !down && stuck.some((s) => s.incident.verdict === 'FOLLOWS_NODE' && s.incident.location?.holder === node);
  const first = stuck.flatMap((s) => s.pods)[0] ?? '';
  const [ns, name] = first.split('/');
  return [
    ...(stuck.some((s) => s.incident.verdict !== 'FOLLOWS_NODE')
      ? [`Find why the pods are stuck before moving them: kubectl describe pod ${name} -n ${ns}`]
      : []),
    ...(own ? ['Investigate the node after the drain: kubelet and node plugin logs, mount table.'] : []),
  ];
}

/** The CAUTION for a node, or undefined when nothing on it makes a drain risky. */
export function cautionFor(node: string, b: NodeBurden): Caution | undefined {
  const terminatingKeys = new Set(b.terminating.map((f) => `${f.pod.namespace}/${f.pod.name}`));
  // Pods stuck Terminating are said once, with their own steps; the rest of each incident's stuck pods here follow.
  const stuck = b.stuck
    .filter((s) => s.incident.verdict !== 'FOLLOWS_ROLLOUT')
    .map((s) => ({ ...s, pods: s.pods.filter((p) => !terminatingKeys.has(p)) }))
    .filter((s) => s.pods.length > 0);
  const running = b.running ?? [];
  if (b.terminating.length + b.stale.length + stuck.length + running.length === 0 && !b.down) return undefined;
  return { reason: cautionReasons(node, b, stuck).join(' '), steps: cautionSteps(node, b, stuck) };
}

/** The reasons of a CAUTION, one sentence per burden. */
function cautionReasons(node: string, b: NodeBurden, stuck: readonly StuckHere[]): string[] {
  const rwx = b.terminating.filter((f) => f.storage.some((s) => s.accessModes?.includes('ReadWriteMany'))).length;
  // A drain waits for every evicted pod to be gone, so pods stuck Terminating hang it; it does not wait for
  // VolumeAttachments, but a volume still attached here cannot attach where its pods land (Multi-Attach).
  return [
    ...(b.down
      ? [
          `${describeHealth(b.down)}: a drain cannot finish there (its kubelet does not confirm any eviction, so evicted pods stay Terminating) and releases none of its volumes.`,
        ]
      : []),
    ...(b.terminating.length > 0
      ? [
          `${plural(b.terminating.length, 'pod')} stuck Terminating${rwx > 0 ? ` (${rwx} on RWX volumes)` : ''} on ${node}: the drain will hang on them.`,
        ]
      : []),
    ...(b.stale.length > 0
      ? [
          `${plural(b.stale.length, 'stale VolumeAttachment')} on ${node}: pods the drain moves cannot attach those volumes on another node until they are detached.`,
        ]
      : []),
    ...stuck.map((s) => `${whyStuck(s, node, b.down)}.`),
    ...(b.running && b.running.length > 0
      ? [
          `${nameList(
            b.running.map((r) => `${r.pod} (claim ${r.claim})`),
            5,
            ', ',
          )} ${b.running.length === 1 ? 'runs' : 'run'} here on a volume that cannot be mounted now (incident ${nameList([...new Set(b.running.map((r) => r.incident))], 3, ', ')}): evicted, ${b.running.length === 1 ? 'it must' : 'they must'} mount it again wherever ${b.running.length === 1 ? 'it lands' : 'they land'}, and ${b.running.length === 1 ? 'moves' : 'move'} into the same failure.`,
        ]
      : []),
  ];
}

/** Whether a stuck pod here waits for a fault another node holds (Incident.location.holder). */
const heldElsewhere = (s: StuckHere, node: string): boolean =>
  s.incident.verdict === 'FOLLOWS_NODE' && !!s.incident.location?.holder && s.incident.location.holder !== node;

/** The closing step: what a drain does here (nothing, on a dead node or for a fault another node holds). */
function lastStep(node: string, b: NodeBurden, stuck: readonly StuckHere[]): string {
  if (b.down) return `Do not drain ${node} to fix this: it cannot evict anything until its kubelet is back.`;
  if (b.terminating.length + b.stale.length === 0 && stuck.every((s) => heldElsewhere(s, node))) {
    const holders = [...new Set(stuck.map((s) => s.incident.location?.holder ?? '?'))].sort();
    return `Draining ${node} does nothing for this: the fault is held by ${nameList(holders, 5, ', ')}.`;
  }
  return `If you drain anyway, bound it: kubectl drain ${node} --ignore-daemonsets --timeout=5m, and stop when it hangs.`;
}

/** What holds the mounts of the pods stuck Terminating (their location's unmount holds), when a node agent said. */
function releaseStep(node: string, terminating: readonly StuckPodFinding[]): string {
  const held = terminating.flatMap((f) => (f.location?.unmountHolds ?? []).filter((h) => h.held).map((h) => h.text));
  if (held.length === 0)
    return `Find what holds the mount on ${node} ("device or resource busy") and release it; the pods then finish terminating.`;
  return releaseHeldStep(node, held);
}

/** The steps of a CAUTION: never a force delete, nothing run on a node whose kubelet is gone. */
function cautionSteps(node: string, b: NodeBurden, stuck: readonly StuckHere[]): string[] {
  const terminating = b.terminating.map((f) => `${f.pod.namespace}/${f.pod.name}`).join(', ');
  return [
    ...(b.terminating.length > 0
      ? [
          `Do not force-delete the pods stuck Terminating (${terminating}): force-deleting leaves the volume staged on the node with no pod using it (an orphaned mount, see docs/failure-modes.md) and the volume needs a filesystem check.`,
          b.down
            ? `Nothing can be released on ${node} while its kubelet is gone: ${outOfServiceStep(node)}`
            : releaseStep(node, b.terminating),
        ]
      : []),
    ...(b.stale.length > 0
      ? [
          `Stale VolumeAttachments on ${node}: ${b.stale.map((v) => v.metadata?.name ?? '?').join(', ')}; do not remove them by hand while a pod may still use the volume.`,
        ]
      : []),
    ...stuckSteps(stuck, node, b.down),
    lastStep(node, b, stuck),
  ];
}
