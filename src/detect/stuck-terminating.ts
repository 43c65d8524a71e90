// Detector: pods stuck Terminating longer than deletionTimestamp + grace + stuckAfter, with their finalizers and
// unmount-failure evidence ("device or resource busy": seed strand 3, where force-deleting leaves orphaned stage
// references behind).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { Pod } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';
import type { DetectContext } from './config.js';
import { evidenceOf, isUnmountEvent } from './events.js';
import { resolveWorkload } from './owner.js';
import { blamedStorage } from './storage-path.js';

/** Default terminationGracePeriodSeconds when neither the pod nor its deletion says. */
const DEFAULT_GRACE_SECONDS = 30;

/**
 * When the clock for a terminating pod starts: deletionTimestamp + grace (the convention in
 * src/domain/findings.ts). The API server already sets deletionTimestamp to request time + grace, so this is
 * conservative by one grace period; a pod reported here is stuck by any reading.
 */
export function terminatingSince(pod: Pod): number | undefined {
  const deleted = timeMs(pod.metadata?.deletionTimestamp);
  if (deleted === undefined) return undefined;
  const grace = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  return deleted + grace * 1000;
}

/** The finding for one pod if it is stuck Terminating at ctx.now, else undefined. */
export function stuckTerminatingFinding(index: ClusterIndex, pod: Pod, ctx: DetectContext): StuckPodFinding | undefined {
  const since = terminatingSince(pod);
  if (since === undefined || ctx.now - since <= ctx.config.stuckAfterMs) return undefined;
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const events = index.eventsFor('Pod', namespace, name);
  const unmount = events.filter(isUnmountEvent);
  const finding: StuckPodFinding = {
    kind: 'stuck-terminating',
    key: `stuck-terminating/${namespace}/${name}`,
    pod: { namespace, name, ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}) },
    workload: resolveWorkload(index, pod),
    since: new Date(since).toISOString(),
    stuckSeconds: Math.floor((ctx.now - since) / 1000),
    cause: unmount.length > 0 ? 'storage' : 'unknown',
    storage: blamedStorage(index, pod, unmount),
    finalizers: [...(pod.metadata?.finalizers ?? [])],
    events: evidenceOf(unmount.length > 0 ? unmount : events, ctx.now),
  };
  if (pod.spec?.nodeName) finding.node = pod.spec.nodeName;
  return finding;
}

/** Every pod stuck Terminating. Linear in the number of pods. */
export function detectStuckTerminating(index: ClusterIndex, ctx: DetectContext): StuckPodFinding[] {
  const out: StuckPodFinding[] = [];
  for (const pod of index.all('pods')) {
    const f = stuckTerminatingFinding(index, pod, ctx);
    if (f) out.push(f);
  }
  return out;
}
