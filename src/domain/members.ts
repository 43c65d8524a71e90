// The members of an incident as a post showed them: what a later post compares with to name what joined since.
import type { Incident } from './incident.js';
import { proofKeys } from './proof.js';

/** What a previous post showed: enough to tell new nodes and workloads from known ones. */
export interface PostedMembers {
  nodes: string[];
  workloads: string[];
  pods: string[];
  cronJobs: string[];
  /** What the node agents' proof stated (proofKeys); absent in records written before the proof existed. */
  proof?: string[];
  /**
   * Stuck pods and nodes with stuck pods the post counted without listing them (a record keeps at most so many,
   * domain/kept.ts); absent when it listed them all. A member first listed after such a post may have been there.
   */
  notListed?: { pods: number; nodes: number };
}

/** The members an incident shows now, in the form PostedMembers records. */
export function membersOf(incident: Incident): PostedMembers {
  return {
    nodes: incident.nodes
      .filter((n) => n.stuckPods.length > 0)
      .map((n) => n.node)
      .sort(),
    workloads: incident.workloads.map((w) => `${w.kind}/${w.namespace}/${w.name}`).sort(),
    pods: incident.pods.map((p) => p.key).sort(),
    cronJobs: incident.cronJobs.map((c) => c.key).sort(),
    ...(incident.proof ? { proof: proofKeys(incident.proof) } : {}),
    ...notListedOf(incident),
  };
}

// The members counted and not listed, when there are any.
function notListedOf(incident: Incident): Pick<PostedMembers, 'notListed'> {
  const pods = incident.podsNotKept ?? 0;
  const nodes = incident.nodesNotKept?.withStuckPods ?? 0;
  return pods + nodes > 0 ? { notListed: { pods, nodes } } : {};
}

/** Pods a post showed that the incident no longer has, by what the cluster says of each ("namespace/name"). */
export interface DepartedMembers {
  /** Same pod, Running (or Succeeded) now: recovered on its own. */
  recovered: string[];
  /** Gone, replaced or being deleted: re-test its replacement. */
  deleted: string[];
  /** Still there and not Running, no longer counted here (stuck for another reason now), or not checked. */
  other: string[];
}

/** "namespace/name" of a stuck-pod finding key ("stuck-creating/ns/name"). */
export function podOfMemberKey(key: string): string {
  return key.replace(/^stuck-(creating|terminating)\//, '');
}

/** The pods `before` showed that `now` no longer has ("namespace/name"), sorted. */
export function departedPods(before: PostedMembers, now: PostedMembers): string[] {
  const still = new Set(now.pods);
  return before.pods
    .filter((p) => !still.has(p))
    .map(podOfMemberKey)
    .sort();
}
