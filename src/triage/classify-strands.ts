// The strands of a bound claim, in the order they are reported: pods stuck mounting (MOUNT_FAILED), pods stuck
// terminating past their grace (UNPUBLISH_STUCK), and the volume attached or staged on a node where no consumer
// runs (STALE_ATTACHMENT). One rule of classifyClaim (strands) reports every strand found, the first as the phase.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { EventEvidence } from '../domain/findings.js';
import type { KubeEvent, Pod } from '../domain/objects.js';
import { timeMs } from '../domain/refs.js';
import { formatAge } from '../domain/duration.js';
import { causeFromEvents } from '../detect/events.js';
import { blamesClaim } from '../detect/storage-path.js';
import { terminatingPodHolds } from '../correlate/unmount-holds.js';
import {
  makeReport,
  nodeEvidence,
  podEvidence,
  type ClaimRef,
  type ClaimRule,
  type ClaimState,
  type ClassifyContext,
  type Found,
} from './classify-state.js';
import { POD_REASONS, eventEvidence } from './events.js';
import type { AttachmentEvidence, NodeEvidence } from './types.js';

/** A ContainerCreating pod younger than this with no failure event is still starting, not stuck. */
export const MOUNT_GRACE_MS = 120_000;

/** The strands of a bound claim, in the order they are reported: the first found is the phase, the rest also. */
const STRANDS: readonly ((s: ClaimState) => Found | undefined)[] = [
  ({ index, ctx, consumers, c, settled }) => (settled ? undefined : mountFailed(index, ctx, consumers, c)),
  ({ index, ctx, consumers, settled }) => (settled ? undefined : unpublishStuck(index, ctx, consumers)),
  ({ index, ctx, consumers, c }) => (c.volume ? staleAttachments(index, ctx, consumers, c.volume) : undefined),
];

/** A bound claim's pods or attachments are stuck: every strand found, the first one as the phase. */
export const strands: ClaimRule = {
  name: 'strands of a bound claim',
  classify(s) {
    const found: Found[] = [];
    for (const strand of STRANDS) {
      const f = strand(s);
      if (f) found.push(f);
    }
    const first = found[0];
    if (!first) return undefined;
    const also = found.slice(1).map((f) => f.phase);
    return makeReport(s.index, s.c, first.phase, first.detail, first.ev, also, first);
  },
};

/**
 * MOUNT_FAILED: consumer pods Pending on their node on a storage cause, with a Warning about this claim's volume or
 * ContainerCreating longer than MOUNT_GRACE_MS.
 */
function mountFailed(index: ClusterIndex, ctx: ClassifyContext, consumers: Pod[], c: ClaimRef) {
  const driver = c.driver;
  const stuck: { pod: Pod; events: EventEvidence[] }[] = [];
  for (const p of consumers) {
    if (p.metadata?.deletionTimestamp || (p.status?.phase ?? 'Pending') !== 'Pending' || !p.spec?.nodeName) continue;
    // Only events about this claim's volume: a missing Secret of the same pod is not this claim's mount failure.
    const about = (e: KubeEvent): boolean => blamesClaim(p, e, c.name, c.volume);
    const events = eventEvidence(
      index,
      'Pod',
      p.metadata?.namespace ?? '',
      p.metadata?.name ?? '',
      POD_REASONS,
      ctx.now,
      about,
    );
    const creating = [...(p.status?.containerStatuses ?? []), ...(p.status?.initContainerStatuses ?? [])].some(
      (cs) => cs?.state?.waiting?.reason === 'ContainerCreating',
    );
    const since = timeMs(p.status?.startTime) ?? timeMs(p.metadata?.creationTimestamp);
    const old = since === undefined || ctx.now - since >= MOUNT_GRACE_MS;
    // Stuck on a Secret, the sandbox or an image pull (detect/events.ts causeFromEvents): not this claim's mount.
    const cause = causeFromEvents(index.eventsFor('Pod', p.metadata?.namespace, p.metadata?.name ?? ''), p);
    if (cause !== 'storage' && cause !== 'unknown') continue;
    if (events.some((e) => e.type === 'Warning') || (creating && old)) stuck.push({ pod: p, events });
  }
  if (stuck.length === 0) return undefined;
  const nodeNames = [...new Set(stuck.map((s) => s.pod.spec?.nodeName ?? '?'))].sort();
  const nodes: NodeEvidence[] = nodeNames.map((n) => nodeEvidence(index, ctx, n, driver));
  const unregistered = nodes.filter((n) => n.driverRegistered === false).map((n) => n.name);
  const events = stuck
    .flatMap((s) => s.events)
    .sort((a, b) => (a.ageSeconds ?? Infinity) - (b.ageSeconds ?? Infinity))
    .slice(0, 5);
  const detail =
    `${stuck.length} pod(s) stuck ContainerCreating on ${nodeNames.join(', ')}` +
    (unregistered.length ? `; driver ${driver} not registered on ${unregistered.join(', ')} (CSINode)` : '') +
    (events[0] ? `: ${events[0].reason}: ${events[0].message}` : '');
  return {
    phase: 'MOUNT_FAILED' as const,
    detail,
    ev: { events, pods: stuck.map((s) => podEvidence(s.pod)), nodes },
    nodes: nodeNames,
  };
}

