// The members of an incident as a post showed them: what a later post compares with to name what joined since.
import type { Incident } from './incident.js';

/** What a previous post showed: enough to tell new nodes and workloads from known ones. */
export interface PostedMembers {
  nodes: string[];
  workloads: string[];
  pods: string[];
  cronJobs: string[];
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
  };
}
