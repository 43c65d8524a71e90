// Detector: pods stuck Terminating longer than deletion + grace + stuckAfter, with their finalizers and
// unmount-failure evidence ("device or resource busy": seed strand 3, where force-deleting leaves orphaned stage
// references behind).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { Pod } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';
import type { DetectContext } from './config.js';
import { evidenceOf, isUnmountEvent } from './events.js';
import { stuckPodFinding } from './pod-finding.js';
import { blamedStorage } from './storage-path.js';
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
  const events = index.eventsFor('Pod', pod.metadata?.namespace, pod.metadata?.name ?? '');
  const unmount = events.filter(isUnmountEvent);
  return stuckPodFinding(index, pod, 'stuck-terminating', since, ctx.now, {
    cause: unmount.length > 0 ? 'storage' : 'unknown',
    storage: blamedStorage(index, pod, unmount),
    finalizers: [...(pod.metadata?.finalizers ?? [])],
    events: evidenceOf(unmount.length > 0 ? unmount : events, ctx.now),
  });
}

/** Every pod stuck Terminating (now > deletionTimestamp + stuckAfter). Linear in the number of pods. */
export function detectStuckTerminating(index: ClusterIndex, ctx: DetectContext): StuckPodFinding[] {
  return collect(index.all('pods'), (pod) => stuckTerminatingFinding(index, pod, ctx));
}
