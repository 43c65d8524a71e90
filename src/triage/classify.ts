// Classification of one ReadWriteMany claim into its strand, from index lookups only (pods by claim,
// attachments by PV, events by object, CSINode by node): cost per claim is proportional to that claim's pods.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { EventEvidence } from '../domain/findings.js';
import type { KubeEvent, PersistentVolumeClaim, Pod } from '../domain/objects.js';
import { nsKey, timeMs } from '../domain/refs.js';
import { formatAge } from '../domain/duration.js';
import { causeFromEvents } from '../detect/events.js';
import { blamesClaim, claimDriver, claimStorageKind, holdsVolumes, type StorageKind } from '../detect/storage-path.js';
import { adviceFor } from './advice.js';
import { CLAIM_REASONS, POD_REASONS, eventEvidence } from './events.js';
import type { AttachmentEvidence, ClaimReport, NodeEvidence, Phase, PodEvidence, StageEvidence } from './types.js';

/** What classifyClaim needs besides the claim: the time and which kinds could be read. */
export interface ClassifyContext {
  now: number;
  readable: {
    pods: boolean;
    pvs: boolean;
    storageClasses: boolean;
    volumeAttachments: boolean;
    csiNodes: boolean;
    nodes: boolean;
  };
  /** Orphaned staged volumes the node agents found, by volume (node-proof.ts readProof); absent without agents. */
  orphansByPv?: ReadonlyMap<string, readonly StageEvidence[]>;
}

/** A ContainerCreating pod younger than this with no failure event is still starting, not stuck. */
export const MOUNT_GRACE_MS = 120_000;

// Shared empty list for the evidence of the (many) OK claims: reports are read-only, so one frozen array will do.
const NONE: never[] = Object.freeze([]) as unknown as never[];
const NO_EVIDENCE: ClaimReport['evidence'] = Object.freeze({
  events: NONE,
  pods: NONE,
  nodes: NONE,
  attachments: NONE,
  stages: NONE,
});

/** Whether a claim asks for ReadWriteMany (spec, or status once bound). */
export function isRwx(pvc: PersistentVolumeClaim): boolean {
  return (
    (pvc.spec?.accessModes ?? []).includes('ReadWriteMany') || (pvc.status?.accessModes ?? []).includes('ReadWriteMany')
  );
}

/** The claim fields every report repeats. */
interface ClaimRef {
  namespace: string;
  name: string;
  volume: string | null;
  scName: string | null;
  driver: string | null;
  /** What serves the claim: the mount steps fit it. */
  storage: StorageKind;
}

/** `nodes`: every node the problem is on, sorted; the advice names them all (and `path`, a proven globalmount). */
type Fill = { nodes?: string[]; path?: string };
type Found = { phase: Phase; detail: string; ev: Partial<ClaimReport['evidence']> } & Fill;

function makeReport(
  index: ClusterIndex,
  c: ClaimRef,
  phase: Phase,
  detail: string,
  ev: Partial<ClaimReport['evidence']> = {},
  also: Phase[] = NONE,
  fill: Fill = {},
): ClaimReport {
  return {
    namespace: c.namespace,
    name: c.name,
    phase,
    needsAttention: phase !== 'OK' && !(phase === 'PENDING_NO_CONSUMER' && waitsByDesign(index, c.scName)),
    detail,
    alsoPhases: also,
    storageClass: c.scName,
    volume: c.volume,
    driver: c.driver,
    evidence:
      phase === 'OK'
        ? NO_EVIDENCE
        : {
            events: ev.events ?? NONE,
            pods: ev.pods ?? NONE,
            nodes: ev.nodes ?? NONE,
            attachments: ev.attachments ?? NONE,
            stages: ev.stages ?? NONE,
          },
    advice: phase === 'OK' ? NONE : adviceFor(phase, { ...fill, volume: c.volume, storage: c.storage }),
  };
}

/**
 * Classifies one claim: its phase, a one-line detail, evidence and the next steps. Pure. The first rule of
 * CLAIM_RULES that applies decides; OK when none does. The common case (a bound claim whose pods all run and
 * nothing stale) allocates little: this runs once per claim in the cluster.
 */
export function classifyClaim(index: ClusterIndex, pvc: PersistentVolumeClaim, ctx: ClassifyContext): ClaimReport {
  const s = claimState(index, pvc, ctx);
  for (const rule of CLAIM_RULES) {
    const report = rule.classify(s);
    if (report) return report;
  }
  return makeReport(index, s.c, 'OK', `${s.consumers.length} pod(s) across ${distinctNodes(s.consumers)} node(s)`);
}

/** What the claim rules read: the claim, the pods that hold it, and its status, looked up once per claim. */
interface ClaimState {
  index: ClusterIndex;
  ctx: ClassifyContext;
  c: ClaimRef;
  /** The claim's phase; absent: Bound when a volume is named, else Pending. */
  status: string;
  /** The pods using the claim that hold their volumes. */
  consumers: Pod[];
  /** Every consumer Running and not deleting: no pod-level strand possible. */
  settled: boolean;
  /** The claim's own events (read only by the rules that report them). */
  claimEvents(): EventEvidence[];
}

