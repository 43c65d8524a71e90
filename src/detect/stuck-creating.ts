// Detector: pods stuck in ContainerCreating (init containers included, Job-owned pods included) longer than
// stuckAfter, counted from the PodScheduled condition. The cause comes from the pod's events.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { ConfigObject, StuckPodFinding } from '../domain/findings.js';
import type { ContainerStatus, KubeEvent, Pod, Volume } from '../domain/objects.js';
import { nsKey, timeMs } from '../domain/refs.js';
import type { DetectContext } from './config.js';
import { podEvents, causeFromEvents, evidenceOf, isStorageEvent } from './events.js';
import { stuckPodFinding } from './pod-finding.js';
import { blamedStorage, blamesStorage, volumesNamedIn } from './storage-path.js';
import { isStorageSource, missingObjectsIn, volumeSource } from './volume-source.js';
import { collect } from './collect.js';
import { settingWait } from './pod-settings.js';

const CREATING = new Set(['ContainerCreating', 'PodInitializing']);

/** When the pod was scheduled (PodScheduled=True transition), epoch ms; undefined when it is not scheduled. */
export function scheduledAt(pod: Pod): number | undefined {
  const c = (pod.status?.conditions ?? []).find((x) => x?.type === 'PodScheduled');
  if (c?.status !== 'True') return undefined;
  return timeMs(c.lastTransitionTime);
}

/**
 * Whether the kubelet has not started any container yet and reports it is creating them. A running or finished
 * init container means the pod got past its volumes (a long init step is not a stuck mount). A pod with no
 * container statuses at all is treated as creating: the kubelet has not reported anything since scheduling.
 */
export function isCreating(pod: Pod): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  if (pod.status?.phase !== 'Pending' || !pod.spec?.nodeName) return false;
  const statuses: ContainerStatus[] = [
    ...(pod.status.initContainerStatuses ?? []),
    ...(pod.status.containerStatuses ?? []),
  ];
  if (statuses.length === 0) return true;
  if (statuses.some((s) => s?.state?.running || s?.state?.terminated)) return false;
  return statuses.some((s) => CREATING.has(s?.state?.waiting?.reason ?? ''));
}

/** The finding for one pod if it is stuck creating at ctx.now, else undefined. */
export function stuckCreatingFinding(index: ClusterIndex, pod: Pod, ctx: DetectContext): StuckPodFinding | undefined {
  if (!isCreating(pod)) return undefined;
  const since = scheduledAt(pod);
  if (since === undefined || ctx.now - since <= ctx.config.stuckAfterMs) return undefined;
  const events = podEvents(index, pod);
  const cause = causeFromEvents(events, pod);
  return stuckPodFinding(index, pod, 'stuck-creating', since, ctx.now, {
    cause,
    // Only storage failures (or no evidence at all) blame volumes; a sandbox, image or configuration failure says
    // nothing about the pod's claims, and a configuration volume is never storage.
    storage: cause === 'storage' || cause === 'unknown' ? blamedStorage(index, pod, events.filter(isStorageEvent)) : [],
    ...(cause === 'config' ? configFault(index, pod, events) : {}),
    events: evidenceOf(events, ctx.now),
  });
}

/**
 * The configuration volumes that failed and the Secrets/ConfigMaps the kubelet says are missing, or the pod setting
 * it waits on (pod-settings.ts).
 */
function configFault(
  index: ClusterIndex,
  pod: Pod,
  events: readonly KubeEvent[],
): Pick<StuckPodFinding, 'configObjects' | 'configVolumes' | 'configWait'> {
  const volumes = (pod.spec?.volumes ?? []).filter((v): v is Volume => !!v);
  const failed = events.filter((e) => isStorageEvent(e) && !blamesStorage(pod, e));
  const objects = new Map<string, ConfigObject>();
  const names = new Set<string>();
  for (const e of failed) {
    for (const o of missingObjectsIn(e.message ?? '', volumes)) objects.set(`${o.kind}/${o.name}`, o);
    for (const n of volumesNamedIn(e.message ?? '')) names.add(n);
  }
  const configVolumes = volumes
    .filter((v) => names.has(v.name ?? '') && !isStorageSource(volumeSource(v)))
    .map((v) => v.name ?? '');
  const ns = pod.metadata?.namespace;
  const wait = settingWait(pod, events, {
    pvOf: (claim) => index.get('pvcs', nsKey(ns, claim))?.spec?.volumeName ?? undefined,
    nodeOf: (name) => index.get('pods', nsKey(ns, name))?.spec?.nodeName ?? undefined,
  });
  return { configObjects: [...objects.values()], configVolumes, ...(wait ? { configWait: wait } : {}) };
}

/** Every pod stuck in ContainerCreating. Linear in the number of pods. */
export function detectStuckCreating(index: ClusterIndex, ctx: DetectContext): StuckPodFinding[] {
  return collect(index.all('pods'), (pod) => stuckCreatingFinding(index, pod, ctx));
}
