// Next steps of the NOT_STORAGE incidents that are configuration faults or slow image pulls: the object to look
// at, never a node plugin, a storage backend or a drain.
import type { Incident } from '../domain/incident.js';
import { MAX_NAMES, nameList } from '../domain/names.js';

/** Steps for a `config/...` incident: get the missing Secret/ConfigMap, then read the pod's events. */
export function configSteps(inc: Incident): string[] {
  const objects = new Map<string, string>();
  for (const f of inc.pods)
    for (const o of f.configObjects ?? [])
      objects.set(`${o.kind}/${f.pod.namespace}/${o.name}`, `kubectl get ${o.kind} ${o.name} -n ${f.pod.namespace}`);
  const first = inc.pods[0];
  const describe = first ? `kubectl describe pod ${first.pod.name} -n ${first.pod.namespace}` : 'kubectl describe pod';
  return [
    ...(objects.size > 0
      ? [
          `Not storage: check that the missing object exists in the pod's namespace: ${[...objects.values()].join('; ')}`,
          'Create it, or fix the name the pod template refers to; the kubelet retries on its own and the pods start without being deleted.',
        ]
      : [
          `Not storage: read which Secret, ConfigMap or volume the kubelet cannot set up: ${describe}`,
          'Fix the object or the pod template; no node plugin, storage backend or node is involved, so do not drain or restart them.',
        ]),
  ];
}

/** Steps for the `not-storage/image-pull` incident. */
export function imagePullSteps(inc: Incident): string[] {
  const nodes = inc.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node);
  const first = inc.pods[0];
  return [
    `Not storage: the volumes are mounted and the images are still being pulled on ${nameList(nodes, MAX_NAMES, ', ')}. Read the Pulling events: ${first ? `kubectl describe pod ${first.pod.name} -n ${first.pod.namespace}` : 'kubectl describe pod'}`,
    'Check the registry (reachable, rate limits) and the image size; draining does not help a slow pull.',
  ];
}
