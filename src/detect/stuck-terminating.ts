// Detector: pods stuck Terminating longer than deletion + grace + stuckAfter, with their finalizers and
// unmount-failure evidence ("device or resource busy"; force-deleting such a pod leaves the staged mount orphaned on
// the node). A pod in a terminal phase (Failed, Succeeded) with a deletionTimestamp counts too: since Kubernetes
// 1.27 the kubelet sets the phase before it tears the volumes down, so it still holds them.
//
// The cause is storage when an unmount event is about the pod's storage volumes, and also when there is no unmount
// event at all but the pod has a storage volume: real kubelets often log a failed teardown to their own log only,
// so the missing event is no evidence of health ("an unmount suspect"). Not when a finalizer holds the pod (the
// finalizer alone explains it), nor for a pod with only configuration volumes: then the cause is unknown.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { Pod } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';
import type { DetectContext } from './config.js';
import { podEvents, evidenceOf, isUnmountEvent } from './events.js';
import { stuckPodFinding } from './pod-finding.js';
import { blamedStorage, blamesStorage, storageVolumes } from './storage-path.js';
import { collect } from './collect.js';

/**
 * When the clock for a terminating pod starts: its deletionTimestamp. The API server sets
 * metadata.deletionTimestamp to the time of the deletion request PLUS the grace period (ObjectMeta docs: "the time
 * after which this resource will be deleted"; deletionGracePeriodSeconds records the grace), so it already is
 * "deletion + grace": adding the grace again would report pods one grace period late. src/triage's
 * UNPUBLISH_STUCK reads it the same way (overdue = now - deletionTimestamp).
 */
export function terminatingSince(pod: Pod): number | undefined {
  return timeMs(pod.metadata?.deletionTimestamp);
}

/** The finding for one pod if it is stuck Terminating at ctx.now, else undefined. */
export function stuckTerminatingFinding(
  index: ClusterIndex,
  pod: Pod,
  ctx: DetectContext,
): StuckPodFinding | undefined {
  const since = terminatingSince(pod);
  if (since === undefined || ctx.now - since <= ctx.config.stuckAfterMs) return undefined;
  return terminatingFinding(index, pod, since, ctx.now);
}

/**
 * The finding for a pod being deleted since `since` (its terminatingSince), whatever the threshold: its cause,
 * storage, finalizers and unmount events as of `now`. `rwx triage` reads a pod past its grace this way too.
 */
export function terminatingFinding(index: ClusterIndex, pod: Pod, since: number, now: number): StuckPodFinding {
  const events = podEvents(index, pod);
  const unmount = events.filter(isUnmountEvent);
  const storageUnmount = unmount.filter((e) => blamesStorage(pod, e));
  const held = (pod.metadata?.finalizers ?? []).length > 0;
  const suspect = unmount.length === 0 && !held && storageVolumes(pod).length > 0;
  const cause = storageUnmount.length > 0 || suspect ? 'storage' : unmount.length > 0 ? 'config' : 'unknown';
  return stuckPodFinding(index, pod, 'stuck-terminating', since, now, {
    cause,
    storage: cause === 'config' ? [] : blamedStorage(index, pod, storageUnmount),
    finalizers: [...(pod.metadata?.finalizers ?? [])],
    events: evidenceOf(unmount.length > 0 ? unmount : events, now),
  });
}

/** Every pod stuck Terminating (now > deletionTimestamp + stuckAfter). Linear in the number of pods. */
export function detectStuckTerminating(index: ClusterIndex, ctx: DetectContext): StuckPodFinding[] {
  return collect(index.all('pods'), (pod) => stuckTerminatingFinding(index, pod, ctx));
}
