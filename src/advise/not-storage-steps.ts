// Next steps of the NOT_STORAGE incidents that are configuration faults or slow image pulls: the object or the pod
// setting to look at, never a node plugin, a storage backend or a drain.
import type { ConfigWait } from '../domain/findings.js';
import type { Incident } from '../domain/incident.js';
import { MAX_NAMES, nameList } from '../domain/names.js';
import { waitedVolume } from '../detect/pod-settings.js';

/** What the steps of a pod-setting wait name. */
interface SettingNames {
  pod: string;
  ns: string;
  node: string;
  /** "claim media", "volume cache", "the volume". */
  vol: string;
  other?: string;
}

/** The steps of a wait the pods' own settings cause (detect/pod-settings.ts), by its kind: the setting to change. */
const SETTING_STEPS: Record<ConfigWait['kind'], (n: SettingNames) => string[]> = {
  selinux: ({ pod, ns, node, vol, other }) => [
    `Not storage: ${vol} is mounted on ${node} with the SELinux label of ${other ? `pod ${other}` : 'another pod'}, and ${pod} asks for a different one. The FailedMount event names both labels: kubectl describe pod ${pod} -n ${ns}`,
    `Give every pod that shares ${vol} the same SELinux label (spec.securityContext.seLinuxOptions in their templates). If they must keep different labels, set spec.securityContext.seLinuxChangePolicy: Recursive in each of them: the container runtime then relabels the files instead of the kubelet mounting with one label.`,
    `Do not drain ${node}, restart its node plugin or roll back the driver: the mount works, the pod specs conflict, and the pods meet the same conflict on any node they share.`,
  ],
  fsgroup: ({ pod, ns, node, vol }) => [
    `Not storage, nothing to repair: the kubelet on ${node} is changing the ownership of every file on ${vol} to the fsGroup of ${pod} and starts the pod when it is done. Follow its VolumePermissionChangeInProgress events: kubectl describe pod ${pod} -n ${ns}`,
    `Leave the pod where it is: deleting it, or draining ${node}, starts the ownership change again from the first file.`,
    'So that the next start does not wait, set spec.securityContext.fsGroupChangePolicy: OnRootMismatch in the pod template: the kubelet then skips the walk when the top directory of the volume already has the right group and permissions, as it has once this change is done.',
  ],
};

/** Steps for a `config/<ns>/selinux|fsgroup/...` incident, or undefined when its pods wait on no pod setting. */
function settingSteps(inc: Incident): string[] | undefined {
  const f = inc.pods.find((p) => p.configWait);
  const w = f?.configWait;
  if (!f || !w) return undefined;
  return SETTING_STEPS[w.kind]({
    pod: f.pod.name,
    ns: f.pod.namespace,
    node: f.node ?? 'the node',
    vol: waitedVolume(f),
    ...(w.otherPod ? { other: w.otherPod } : {}),
  });
}

/** Steps for a `config/...` incident: the pod setting to change, else get the missing Secret/ConfigMap. */
export function configSteps(inc: Incident): string[] {
  const setting = settingSteps(inc);
  if (setting) return setting;
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
