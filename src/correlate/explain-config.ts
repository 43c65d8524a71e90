// The words of the NOT_STORAGE incidents that are not the pod sandbox: configuration faults (a Secret, ConfigMap,
// projected, downward API or emptyDir volume the kubelet cannot set up, or the pod's own SELinux label or fsGroup
// making the mount wait) and slow image pulls. None is storage: their text never sends anyone to a node plugin or a
// storage backend.
import type { ConfigWait, StuckPodFinding } from '../domain/findings.js';
import { nameList } from '../domain/names.js';
import { waitedVolume } from '../detect/pod-settings.js';

/** Title, summary and explanations of a draft. */
export interface IncidentText {
  title: string;
  summary: string;
  explanations: string[];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "secret api/payments-tls", the missing objects of the findings, de-duplicated in order. */
export function missingObjects(pods: readonly StuckPodFinding[]): string[] {
  const seen = new Set<string>();
  for (const f of pods) for (const o of f.configObjects ?? []) seen.add(`${o.kind} ${f.pod.namespace}/${o.name}`);
  return [...seen];
}

/** Title, summary and explanations of a `config/...` incident. */
export function configText(pods: readonly StuckPodFinding[], age: string): IncidentText {
  const objects = missingObjects(pods);
  const volumes = [...new Set(pods.flatMap((f) => f.configVolumes ?? []))];
  const ns = [...new Set(pods.map((f) => f.pod.namespace))];
  const what = objects.length > 0 ? `${nameList(objects, 3, ', ')} not found` : 'configuration volumes not set up';
  return {
    title: `${nameList(ns, 3, ', ')}: ${what} (configuration, not storage)`,
    summary: `NOT_STORAGE: ${plural(pods.length, 'pod')} stuck in ContainerCreating because the kubelet cannot set up ${volumes.length > 0 ? `volume${volumes.length === 1 ? '' : 's'} ${nameList(volumes, 5, ', ')}` : 'their configuration volumes'}${objects.length > 0 ? `: ${nameList(objects, 5, ', ')} not found` : ''}${age}; a configuration fault, not storage`,
    explanations: [
      'FailedMount here is about Secret, ConfigMap, projected, downward API or emptyDir volumes: the kubelet writes API data or scratch space into the pod, no storage driver or backend is involved, and no node is at fault.',
      ...(objects.length > 0
        ? [
            `The kubelet retries until ${objects.length === 1 ? 'the object exists' : 'the objects exist'}; creating ${objects.length === 1 ? 'it' : 'them'} (or fixing the name in the pod template) lets the pods start without deleting them.`,
          ]
        : []),
    ],
  };
}

/** Title, summary and explanations of the `not-storage/image-pull` incident. */
export function imagePullText(pods: readonly StuckPodFinding[], age: string): IncidentText {
  const nodes = [...new Set(pods.map((f) => f.node).filter((n): n is string => !!n))].sort();
  return {
    title: 'Pods still pulling their images (not storage)',
    summary: `NOT_STORAGE: ${plural(pods.length, 'pod')} on ${nameList(nodes, 5, ', ')} stuck in ContainerCreating while their images are pulled${age}: the registry or the image size, not a volume`,
    explanations: [
      'The kubelet pulls images after it has mounted the volumes and created the sandbox: these pods got their volumes.',
    ],
  };
}

/** What the words of a pod-setting wait are written from. */
interface SettingInput {
  pods: readonly StuckPodFinding[];
  /** "claim media", "volume cache", "the volume". */
  vol: string;
  nodes: string;
  age: string;
}

/** The phrasings of a wait the pods' own settings cause (detect/pod-settings.ts), by its kind. */
const SETTING_WORDS: Record<ConfigWait['kind'], (s: SettingInput) => IncidentText> = {
  selinux: ({ pods, vol, nodes, age }) => ({
    title: `${vol}: pods with different SELinux labels share it on ${nodes} (configuration, not storage)`,
    summary: `NOT_STORAGE: ${plural(pods.length, 'pod')} stuck in ContainerCreating on ${nodes} because ${vol} is mounted there with another pod's SELinux label${age}; a conflict between pod specs, not storage`,
    explanations: [
      'The kubelet mounts a volume on a node with one SELinux context (mount -o context), the label of the first pod there; a pod with another label (securityContext.seLinuxOptions) waits with "conflicting SELinux labels of volume". The driver mounted the volume correctly: no node plugin, storage backend or node is at fault.',
    ],
  }),
  fsgroup: ({ pods, vol, nodes, age }) => ({
    title: `${vol}: fsGroup ownership change in progress on ${nodes} (configuration, not storage)`,
    summary: `NOT_STORAGE: ${plural(pods.length, 'pod')} waiting in ContainerCreating on ${nodes} while the kubelet changes the ownership of every file on ${vol} to the pod's fsGroup${age}: slow, not broken`,
    explanations: [
      'With securityContext.fsGroup and the default fsGroupChangePolicy (Always), the kubelet walks every file of the volume at each mount before the containers start (VolumePermissionChangeInProgress); on a large volume that takes minutes or hours. The mount itself worked: no driver, storage backend or node is at fault.',
    ],
  }),
};

/** Title, summary and explanations of a `config/<ns>/selinux|fsgroup/...` incident, with whether it heals by itself. */
export function settingText(pods: readonly StuckPodFinding[], age: string, outlook: string | undefined): IncidentText {
  const f = pods.find((p) => p.configWait);
  const nodes = nameList([...new Set(pods.map((p) => p.node ?? '?'))].sort(), 5, ', ');
  const vol = f ? waitedVolume(f) : 'the volume';
  const text = SETTING_WORDS[f?.configWait?.kind ?? 'fsgroup']({ pods, vol, nodes, age });
  return { ...text, explanations: [...text.explanations, ...(outlook ? [outlook] : [])] };
}
