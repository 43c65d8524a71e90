// One evaluation: detect -> correlate -> advise, over a cluster cache. Every caller that turns a cache into
// incidents and advice (the serve pipeline, `rwx scan`, `rwx drain-check`, `/rwx drain`, the demo) comes through
// here, so the thread, the slash command and the CLI give the same advice for the same cache.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Finding } from '../domain/findings.js';
import type { BlindSpot, DrainAdvice, Incident } from '../domain/incident.js';
import { reportStateOf, type NodeReports } from '../domain/proof.js';
import { qualifyKey } from '../domain/cluster.js';
import { DEFAULT_DETECT_CONFIG, type DetectConfig } from '../detect/config.js';
import { detectSteps } from '../detect/registry.js';
import { correlateSteps } from '../correlate/correlate.js';
import { finish, type Steps } from '../domain/steps.js';
import type { DriverDaemonSets } from '../correlate/plugin-finder.js';
import { blindSpots } from '../advise/blind.js';
import { type IncidentsInput, drainAdvisor } from '../advise/drain.js';
import { nextSteps } from '../advise/next-steps.js';
import { rollbackFor } from '../advise/rollback.js';
import { RwxError } from '../errors.js';
import { incidentProof } from '../correlate/proof.js';
import { addUnmountHolds } from '../correlate/unmount-holds.js';

/** Options of one evaluation. */
export interface EvaluateOptions {
  /** Evaluation time, epoch ms. */
  now: number;
  /** Detector thresholds over DEFAULT_DETECT_CONFIG; `stuckAfterMs` also bounds how long an attachment may look stale. */
  config?: Partial<DetectConfig>;
  /** Operator override: driver -> "namespace/name" of its node plugin DaemonSet. */
  driverDaemonSets?: DriverDaemonSets;
  /** The incidents already open (CorrelateOptions.openKeys): an open rollout incident is kept while it sustains. */
  openKeys?: ReadonlySet<string>;
  /** Whether `openKeys` are the bot's open incidents (drain advice, DrainOptions.incidents); default 'read'. */
  incidents?: IncidentsInput;
  /** The node agents' answers for drain advice's stale-stage check (DrainOptions.nodeReports); absent: not checked. */
  nodeReports?: NodeReports;
  /**
   * Whose incidents these are: `name` is stated on each (Incident.cluster, before the title when rendered); with
   * `qualifyKeys` (a fleet member, whose records share one Redis with other clusters') it is in each key too.
   */
  cluster?: ClusterIdentity;
}

/** The cluster an evaluation speaks for (EvaluateOptions.cluster). */
export interface ClusterIdentity {
  name: string;
  qualifyKeys: boolean;
}

/** What one evaluation found and advises. */
export interface Evaluation {
  findings: Finding[];
  /** Incidents with their next steps and drain advice for every node holding a stuck pod. */
  incidents: Incident[];
  /** Drain advice for any node, on these incidents; throws RwxError('NOT_FOUND') for a node the cache lacks. */
  drain(node: string): DrainAdvice;
  /**
   * Inputs of the list of incidents that could not be read: with any, "no incidents" means "cannot tell", and
   * drain advice is UNKNOWN unless it is BLOCK. Each incident carries them too, for the renderers.
   */
  blind: BlindSpot[];
}

/** Runs every detector over the cache, then correlates and advises; linear in the cache's size. */
export function evaluate(index: ClusterIndex, opts: EvaluateOptions): Evaluation {
  return finish(evaluateSteps(index, opts));
}

/** evaluate() in steps (domain/steps.ts): detection's, then evaluationSteps'. Hold the cache between them. */
export function* evaluateSteps(index: ClusterIndex, opts: EvaluateOptions): Steps<Evaluation> {
  const findings = yield* detectSteps(index, { now: opts.now, config: { ...DEFAULT_DETECT_CONFIG, ...opts.config } });
  return { findings, ...(yield* evaluationSteps(index, findings, opts)) };
}

/**
 * Correlates and advises over findings already detected (the serve pipeline detects per object as events arrive).
 * Fills each incident's next steps, and its drain advice for each node with stuck pods.
 */
export function evaluateFindings(
  index: ClusterIndex,
  findings: readonly Finding[],
  opts: EvaluateOptions,
): Omit<Evaluation, 'findings'> {
  return finish(evaluationSteps(index, findings, opts));
}

/**
 * evaluateFindings() in steps (domain/steps.ts): one per incident correlated, one per node advised. It reads the
 * cache from its first step to its last, so a caller that lets the event loop run between steps holds the cache.
 */
export function* evaluationSteps(
  index: ClusterIndex,
  findings: readonly Finding[],
  opts: EvaluateOptions,
): Steps<Omit<Evaluation, 'findings'>> {
  const incidents = yield* correlateSteps(index, findings, {
    now: opts.now,
    ...(opts.driverDaemonSets ? { driverDaemonSets: opts.driverDaemonSets } : {}),
    ...(opts.openKeys ? { openKeys: opts.openKeys } : {}),
  });
  // What holds the mounts of pods stuck at unpublish, before the drain advice that names it.
  addUnmountHolds(index, incidents, opts.nodeReports);
  const blind = blindSpots(index, incidents, true);
  for (const inc of incidents) {
    if (inc.verdict === 'FOLLOWS_ROLLOUT' && inc.rollout) inc.rollback = rollbackFor(index, inc.rollout);
    if (blind.length > 0) inc.blind = blind;
  }
  const drain = drainAdvisor(index, incidents, opts.now, {
    staleAfterMs: opts.config?.stuckAfterMs ?? DEFAULT_DETECT_CONFIG.stuckAfterMs,
    blind: blindSpots(index, incidents),
    ...(opts.incidents ? { incidents: opts.incidents } : {}),
    ...(opts.nodeReports ? { nodeReports: opts.nodeReports } : {}),
  });
  // Nodes holding a stuck pod of any incident: a test mount "on another node" must pick none of them.
  const busy = new Set(incidents.flatMap((i) => i.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node)));
  for (const inc of incidents) {
    inc.nextSteps = nextSteps(index, inc, busy);
    for (const n of inc.nodes) {
      if (n.stuckPods.length === 0 || n.node === '(unscheduled)') continue;
      yield;
      try {
        inc.drain.push(drain(n.node));
      } catch (e) {
        // A node the cache no longer knows gets no advice rather than failing the whole pass; anything else is a bug.
        if (!(e instanceof RwxError && e.code === 'NOT_FOUND')) throw e;
      }
    }
  }
  for (const inc of incidents) ownedAndProven(index, inc, opts);
  return { incidents, drain, blind };
}

/**
 * The last facts of an incident, after its drain advice: what the node agents' answers prove about its nodes (the
 * same answers the drain advice's stale-stage check read), and the cluster it belongs to.
 */
function ownedAndProven(index: ClusterIndex, inc: Incident, opts: EvaluateOptions): void {
  const reports = opts.nodeReports;
  if (reports?.kind === 'asked') {
    const proof = incidentProof(index, inc, (n) => reportStateOf(reports, n));
    if (proof) inc.proof = proof;
  }
  if (!opts.cluster) return;
  inc.cluster = opts.cluster.name;
  if (opts.cluster.qualifyKeys) inc.key = qualifyKey(opts.cluster.name, inc.key);
}