/** UNPUBLISH_STUCK: consumer pods past their deletion time (grace included), with their finalizers. */
function unpublishStuck(index: ClusterIndex, ctx: ClassifyContext, consumers: Pod[]) {
  // The API server sets metadata.deletionTimestamp to the deletion request time PLUS the grace period
  // (deletionGracePeriodSeconds), so "past deletion + grace" is now - deletionTimestamp, with no grace added again;
  // src/detect/stuck-terminating.ts starts its clock at the same instant.
  const stuck = consumers
    .map((p) => ({ p, at: timeMs(p.metadata?.deletionTimestamp) }))
    .filter((x): x is { p: Pod; at: number } => x.at !== undefined && ctx.now >= x.at);
  if (stuck.length === 0) return undefined;
  const pods = stuck.map(({ p, at }) => ({ ...podEvidence(p), overdueSeconds: Math.floor((ctx.now - at) / 1000) }));
  const parts = pods.map(
    (p) =>
      `${p.name} ${formatAge((p.overdueSeconds ?? 0) * 1000)} past grace, finalizers [${(p.finalizers ?? []).join(', ')}]`,
  );
  const nodes = [...new Set(pods.map((p) => p.node).filter((n): n is string => !!n))].sort();
  // FailedUnmount ("device or resource busy") on the pod is the evidence that unpublish is tried and refused.
  const events = pods
    .flatMap((p) => eventEvidence(index, 'Pod', p.namespace, p.name, POD_REASONS, ctx.now))
    .slice(0, 5);
  // What holds each pod's mount: the thread's lines for the same pod, from the same agents' answers.
  const holds = stuck.flatMap(({ p }) => terminatingPodHolds(index, p, ctx.now, ctx.nodeReports) ?? []);
  return {
    phase: 'UNPUBLISH_STUCK' as const,
    detail: `terminating: ${parts.join('; ')}`,
    ev: { pods, events, nodes: nodes.map((n) => ({ name: n, driverRegistered: null })), holds },
    nodes,
  };
}

/**
 * STALE_ATTACHMENT: the volume attached (VolumeAttachment), or proven staged by a node agent with no pod bind
 * mount, on a node where no consumer pod of the claim runs. A consumer on that node may be starting or stopping
 * (staged before published, unpublished before unstaged): MOUNT_FAILED and UNPUBLISH_STUCK speak for it.
 */
function staleAttachments(
  index: ClusterIndex,
  ctx: ClassifyContext,
  consumers: Pod[],
  volume: string,
): Found | undefined {
  const consumerNodes = new Set(consumers.map((p) => p.spec?.nodeName).filter(Boolean));
  const stale = ctx.readable.pods ? staleVolumeAttachments(index, ctx, consumerNodes, volume) : [];
  const stages = (ctx.orphansByPv?.get(volume) ?? []).filter((s) => !consumerNodes.has(s.node));
  if (stale.length === 0 && stages.length === 0) return undefined;
  const nodeNames = [...new Set([...stale.map((s) => s.node), ...stages.map((s) => s.node)])].sort();
  const nodes = nodeNames.map((n) => nodeEvidence(index, ctx, n, null));
  const gone = nodes.filter((n) => n.exists === false).map((n) => n.name);
  const attached = stale.length
    ? [
        `attached on node(s) with no consumer: ${[...new Set(stale.map((s) => s.node))].sort().join(', ')}` +
          (gone.length ? ` (node gone: ${gone.join(', ')})` : ''),
      ]
    : [];
  const detail = [...attached, ...stages.map((s) => s.text)].join('; ');
  const path = stages[0]?.path;
  return {
    phase: 'STALE_ATTACHMENT',
    detail,
    ev: { attachments: stale, nodes, stages },
    nodes: nodeNames,
    ...(path ? { path } : {}),
  };
}

/** The volume's VolumeAttachments attached on a node with no consumer (none when attachments are unreadable). */
function staleVolumeAttachments(
  index: ClusterIndex,
  ctx: ClassifyContext,
  consumerNodes: ReadonlySet<string | null | undefined>,
  volume: string,
): AttachmentEvidence[] {
  if (!ctx.readable.volumeAttachments) return [];
  const stale: AttachmentEvidence[] = [];
  for (const va of index.attachmentsForPv(volume)) {
    const node = va.spec?.nodeName ?? '';
    if (va.status?.attached !== true || consumerNodes.has(node)) continue;
    const a: AttachmentEvidence = {
      name: va.metadata?.name ?? '',
      node,
      attached: true,
      deleting: !!va.metadata?.deletionTimestamp,
    };
    if (va.status?.detachError?.message) a.detachError = va.status.detachError.message;
    stale.push(a);
  }
  return stale;
}
