// Incidents: what the correlator makes of findings, and what every renderer (terminal, Slack) and the drain
// advice read. An incident is one correlated group: one (node plugin DaemonSet, revision), or one node.
import type { CronJobFinding, NsName, StuckPodFinding, WorkloadRef } from './findings.js';
import type { IncidentProof } from './proof.js';
import type { KindKey } from './kinds.js';
import type { Location } from './location.js';

/** Where the fault lies. NOT_STORAGE groups pods stuck for a non-storage cause (sandbox/CNI). */
export type Verdict = 'FOLLOWS_ROLLOUT' | 'FOLLOWS_NODE' | 'UNEXPLAINED' | 'NOT_STORAGE';

/** The CSI node plugin pod serving a node. */
export interface PluginOnNode {
  node: string;
  daemonSet?: NsName;
  pod?: string;
  /** ControllerRevision number the plugin pod runs (from its controller-revision-hash label). */
  revision?: number;
  createdAt?: string;
  ageSeconds?: number;
}

/** One changed field between two pod templates, e.g. `kubelet-dir: mountPropagation Bidirectional -> none`. */
export interface TemplateChange {
  /** storage (volumeMounts, hostPath volumes), security (privileged, capabilities), image, other. */
  category: 'storage' | 'security' | 'image' | 'other';
  container?: string;
  /** What changed, e.g. "volumeMount kubelet-dir mountPropagation". */
  field: string;
  from: string;
  to: string;
  /** The one-line human form. */
  text: string;
}

/** Nodes counted by (plugin revision new/previous) x (has stuck mounts / mounts fine). */
export interface RolloutCounts {
  newStuck: number;
  newFine: number;
  oldStuck: number;
  oldFine: number;
  /** Of the newFine nodes, those where a pod mounted this driver's volume after the node's plugin pod started. */
  newProven?: number;
  /** Of the oldFine nodes, those where a pod mounted this driver's volume after the node's plugin pod started. */
  oldProven?: number;
}

/** Evidence that the fault follows a DaemonSet rollout. */
export interface RolloutEvidence {
  daemonSet: NsName;
  driver?: string;
  newRevision: number;
  previousRevision?: number;
  /** Creation time of the new ControllerRevision (RFC 3339). */
  rolloutStart?: string;
  updatedNodes: number;
  desiredNodes: number;
  counts: RolloutCounts;
  /** Nodes already on the new revision: cordon these while rolling back. */
  nodesOnNewRevision: string[];
  /** Nodes whose plugin pod is being deleted with no replacement yet: the rollout reaches them next. */
  nodesReplacing?: string[];
  diff: TemplateChange[];
  /** The DaemonSet was rolled back off the new revision (`rollout undo` renumbered an older one): do not undo again. */
  rolledBack?: boolean;
  /** Member pods ("namespace/name") stuck since before their node's current plugin pod started, or on a node whose
   *  plugin pod is being replaced: recovering after the plugin was replaced, not counted in the 2x2. */
  recoveringPods?: string[];
}

/**
 * How to get a node plugin off its bad revision. `undo`: the DaemonSet still targets the bad pod template, undo to
 * the newest revision with another template. `under-way`: it already targets another template (a rollback is
 * rolling out): watch it, never undo (an undo would go back to the bad one). `none`: no kept revision has another
 * template, so there is nothing to undo to.
 */
export interface RollbackAdvice {
  state: 'undo' | 'under-way' | 'none';
  /** The revision that restores a template the stuck nodes did not run: the undo's target, or the rollback's. */
  toRevision?: number;
  /** What that revision restores, e.g. "volumeMount kubelet-dir mountPropagation Bidirectional (container ebs-plugin)". */
  restores: string[];
  /** The step in words, without the command. */
  text: string;
  /** The one command to run: `kubectl rollout undo ... --to-revision=N` or `kubectl rollout status ...`. */
  command?: string;
}

/**
 * A kind an answer depends on that could not be read, and what that leaves undecided. 'open incidents': the bot's
 * incident records (drain advice keeps a partly recovered rollout incident open only when it knows it is open).
 */
export interface BlindSpot {
  kind: KindKey | 'open incidents';
  /** Why: "forbidden: ...", "not in snapshot", "API server unreachable", "watch not synced yet"... */
  reason: string;
  /** What the answer cannot decide without it. */
  undecided: string;
}

/** Drain advice for one node. UNKNOWN: an input could not be read, so nothing says the drain is safe. */
export interface DrainAdvice {
  node: string;
  decision: 'OK' | 'CAUTION' | 'BLOCK' | 'UNKNOWN';
  reason: string;
  /** What to do instead (BLOCK) or what to watch for (CAUTION), or what to fix to get an answer (UNKNOWN). */
  steps: string[];
  /** The inputs that could not be read (UNKNOWN always has some; a BLOCK may too: it holds regardless). */
  blind?: BlindSpot[];
  /** Set when the bot's open incidents were not asked for (DrainOptions.incidents): the reason says so. */
  openIncidents?: 'not consulted';
  /** What the node's agent said of its staged volumes (advise/stale-stage.ts); absent when no caller asked. */
  stages?: StageCheck;
}

