// The triage report: what `rwx triage` prints, and the stable `-o json` schema (docs/triage-json.md).
// Adding fields is compatible; renaming or removing one bumps TRIAGE_SCHEMA_VERSION.
import type { EventEvidence } from '../domain/findings.js';
import type { UnmountHold } from '../domain/location.js';
import type { NodeReports } from '../domain/proof.js';

/** Version of the JSON schema in docs/triage-json.md. */
export const TRIAGE_SCHEMA_VERSION = 1;

/** The strand a claim is in (the phases of docs/failure-modes.md). */
export type Phase =
  | 'PENDING_NO_CONSUMER'
  | 'PROVISION_FAILED'
  | 'BOUND_NO_PV'
  | 'LOST'
  | 'MOUNT_FAILED'
  | 'UNPUBLISH_STUCK'
  | 'STALE_ATTACHMENT'
  | 'UNSCHEDULABLE'
  | 'OK';

/** Every phase, in the order the table prints them (OK last). */
export const PHASES: readonly Phase[] = [
  'BOUND_NO_PV',
  'LOST',
  'MOUNT_FAILED',
  'PENDING_NO_CONSUMER',
  'PROVISION_FAILED',
  'STALE_ATTACHMENT',
  'UNPUBLISH_STUCK',
  'UNSCHEDULABLE',
  'OK',
];

/** A pod involved in a claim's problem. */
export interface PodEvidence {
  namespace: string;
  name: string;
  node?: string;
  phase?: string;
  /** UNPUBLISH_STUCK: RFC 3339 deletionTimestamp (the moment the grace period ran out). */
  deletionTimestamp?: string;
  /** UNPUBLISH_STUCK: seconds past deletionTimestamp at evaluation time. */
  overdueSeconds?: number;
  gracePeriodSeconds?: number;
  finalizers?: string[];
}

/** A node involved in a claim's problem; `driverRegistered` from its CSINode (null: unknown). */
export interface NodeEvidence {
  name: string;
  driverRegistered: boolean | null;
  /** False when the Node object does not exist (only said when nodes were readable). */
  exists?: boolean;
}

/** A VolumeAttachment on a node with no consumer pod. */
export interface AttachmentEvidence {
  name: string;
  node: string;
  attached: boolean;
  deleting: boolean;
  detachError?: string;
}

/**
 * A staged volume of the claim that a node agent found mounted with no pod bind mount, on a node where no consumer
 * pod of the claim runs: an orphaned stage reference (docs/agent.md), STALE_ATTACHMENT evidence from the node.
 */
export interface StageEvidence {
  node: string;
  /** The globalmount path on the node. */
  path: string;
  driver?: string;
  /** Pods whose volume directories on the node still name the volume (empty: no pod references it). */
  podUids: string[];
  /** What the bot states for it: the one wording of the finding (findingText). */
  text: string;
}

/**
 * UNPUBLISH_STUCK evidence: one line about what holds a stuck pod's volume mount on its node (a process, a mount
 * namespace with a copy), or why that is not known (no agent: not visible from the API, with what to run on the
 * node). The thread's lines for the same pod, word for word (correlate/unmount-holds.ts). `held`: it names a holder.
 */
export type HoldEvidence = UnmountHold;

/** Why a claim is in its phase. Lists are empty (never absent) when there is nothing to show. */
export interface Evidence {
  events: EventEvidence[];
  pods: PodEvidence[];
  nodes: NodeEvidence[];
  attachments: AttachmentEvidence[];
  /** Orphaned staged volumes the node agents found (empty without agents). */
  stages: StageEvidence[];
  /** What holds the mounts of the UNPUBLISH_STUCK pods stuck at unpublish, or why it is not known (HoldEvidence). */
  holds: HoldEvidence[];
}

/** A finding of the node agents not tied to one claim's phase. */
export interface NodeProofFinding {
  /** MOUNT_OPTIONS_DIFFER: nodes mount one volume differently; ORPHANED_STAGE: of a volume no triaged claim names. */
  kind: 'MOUNT_OPTIONS_DIFFER' | 'ORPHANED_STAGE';
  /** The PV name when the agent knows it, else DRIVER/SHA or the path. */
  volume: string;
  /** NAMESPACE/NAME of the claim bound to the volume, when known. */
  claim: string | null;
  /** The nodes it is about (for MOUNT_OPTIONS_DIFFER the minority). */
  nodes: string[];
  /** What the bot states for it (findingText). */
  text: string;
}

/** What the node agents said over the whole triage (docs/agent.md). */
export interface NodeProofSection {
  /** available: at least one agent answered; unavailable: none was asked or none answered. */
  status: 'available' | 'unavailable';
  /** Nodes whose agents were asked, and how many answered with a report. */
  nodesAsked: number;
  reports: number;
  findings: NodeProofFinding[];
  /** Where the proof is unavailable and why (no agent, an agent not answering, not asked), one sentence each. */
  unavailable: string[];
}

/** One ReadWriteMany claim's classification. */
export interface ClaimReport {
  namespace: string;
  name: string;
  phase: Phase;
  /** False for OK, and for PENDING_NO_CONSUMER on a class known to be WaitForFirstConsumer (correct behaviour). */
  needsAttention: boolean;
  /** One line, for the table. */
  detail: string;
  /** Other phases that also apply, in precedence order (e.g. MOUNT_FAILED on one node and STALE_ATTACHMENT). */
  alsoPhases: Phase[];
  storageClass: string | null;
  volume: string | null;
  driver: string | null;
  evidence: Evidence;
  /** The next steps for this phase, in order. Empty for OK. */
  advice: string[];
}

/** Outcome of one preflight check: 'problem' needs attention, 'unknown' could not be decided. */
export type CheckStatus = 'ok' | 'problem' | 'unknown';

/** One preflight finding. */
export interface PreflightCheck {
  check: 'access' | 'csidriver' | 'csinode' | 'leader';
  /** The resource (access) or the driver name. */
  subject: string;
  status: CheckStatus;
  detail: string;
  /** csinode: nodes where the driver is not registered. */
  nodes?: string[];
}

/** The whole report. */
export interface TriageReport {
  schemaVersion: number;
  /** Evaluation time, RFC 3339. */
  generatedAt: string;
  /** What generatedAt is, so ages can be read right: the clock, a time given with --now, or a snapshot's newest time. */
  timeBasis: 'clock' | 'given' | 'snapshot';
  filters: { namespace: string | null; driver: string | null };
  preflight: PreflightCheck[];
  /** What could not be decided because a resource was unreadable, one sentence each. */
  undecided: string[];
  claims: ClaimReport[];
  /** What the node agents proved beyond the claims' phases, and where they could not be asked. */
  nodeProof: NodeProofSection;
  summary: {
    claimsExamined: number;
    claimsNeedingAttention: number;
    preflightProblems: number;
    /** nodeProof.findings.length: each needs attention. */
    nodeProofFindings: number;
    byPhase: Record<Phase, number>;
  };
}

/** Inputs besides the index. `access`: SelfSubjectAccessReview answers in live mode (else derived from `unreadable`). */
export interface TriageOptions {
  now: number;
  /** What `now` is: the clock (default), a time the user gave, or the newest time recorded in a snapshot. */
  timeBasis?: 'clock' | 'given' | 'snapshot';
  namespace?: string | undefined;
  driver?: string | undefined;
  access?: { kind: string; allowed: boolean | null; reason?: string }[];
  /** What the node agents answered (docs/agent.md); absent: none was asked. */
  nodeReports?: NodeReports;
}
