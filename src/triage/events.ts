// Event evidence: the latest relevant Events of an object, with count and age, from the index (no scan).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { EventEvidence } from '../domain/findings.js';
import type { KubeEvent } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';

/** Reasons that explain a claim that does not provision or bind. */
export const CLAIM_REASONS: ReadonlySet<string> = new Set([
  'ProvisioningFailed',
  'FailedBinding',
  'ExternalProvisioning',
  'WaitForFirstConsumer',
  'ClaimLost',
]);
/** Reasons that explain a pod that cannot get or release its volume. */
export const POD_REASONS: ReadonlySet<string> = new Set([
  'FailedMount',
  'FailedAttachVolume',
  'FailedUnmount',
  'FailedMapVolume',
  'VolumeFailedUnmount',
  'FailedDetachVolume',
]);

/** Most events per object kept as evidence (latest first). */
export const MAX_EVENTS_PER_OBJECT = 3;

/** Last time an event was seen (the newest of its timestamps), epoch ms. */
export function eventLastMs(e: KubeEvent): number | undefined {
  return (
    timeMs(e.series?.lastObservedTime) ??
    timeMs(e.lastTimestamp) ??
    timeMs(e.eventTime) ??
    timeMs(e.firstTimestamp) ??
    timeMs(e.metadata?.creationTimestamp)
  );
}

/** The latest events of `kind/namespace/name` whose reason is in `reasons`, newest first, as evidence. */
export function eventEvidence(
  index: ClusterIndex,
  kind: string,
  namespace: string,
  name: string,
  reasons: ReadonlySet<string>,
  now: number,
): EventEvidence[] {
  const picked = index
    .eventsFor(kind, namespace, name)
    .filter((e) => reasons.has(e.reason ?? ''))
    .map((e) => ({ e, at: eventLastMs(e) }))
    .sort((a, b) => (b.at ?? 0) - (a.at ?? 0))
    .slice(0, MAX_EVENTS_PER_OBJECT);
  return picked.map(({ e, at }) => {
    const ev: EventEvidence = {
      object: `${kind}/${namespace}/${name}`,
      type: e.type ?? '',
      reason: e.reason ?? '',
      message: (e.message ?? '').split('\n')[0] ?? '',
      count: e.series?.count ?? e.count ?? 1,
    };
    if (at !== undefined) {
      ev.lastSeen = new Date(at).toISOString().replace('.000Z', 'Z');
      ev.ageSeconds = Math.max(0, Math.floor((now - at) / 1000));
    }
    return ev;
  });
}
