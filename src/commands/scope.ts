// A triage scope applied to the triage engine: namespace and driver go to the engine as filters; a claim or a
// node narrows the engine's report afterwards (the engine has no such filter), with the summary recounted so the
// message never reports claims it does not show.
import type { ClaimReport, Phase, TriageReport } from '../triage/types.js';
import { PHASES } from '../triage/types.js';
import type { TriageScope } from './parse.js';

/** "the whole cluster", "namespace platform", "claim platform/data", "node node-19", "driver ebs.csi.aws.com". */
export function scopeLabel(scope: TriageScope): string {
  switch (scope.kind) {
    case 'all':
      return 'whole cluster';
    case 'namespace':
      return `namespace ${scope.namespace}`;
    case 'claim':
      return `claim ${scope.namespace}/${scope.claim}`;
    case 'node':
      return `node ${scope.node}`;
    case 'driver':
      return `driver ${scope.driver}`;
  }
}

/** The engine filters for a scope. */
export function engineFilters(scope: TriageScope): { namespace?: string; driver?: string } {
  if (scope.kind === 'namespace' || scope.kind === 'claim') return { namespace: scope.namespace };
  if (scope.kind === 'driver') return { driver: scope.driver };
  return {};
}

/** Whether a claim's problem involves a node: a pod, node or attachment in its evidence names it. */
function involvesNode(c: ClaimReport, node: string): boolean {
  const e = c.evidence;
  return (
    e.nodes.some((n) => n.name === node) ||
    e.pods.some((p) => p.node === node) ||
    e.attachments.some((a) => a.node === node)
  );
}

/** Narrows a report to the scope's claim or node and recounts the summary; other scopes pass through. */
export function narrowReport(report: TriageReport, scope: TriageScope): TriageReport {
  let keep: (c: ClaimReport) => boolean;
  if (scope.kind === 'claim') keep = (c) => c.namespace === scope.namespace && c.name === scope.claim;
  else if (scope.kind === 'node') keep = (c) => involvesNode(c, scope.node);
  else return report;
  const claims = report.claims.filter(keep);
  const byPhase = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  for (const c of claims) byPhase[c.phase] += 1;
  return {
    ...report,
    claims,
    summary: {
      ...report.summary,
      claimsExamined: claims.length,
      claimsNeedingAttention: claims.filter((c) => c.needsAttention).length,
      byPhase,
    },
  };
}
