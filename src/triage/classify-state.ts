// The claim state the classification rules read, and what they build from it: the claim's fields (ClaimRef), its
// consumer pods and status looked up once per claim (claimState), the report of one claim with its advice
// (makeReport), and the pod and node evidence a report carries. classify.ts runs the rules; classify-binding.ts and
// classify-strands.ts are the rules.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { EventEvidence } from '../domain/findings.js';
import type { PersistentVolumeClaim, Pod } from '../domain/objects.js';
import type { NodeReports } from '../domain/proof.js';
import { claimDriver, claimStorageKind, holdsVolumes, type StorageKind } from '../detect/storage-path.js';
import { adviceFor } from './advice.js';
import { CLAIM_REASONS, eventEvidence } from './events.js';
import type { ClaimReport, NodeEvidence, Phase, PodEvidence, StageEvidence } from './types.js';

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
  /** What the node agents answered: what holds the mounts of pods stuck at unpublish; absent: none was asked. */
  nodeReports?: NodeReports;
}

// Shared empty list for the evidence of the (many) OK claims: reports are read-only, so one frozen array will do.
const NONE: never[] = Object.freeze([]) as unknown as never[];
const NO_EVIDENCE: ClaimReport['evidence'] = Object.freeze({
  events: NONE,
  pods: NONE,
  nodes: NONE,
  attachments: NONE,
  stages: NONE,
  holds: NONE,
});

/** The claim fields every report repeats. */
export interface ClaimRef {
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
export type Found = { phase: Phase; detail: string; ev: Partial<ClaimReport['evidence']> } & Fill;

/** One claim's report: the phase, the detail, its evidence (none when OK) and the next steps for the phase. */
export function makeReport(
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
            holds: ev.holds ?? NONE,
          },
    advice:
      phase === 'OK'
        ? NONE
        : adviceFor(phase, {
            ...fill,
            volume: c.volume,
            storage: c.storage,
            held: (ev.holds ?? NONE).filter((h) => h.held),
          }),
  };
}

/** What the claim rules read: the claim, the pods that hold it, and its status, looked up once per claim. */
export interface ClaimState {
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
export interface ClaimRule {
  name: string;
  classify(s: ClaimState): ClaimReport | undefined;
}

/** The state of one claim: its fields, the pods that hold it, and its status. O(pods using the claim). */
export function claimState(index: ClusterIndex, pvc: PersistentVolumeClaim, ctx: ClassifyContext): ClaimState {
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

/** Whether the claim's class is known to be WaitForFirstConsumer, so Pending without a pod is by design. */
export function waitsByDesign(index: ClusterIndex, scName: string | null): boolean {
  return !!scName && index.get('storageClasses', scName)?.volumeBindingMode === 'WaitForFirstConsumer';
}

/** A node as evidence: whether the driver is registered there (CSINode) and whether the node exists, when readable. */
export function nodeEvidence(
  index: ClusterIndex,
  ctx: ClassifyContext,
  node: string,
  driver: string | null,
): NodeEvidence {
  let driverRegistered: boolean | null = null;
  if (driver && ctx.readable.csiNodes) driverRegistered = index.driversOnNode(node)?.has(driver) ?? false;
  const ev: NodeEvidence = { name: node, driverRegistered };
  if (ctx.readable.nodes) ev.exists = index.get('nodes', node) !== undefined;
  return ev;
}

/** A pod as evidence: where it runs, its phase, and its deletion and finalizers when it is being deleted. */
export function podEvidence(p: Pod): PodEvidence {
  const ev: PodEvidence = { namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' };
  if (p.spec?.nodeName) ev.node = p.spec.nodeName;
  if (p.status?.phase) ev.phase = p.status.phase;
  if (p.metadata?.deletionTimestamp) ev.deletionTimestamp = p.metadata.deletionTimestamp;
  if (typeof p.metadata?.deletionGracePeriodSeconds === 'number')
    ev.gracePeriodSeconds = p.metadata.deletionGracePeriodSeconds;
  if (p.metadata?.deletionTimestamp) ev.finalizers = [...(p.metadata.finalizers ?? [])];
  return ev;
}
