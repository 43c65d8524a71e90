// Workload readiness as people read it ("Deployment frontend (3 of 5 pods ready)"), counted once by the evaluation.
//
// Deployments, ReplicaSets and StatefulSets are not among the kinds the bot reads (src/domain/kinds.ts), so their
// desired replica count is unknown: their readiness counts the pods the cache holds of the workload (a Deployment's
// across all its ReplicaSets, by the name rule of src/domain/refs.ts), and says "of the pods that exist". A DaemonSet
// is read: its own status (numberReady of desiredNumberScheduled) is the answer. Other kinds get none.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { WorkloadRef } from '../domain/findings.js';
import type { WorkloadReadiness } from '../domain/incident.js';
import type { Pod } from '../domain/objects.js';
import { nsKey } from '../domain/refs.js';

/** Whether a pod's Ready condition is True (kubelet sets it when every container is ready and readiness gates pass). */
export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c?.type === 'Ready' && c.status === 'True');
}

/**
 * Readiness of workload `w`, whose pods are controlled by the owner with uid `ownerUid` (from one of its pods);
 * undefined for kinds without one (Pod, Job, CronJob) or when nothing could be counted.
 */
export function workloadReadiness(
  index: ClusterIndex,
  w: WorkloadRef,
  ownerUid: string | undefined,
): WorkloadReadiness | undefined {
  if (w.kind === 'DaemonSet') {
    const status = index.get('daemonSets', nsKey(w.namespace, w.name))?.status;
    if (status?.desiredNumberScheduled !== undefined) {
      return { ready: status.numberReady ?? 0, of: status.desiredNumberScheduled, counted: 'desired' };
    }
  }
  const pods = podsOf(index, w, ownerUid);
  if (pods === undefined || pods.length === 0) return undefined;
  return { ready: pods.filter(isPodReady).length, of: pods.length, counted: 'existing' };
}

function podsOf(index: ClusterIndex, w: WorkloadRef, ownerUid: string | undefined): Pod[] | undefined {
  if (w.kind === 'Deployment') return index.podsOfDeployment(w.namespace, w.name);
  if (w.kind === 'StatefulSet' || w.kind === 'ReplicaSet' || w.kind === 'DaemonSet') {
    return ownerUid ? index.podsOwnedBy(ownerUid) : undefined;
  }
  return undefined;
}
