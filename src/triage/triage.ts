// triage(): every ReadWriteMany claim classified into its strand, with preflight first. Pure: the index and
// `now` in, a report out. Linear: one pass over claims, each using index lookups only.
import type { ClusterIndex } from '../domain/cluster-index.js';
import { claimDriver } from '../detect/storage-path.js';
import { classifyClaim, isRwx, type ClassifyContext } from './classify.js';
import { proofSection, readProof } from './node-proof.js';
import { accessChecks, driverChecks } from './preflight.js';
import { leaderlessAdvice } from './advice.js';
import {
  PHASES,
  TRIAGE_SCHEMA_VERSION,
  type ClaimReport,
  type Phase,
  type PreflightCheck,
  type TriageOptions,
  type TriageReport,
} from './types.js';

/**
 * Classifies every RWX claim (filtered by namespace and driver) and runs preflight for the drivers in use; with
 * the node agents' answers, their proof joins the claims' evidence and the report (node-proof.ts).
 */
export function triage(index: ClusterIndex, opts: TriageOptions): TriageReport {
  const proof = readProof(opts.nodeReports);
  const { buckets, drivers } = classifyAll(index, opts, classifyContext(index, opts, proof.orphansByPv));
  const claims = [...buckets.values()].flat();
  const access = accessChecks(index, opts.access);
  const preflight = [...access.checks, ...driverChecks(index, [...drivers].sort(), opts.now)];
  blameMissingLeader(buckets.get('PROVISION_FAILED') ?? [], preflight);
  const byPhase = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  for (const c of claims) byPhase[c.phase]++;
  const nodeProof = proofSection(index, proof, claims, opts);
  return {
    schemaVersion: TRIAGE_SCHEMA_VERSION,
    generatedAt: new Date(opts.now).toISOString().replace('.000Z', 'Z'),
    timeBasis: opts.timeBasis ?? 'clock',
    filters: { namespace: opts.namespace ?? null, driver: opts.driver ?? null },
    preflight,
    undecided: access.undecided,
    claims,
    nodeProof,
    summary: {
      claimsExamined: claims.length,
      claimsNeedingAttention: claims.filter((c) => c.needsAttention).length,
      preflightProblems: preflight.filter((p) => p.status === 'problem').length,
      nodeProofFindings: nodeProof.findings.length,
      byPhase,
    },
  };
}

/** What classifyClaim is given: the time, which kinds could be read, and what the node agents found. */
function classifyContext(
  index: ClusterIndex,
  opts: TriageOptions,
  orphansByPv: ClassifyContext['orphansByPv'],
): ClassifyContext {
  return {
    orphansByPv,
    ...(opts.nodeReports ? { nodeReports: opts.nodeReports } : {}),
    now: opts.now,
    readable: {
      pods: index.readable('pods'),
      pvs: index.readable('pvs'),
      storageClasses: index.readable('storageClasses'),
      volumeAttachments: index.readable('volumeAttachments'),
      csiNodes: index.readable('csiNodes'),
      nodes: index.readable('nodes'),
    },
  };
}

/**
 * The claims the filters select, classified and bucketed by phase (in PHASES order, each bucket sorted by
 * namespace/name), and the drivers they use (with the driver filtered on, even without claims).
 */
function classifyAll(
  index: ClusterIndex,
  opts: TriageOptions,
  ctx: ClassifyContext,
): { buckets: Map<Phase, ClaimReport[]>; drivers: Set<string> } {
  // Bucketed by phase in index order (the API lists by namespace/name), then each bucket sorted: TimSort is
  // linear on input that is already in order, so no O(n log n) comparator storm on 30k claims.
  const buckets = new Map<Phase, ClaimReport[]>(PHASES.map((p) => [p, []]));
  const drivers = new Set<string>();
  if (opts.driver) drivers.add(opts.driver);
  for (const pvc of index.all('pvcs')) {
    if (opts.namespace && pvc.metadata?.namespace !== opts.namespace) continue;
    if (!isRwx(pvc)) continue;
    if (opts.driver && claimDriver(index, pvc) !== opts.driver) continue;
    const r = classifyClaim(index, pvc, ctx);
    if (r.driver) drivers.add(r.driver);
    buckets.get(r.phase)!.push(r);
  }
  for (const b of buckets.values()) b.sort((x, y) => cmp(x.namespace, y.namespace) || cmp(x.name, y.name));
  return { buckets, drivers };
}

/**
 * A claim that does not provision while its driver has no leader: say so where the reader looks first. Every claim
 * waiting on that provisioner, not the first: the missing leader explains them all, before any StorageClass
 * parameter does. Amends the claims in place (they are this report's own).
 */
function blameMissingLeader(provisionFailed: readonly ClaimReport[], preflight: readonly PreflightCheck[]): void {
  const leaderless = new Set(
    preflight.filter((p) => p.check === 'leader' && p.status === 'problem').map((p) => p.subject),
  );
  for (const c of provisionFailed) {
    if (!c.driver || !leaderless.has(c.driver)) continue;
    c.detail += `; the ${c.driver} controller has no leader (see preflight)`;
    c.advice = leaderlessAdvice(c.driver, c.advice);
  }
}

/**
 * Whether the report needs attention (exit code 2): a claim that needs it, a preflight problem, a finding of the
 * node agents, or claims that could not be read at all (then "nothing needs attention" cannot be said).
 */
export function needsAttention(r: TriageReport): boolean {
  const claimsUnread = r.preflight.some(
    (p) => p.check === 'access' && p.subject === 'persistentvolumeclaims' && p.status !== 'ok',
  );
  const s = r.summary;
  return s.claimsNeedingAttention > 0 || s.preflightProblems > 0 || s.nodeProofFindings > 0 || claimsUnread;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