/** One rule of classifyClaim: the report when the rule applies to the claim, else undefined. */
interface ClaimRule {
  name: string;
  classify(s: ClaimState): ClaimReport | undefined;
}

function claimState(index: ClusterIndex, pvc: PersistentVolumeClaim, ctx: ClassifyContext): ClaimState {
  const volume = pvc.spec?.volumeName || null;
  const c: ClaimRef = {
    namespace: pvc.metadata?.namespace ?? '',
    name: pvc.metadata?.name ?? '',
    volume,
    scName: pvc.spec?.storageClassName ?? null,
    driver: claimDriver(index, pvc) ?? null,
    storage: claimStorageKind(index, pvc),
  };
  const all = index.podsUsingClaim(c.namespace, c.name);
  let consumers = all;
  let settled = true;
  for (const p of all) {
    // A finished pod holds no volume, unless it is being deleted (holdsVolumes: the 1.27+ kubelet sets the phase
    // before the teardown): then it is a consumer, and UNPUBLISH_STUCK rather than a stale attachment.
    if (!holdsVolumes(p)) consumers = all.filter(holdsVolumes);
    if (p.metadata?.deletionTimestamp || p.status?.phase !== 'Running') settled = false;
  }
  return {
    index,
    ctx,
    c,
    status: pvc.status?.phase ?? (volume ? 'Bound' : 'Pending'),
    consumers,
    settled,
    claimEvents: () => eventEvidence(index, 'PersistentVolumeClaim', c.namespace, c.name, CLAIM_REASONS, ctx.now),
  };
}

/** LOST: the claim's volume is gone; its pods still reference it. */
const lost: ClaimRule = {
  name: 'claim lost',
  classify: ({ index, c, status, consumers, claimEvents }) =>
    status !== 'Lost'
      ? undefined
      : makeReport(
          index,
          c,
          'LOST',
          `claim lost its volume ${c.volume ?? '(none named)'}; ${consumers.length} pod(s) still reference it`,
          { events: claimEvents(), pods: consumers.map(podEvidence) },
        ),
};

/** Not bound yet: provisioning, scheduling or a class that waits (classifyUnbound). */
const unbound: ClaimRule = {
  name: 'unbound',
  classify: ({ index, c, ctx, status, consumers, claimEvents }) =>
    status === 'Bound' ? undefined : classifyUnbound(index, c, ctx, consumers, claimEvents()),
};

/** BOUND_NO_PV: bound to a volume the cluster does not have (only said when volumes are readable). */
const boundNoPv: ClaimRule = {
  name: 'bound to a missing volume',
  classify: ({ index, c, ctx, consumers, claimEvents }) =>
    !c.volume || !ctx.readable.pvs || index.get('pvs', c.volume)
      ? undefined
      : makeReport(index, c, 'BOUND_NO_PV', `claim is Bound but PV ${c.volume} is missing`, {
          events: claimEvents(),
          pods: consumers.map(podEvidence),
        }),
};

/** The strands of a bound claim, in the order they are reported: the first found is the phase, the rest also. */
const STRANDS: readonly ((s: ClaimState) => Found | undefined)[] = [
  ({ index, ctx, consumers, c, settled }) => (settled ? undefined : mountFailed(index, ctx, consumers, c)),
  ({ index, ctx, consumers, settled }) => (settled ? undefined : unpublishStuck(index, ctx, consumers)),
  ({ index, ctx, consumers, c }) => (c.volume ? staleAttachments(index, ctx, consumers, c.volume) : undefined),
];