/**
 * A volume a node agent found still staged (its globalmount mounted) with no pod bind mount, on a node where no pod
 * of its claim runs: a drain evicts pods, so it does not unstage it. `holds` says what that does to the volume
 * elsewhere: attached (a single-node volume attached to this node: the claim's pods on other nodes cannot attach
 * it), leak (it stops no other node, but stays mounted here), unknown (no PV of that name is known).
 */
export interface StaleStage {
  node: string;
  /** The PV name when the agent knows it, else the staging directory's name or path. */
  volume: string;
  /** The globalmount path on the node. */
  path: string;
  driver?: string;
  /** The claim bound to the volume ("namespace/name"), from the PV's claimRef. */
  claim?: string;
  /** The PV's access modes, e.g. "ReadWriteOnce". */
  access?: string;
  holds: 'attached' | 'leak' | 'unknown';
  /** The VolumeAttachment seen attached to this node; absent with `attached` when attachments could not be read. */
  attachment?: string;
  /** Found by the demo's simulated agent: never evidence about a real node. */
  simulated?: true;
}

/** Whether the node's agent checked its staged volumes for drain advice: what it found, or why it could not. */
export type StageCheck = { checked: true; stale: StaleStage[] } | { checked: false; reason: string };

/** One row of the node table: node | plugin revision | plugin pod age | stuck pods. */
export interface IncidentNode {
  node: string;
  plugin?: PluginOnNode;
  stuckPods: string[];
  /** Pods of the affected workloads running on this node ("namespace/name"), e.g. the search pods that started. */
  runningPods?: string[];
}

/**
 * How many of a workload's pods are Ready. `of` is the DaemonSet's desiredNumberScheduled (`counted: 'desired'`), or,
 * for kinds whose object the bot does not read (Deployment, StatefulSet, ReplicaSet), the pods that exist in the
 * cache (`counted: 'existing'`): the desired replica count is unknown there.
 */
export interface WorkloadReadiness {
  ready: number;
  of: number;
  counted: 'desired' | 'existing';
}

/** Affected workload with its stuck pods ("namespace/name"). */
export interface AffectedWorkload extends WorkloadRef {
  pods: string[];
  /** Ready pods of the workload when the evaluation could count them (src/correlate/readiness.ts). */
  readiness?: WorkloadReadiness;
  /** Stuck pods of this workload a record left out (domain/kept.ts keptPods): counted, not listed. */
  podsNotKept?: number;
}

/** A correlated group of findings. `key` is stable: the incident store and Slack thread hang off it. */
export interface Incident {
  /** e.g. "rollout/kube-system/ebs-csi-node@2", "node/node-19", "unexplained/ebs.csi.aws.com", "not-storage". */
  key: string;
  verdict: Verdict;
  /** Names the driver and revision, or the node. */
  title: string;
  /** One line: the verdict with its counts. */
  summary: string;
  driver?: string;
  daemonSet?: NsName;
  revision?: number;
  node?: string;
  /** Where the incident's pods are stuck: the layer, its actor and the node holding the fault (correlate/locate.ts). */
  location?: Location;
  pods: StuckPodFinding[];
  cronJobs: CronJobFinding[];
  nodes: IncidentNode[];
  /** Node rows a record left out (domain/node-rows.ts keptNodeRows): counted, not listed. */
  nodesNotKept?: { nodes: number; withStuckPods: number };
  /** Stuck pods a record left out (domain/kept.ts keptPods): counted, not listed. */
  podsNotKept?: number;
  workloads: AffectedWorkload[];
  rollout?: RolloutEvidence;
  /** For FOLLOWS_ROLLOUT: the rollback step every output gives (src/advise/rollback.ts). */
  rollback?: RollbackAdvice;
  drain: DrainAdvice[];
  /** Ordered next steps (rollback command, cordon list, "leave stuck pods alone"...). */
  nextSteps: string[];
  /** Inputs of this evaluation that could not be read: its advice is incomplete (drain advice UNKNOWN). */
  blind?: BlindSpot[];
  /** One line per confusing observation and what explains it (attached volumes, "deleting helps half the time"...). */
  explanations?: string[];
  /** What the node agents say about the incident's nodes (set by the evaluation when it was given their answers). */
  proof?: IncidentProof;
  /** The cluster's name (RWX_CLUSTER_NAME) when the evaluation was given one: the renderers put it before the title. */
  cluster?: string;
}

/**
 * What recording an evaluation answers (the notifier's submit): the open incidents the evaluation did not report
 * that stay open for now, as last recorded, kept through the keep-firing window (src/notify/record.ts keptFiring).
 */
export interface Submitted {
  kept: readonly Incident[];
}
