// The words of the NOT_STORAGE incidents that are not the pod sandbox: configuration faults (a Secret, ConfigMap,
// projected, downward API or emptyDir volume the kubelet cannot set up) and slow image pulls. Neither is storage:
// their text never sends anyone to a node plugin or a storage backend.
import type { StuckPodFinding } from '../domain/findings.js';
import { nameList } from '../domain/names.js';

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