/** A bound claim's pods or attachments are stuck: every strand found, the first one as the phase. */
const strands: ClaimRule = {
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

/** The rules of classifyClaim, first match wins. */
const CLAIM_RULES: readonly ClaimRule[] = [lost, unbound, boundNoPv, strands];

/** Number of distinct nodes the pods run on (claims have few pods: a linear scan beats a Set). */
function distinctNodes(pods: Pod[]): number {
  const seen: string[] = [];
  for (const p of pods) {
    const n = p.spec?.nodeName;
    if (n && !seen.includes(n)) seen.push(n);
  }
  return seen.length;
}

/** Whether the claim's class is known to be WaitForFirstConsumer, so Pending without a pod is by design. */
function waitsByDesign(index: ClusterIndex, scName: string | null): boolean {
  return !!scName && index.get('storageClasses', scName)?.volumeBindingMode === 'WaitForFirstConsumer';
}

/** The annotation the scheduler sets on a WaitForFirstConsumer claim once it picked a node: provisioning asked. */
const SELECTED_NODE = 'volume.kubernetes.io/selected-node';

/**
 * A claim of a WaitForFirstConsumer class that no node was selected for, whose pods are all unscheduled: the
 * provisioner was never asked, the scheduling layer holds it. The detail names the scheduler's last word.
 */
function waitingToSchedule(
  index: ClusterIndex,
  c: ClaimRef,
  consumers: Pod[],
  now: number,
): { detail: string; events: EventEvidence[] } | undefined {
  if (consumers.length === 0 || !waitsByDesign(index, c.scName)) return undefined;
  const pvc = index.get('pvcs', nsKey(c.namespace, c.name));
  if (pvc?.metadata?.annotations?.[SELECTED_NODE] || consumers.some((p) => p.spec?.nodeName)) return undefined;
  const events = consumers.flatMap((p) =>
    eventEvidence(index, 'Pod', p.metadata?.namespace ?? '', p.metadata?.name ?? '', SCHEDULING, now),
  );
  const top = events[0];
  return {
    detail: `unbound by design: class ${c.scName} is WaitForFirstConsumer and ${consumers.length} pod(s) using it are not scheduled${top ? `: ${top.reason}: ${top.message}` : ''}; the provisioner has not been asked`,
    events,
  };
}

/** The scheduler's reason when it places a pod nowhere (pkg/scheduler/schedule_one.go). */
const SCHEDULING: ReadonlySet<string> = new Set(['FailedScheduling']);

function classifyUnbound(
  index: ClusterIndex,
  c: ClaimRef,
  ctx: ClassifyContext,
  consumers: Pod[],
  events: EventEvidence[],
): ClaimReport {
  const scName = c.scName;
  const report = (phase: Phase, detail: string, ev: Partial<ClaimReport['evidence']>): ClaimReport =>
    makeReport(index, c, phase, detail, ev);
  const pods = consumers.map(podEvidence);
  // The newest Warning says why (ProvisioningFailed); Normal ones (ExternalProvisioning) only say it is waiting.
  const top = events.find((e) => e.type === 'Warning') ?? events[0];
  const why = top ? `: ${top.reason}: ${top.message}` : '';
  const unscheduled = waitingToSchedule(index, c, consumers, ctx.now);
  if (unscheduled) return report('UNSCHEDULABLE', unscheduled.detail, { events: unscheduled.events, pods });
  if (consumers.length > 0)
    return report('PROVISION_FAILED', `unbound but ${consumers.length} pod(s) waiting${why}`, { events, pods });
  if (scName === '')
    return report('PROVISION_FAILED', 'unbound, no StorageClass (static binding only) and no matching PV', { events });
  if (scName === null)
    return report('PROVISION_FAILED', 'unbound, no StorageClass named and no default class assigned', { events });
  const podsNote = ctx.readable.pods ? '' : ' (pods not readable: consumers unknown)';
  if (!ctx.readable.storageClasses) {
    return report(
      'PENDING_NO_CONSUMER',
      `unbound with no pod; correct only if class ${scName} is WaitForFirstConsumer (storageclasses not readable)${podsNote}`,
      { events },
    );
  }
  const sc = index.get('storageClasses', scName);
  if (!sc) return report('PROVISION_FAILED', `unbound: StorageClass ${scName} does not exist`, { events });
  if (sc.volumeBindingMode === 'WaitForFirstConsumer') {
    return report(
      'PENDING_NO_CONSUMER',
      `unbound with no pod: correct behaviour, class ${scName} is WaitForFirstConsumer${podsNote}`,
      { events },
    );
  }
  return report(
    'PROVISION_FAILED',
    `unbound with no pod on Immediate-binding class ${scName}: provisioner ${sc.provisioner ?? '?'} has not created a volume${why}`,
    { events },
  );
}

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
  return {
    phase: 'UNPUBLISH_STUCK' as const,
    detail: `terminating: ${parts.join('; ')}`,
    ev: { pods, events, nodes: nodes.map((n) => ({ name: n, driverRegistered: null })) },
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

function nodeEvidence(index: ClusterIndex, ctx: ClassifyContext, node: string, driver: string | null): NodeEvidence {
  let driverRegistered: boolean | null = null;
  if (driver && ctx.readable.csiNodes) driverRegistered = index.driversOnNode(node)?.has(driver) ?? false;
  const ev: NodeEvidence = { name: node, driverRegistered };
  if (ctx.readable.nodes) ev.exists = index.get('nodes', node) !== undefined;
  return ev;
}

function podEvidence(p: Pod): PodEvidence {
  const ev: PodEvidence = { namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' };
  if (p.spec?.nodeName) ev.node = p.spec.nodeName;
  if (p.status?.phase) ev.phase = p.status.phase;
  if (p.metadata?.deletionTimestamp) ev.deletionTimestamp = p.metadata.deletionTimestamp;
  if (typeof p.metadata?.deletionGracePeriodSeconds === 'number')
    ev.gracePeriodSeconds = p.metadata.deletionGracePeriodSeconds;
  if (p.metadata?.deletionTimestamp) ev.finalizers = [...(p.metadata.finalizers ?? [])];
  return ev;
}
