// Workload resolution: which Deployment / StatefulSet / DaemonSet / CronJob / Job a pod belongs to.
//
// Deployments and ReplicaSets are not among the kinds the bot reads (see src/domain/kinds.ts), so the Deployment
// is derived from the ReplicaSet owner reference: the Deployment controller names its ReplicaSets
// `<deployment>-<pod-template-hash>` and stamps the same hash on the pods as the `pod-template-hash` label. When the
// pod carries that label and the ReplicaSet name ends with `-<hash>`, the Deployment is the name without the
// suffix; otherwise the pod is reported as owned by the ReplicaSet itself (a bare ReplicaSet has no such label).
// Jobs and CronJobs are read, so Job -> CronJob follows real owner references by uid.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { WorkloadRef } from '../domain/findings.js';
import type { Pod } from '../domain/objects.js';
import { controllerOf, deploymentFromReplicaSet, nsKey } from '../domain/refs.js';

/** "namespace/name" of a pod: the member key used in findings, incidents and CronJob links. */
export function podKey(pod: Pod): string {
  return nsKey(pod.metadata?.namespace, pod.metadata?.name);
}

/** Follows a pod's owner chain to the workload people name: Deployment, StatefulSet, DaemonSet, CronJob, Job, or Pod. */
export function resolveWorkload(index: ClusterIndex, pod: Pod): WorkloadRef {
  const namespace = pod.metadata?.namespace ?? '';
  const owner = controllerOf(pod);
  if (!owner?.kind || !owner.name) return { kind: 'Pod', namespace, name: pod.metadata?.name ?? '' };
  switch (owner.kind) {
    case 'ReplicaSet': {
      const dep = deploymentFromReplicaSet(owner.name, pod.metadata?.labels?.['pod-template-hash']);
      return dep ? { kind: 'Deployment', namespace, name: dep } : { kind: 'ReplicaSet', namespace, name: owner.name };
    }
    case 'Job': {
      const job = owner.uid ? jobByUid(index, owner.uid) : index.get('jobs', nsKey(namespace, owner.name));
      const cron = job ? controllerOf(job) : undefined;
      if (cron?.kind === 'CronJob' && cron.name) return { kind: 'CronJob', namespace, name: cron.name };
      return { kind: 'Job', namespace, name: owner.name };
    }
    default:
      // StatefulSet, DaemonSet, and any custom controller: the direct owner is the workload.
      return { kind: owner.kind, namespace, name: owner.name };
  }
}

function jobByUid(index: ClusterIndex, uid: string) {
  const key = index.keyOfUid(uid);
  return key ? index.get('jobs', key) : undefined;
}
