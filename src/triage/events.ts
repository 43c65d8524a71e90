// Event evidence: the latest relevant Events of an object, with count and age, from the index (no scan).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { EventEvidence } from '../domain/findings.js';
import type { KubeEvent } from '../domain/objects.js';
import { eventLastSeen, toEvidence } from '../detect/events.js';

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

/** The latest events of `kind/namespace/name` whose reason is in `reasons` (and that `about` keeps), newest first. */
export function eventEvidence(
  index: ClusterIndex,
  kind: string,
  namespace: string,
  name: string,
  reasons: ReadonlySet<string>,
  now: number,
  about: (e: KubeEvent) => boolean = () => true,
): EventEvidence[] {
  return index
    .eventsFor(kind, namespace, name)
    .filter((e) => reasons.has(e.reason ?? '') && about(e))
    .map((e) => ({ e, at: eventLastSeen(e) ?? 0 }))
    .sort((a, b) => b.at - a.at)
    .slice(0, MAX_EVENTS_PER_OBJECT)
    .map(({ e }) => toEvidence(e, now, `${kind}/${namespace}/${name}`));
}
