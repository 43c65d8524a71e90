// When a pod's containers started, and how long it waited for that: the one reading of it the detectors (a CronJob
// run that waited before running) and the correlator (a pod that mounted since its node's plugin started) share.
// Only fields the watch path keeps of a Running pod (src/watch/slim.ts: no PodScheduled condition) are read, so
// `rwx scan` and the bot read the same wait.
import type { Pod } from './objects.js';
import { timeMs } from './refs.js';

/** When a Running pod's containers started (earliest running.startedAt, else Ready transition, else startTime). */
export function containersStartedAt(pod: Pod): number | undefined {
  if (pod.status?.phase !== 'Running') return undefined;
  const starts = (pod.status.containerStatuses ?? [])
    .map((c) => timeMs(c?.state?.running?.startedAt))
    .filter((t): t is number => t !== undefined);
  if (starts.length > 0) return Math.min(...starts);
  const ready = (pod.status.conditions ?? []).find((c) => c?.type === 'Ready' && c.status === 'True');
  return timeMs(ready?.lastTransitionTime) ?? timeMs(pod.status.startTime);
}

/**
 * How long a Running pod waited between the kubelet taking it (status.startTime, else its creation) and its
 * containers starting: volumes, image and sandbox, the time a pod stuck in ContainerCreating spends. Undefined when
 * not Running or not said.
 */
export function waitedToStart(pod: Pod): number | undefined {
  const started = containersStartedAt(pod);
  const from = timeMs(pod.status?.startTime) ?? timeMs(pod.metadata?.creationTimestamp);
  return started !== undefined && from !== undefined ? started - from : undefined;
}
