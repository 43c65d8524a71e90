// Events as evidence, and the cause of a stuck pod decided from them. Pure: reads event fields only.
import type { Cause, EventEvidence } from '../domain/findings.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { KubeEvent, Pod } from '../domain/objects.js';
import { blamesStorage } from './storage-path.js';
import { isPlainTimeout, settingWaitOf } from './pod-settings.js';
import { timeMs } from '../domain/refs.js';

/**
 * The events about this pod: those of an earlier pod of the same name (a StatefulSet pod recreated, another
 * involvedObject.uid) are left out, so its old failures are not evidence about the new pod. Events without a uid
 * (hand-written, or from an old recorder) are kept.
 */
export function podEvents(index: ClusterIndex, pod: Pod): KubeEvent[] {
  const all = index.eventsFor('Pod', pod.metadata?.namespace, pod.metadata?.name ?? '');
  const uid = pod.metadata?.uid;
  return uid ? all.filter((e) => !e.involvedObject?.uid || e.involvedObject.uid === uid) : all;
}

/** Reasons that mean the kubelet or attach/detach controller could not attach or mount a volume. */
const STORAGE_REASONS = new Set(['FailedMount', 'FailedAttachVolume', 'FailedMapVolume']);
/** Reasons that mean an unmount on the node failed (stuck Terminating evidence). */
const UNMOUNT_REASONS = new Set(['FailedUnmount', 'FailedUnmountDevice', 'FailedDetachVolume']);
/** The pod sandbox (network namespace, CNI) could not be created: not storage. */
const NETWORK_REASONS = new Set(['FailedCreatePodSandBox']);

/**
 * The time an event was last seen (epoch ms), with kubectl's precedence: a new-style event's
 * `series.lastObservedTime` wins over the deprecated `lastTimestamp`, then `eventTime`, `firstTimestamp`, creation.
 */
export function eventLastSeen(e: KubeEvent): number | undefined {
  return (
    timeMs(e.series?.lastObservedTime) ??
    timeMs(e.lastTimestamp) ??
    timeMs(e.eventTime) ??
    timeMs(e.firstTimestamp) ??
    timeMs(e.metadata?.creationTimestamp)
  );
}

/** How many times an event was seen: `series.count` over the deprecated `count`, at least 1 (kubectl's rule). */
export function eventCount(e: KubeEvent): number {
  return e.series?.count ?? e.count ?? 1;
}

/** Whole seconds from `lastMs` to `now`, rounded down as kubectl does ("59s" until a full minute has passed). */
export function ageSeconds(lastMs: number, now: number): number {
  return Math.max(0, Math.floor((now - lastMs) / 1000));
}

/** An event message on one line: the kubelet's multi-line mount output ("Output: mount.nfs: ...") kept, joined. */
export function eventMessage(e: KubeEvent): string {
  return (e.message ?? '').replace(/\s+/g, ' ').trim();
}

/** Whether an event says a mount or attach failed (FailedMount, FailedAttachVolume, MountVolume.* messages). */
export function isStorageEvent(e: KubeEvent): boolean {
  const reason = e.reason ?? '';
  return (
    STORAGE_REASONS.has(reason) ||
    reason.startsWith('MountVolume.') ||
    /^(MountVolume|MapVolume|AttachVolume)\./.test(e.message ?? '')
  );
}

/** Whether an event says an unmount failed ("device or resource busy" and friends). */
export function isUnmountEvent(e: KubeEvent): boolean {
  const reason = e.reason ?? '';
  return UNMOUNT_REASONS.has(reason) || /UnmountVolume\.|UnmountDevice|device or resource busy/.test(e.message ?? '');
}

/** Whether an event says the pod sandbox could not be created (CNI, runtime): a network cause. */
export function isNetworkEvent(e: KubeEvent): boolean {
  return NETWORK_REASONS.has(e.reason ?? '');
}

/** The kubelet started pulling an image: the pod got past its volumes and its sandbox. */
export function isImagePullEvent(e: KubeEvent): boolean {
  return e.reason === 'Pulling';
}

/**
 * The cause of a pod stuck in ContainerCreating. The kubelet mounts volumes, then creates the sandbox, then pulls
 * images, so mount failures win unless a sandbox failure or an image pull was seen more recently than the last
 * mount failure (the mount since succeeded and the pod moved on: a slow pull is not storage). A mount failure is
 * storage when it is about the pod's storage volumes (storage-path.ts blamesStorage), and 'config' when only its
 * Secret, ConfigMap, projected, downward API or emptyDir volumes fail. Without the pod, every mount failure is storage.
 * A wait the pod's own settings cause (pod-settings.ts: an SELinux label conflict, an fsGroup ownership change) is
 * 'config' too, and while the kubelet reports an ownership change its plain wait timeouts are that change, not
 * storage; any other mount failure still makes it storage.
 */
export function causeFromEvents(events: readonly KubeEvent[], pod?: Pod): Cause {
  let storage: number | undefined;
  let config: number | undefined;
  let network: number | undefined;
  let image: number | undefined;
  const chown = events.some((e) => settingWaitOf(e) === 'fsgroup');
  for (const e of events) {
    const t = eventLastSeen(e) ?? 0;
    if (settingWaitOf(e) || (chown && isStorageEvent(e) && isPlainTimeout(e))) config = Math.max(config ?? 0, t);
    else if (isStorageEvent(e)) {
      if (!pod || blamesStorage(pod, e)) storage = Math.max(storage ?? 0, t);
      else config = Math.max(config ?? 0, t);
    } else if (isNetworkEvent(e)) network = Math.max(network ?? 0, t);
    else if (isImagePullEvent(e)) image = Math.max(image ?? 0, t);
  }
  const mount = storage ?? config;
  const mountLast = Math.max(storage ?? 0, config ?? 0);
  const later = Math.max(network ?? -1, image ?? -1);
  if (mount !== undefined && mountLast >= later) return storage !== undefined ? 'storage' : 'config';
  if (network !== undefined && network >= (image ?? -1)) return 'network';
  if (image !== undefined) return 'image';
  return 'unknown';
}

/**
 * One event as evidence about `object` ("Kind/ns/name", by default its involved object), aged against `now`. The
 * one place that turns an event into what the thread, `rwx scan` and `rwx triage` show.
 */
export function toEvidence(e: KubeEvent, now: number, object?: string): EventEvidence {
  const last = eventLastSeen(e);
  const io = e.involvedObject;
  const ev: EventEvidence = {
    object: object ?? `${io?.kind ?? ''}/${io?.namespace ?? ''}/${io?.name ?? ''}`,
    type: e.type ?? 'Normal',
    reason: e.reason ?? '',
    message: eventMessage(e),
    count: eventCount(e),
  };
  if (last !== undefined) {
    ev.lastSeen = new Date(last).toISOString();
    ev.ageSeconds = ageSeconds(last, now);
  }
  return ev;
}

/** The events worth showing, most recent first: Warnings, plus Normal ones when there are no Warnings; at most `max`. */
export function evidenceOf(events: readonly KubeEvent[], now: number, max = 8): EventEvidence[] {
  const warnings = events.filter((e) => e.type === 'Warning');
  const chosen = warnings.length > 0 ? warnings : [...events];
  return chosen
    .map((e) => ({ e, t: eventLastSeen(e) ?? 0 }))
    .sort((a, b) => b.t - a.t)
    .slice(0, max)
    .map(({ e }) => toEvidence(e, now));
}
