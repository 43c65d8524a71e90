// Classification of one ReadWriteMany claim into its strand, from index lookups only (pods by claim,
// attachments by PV, events by object, CSINode by node): cost per claim is proportional to that claim's pods.
// This file runs the rules, first match wins: the claim's binding (classify-binding.ts), then the strands of a
// bound claim (classify-strands.ts), over the claim state read once (classify-state.ts).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { PersistentVolumeClaim, Pod } from '../domain/objects.js';
import { boundNoPv, lost, unbound } from './classify-binding.js';
import { claimState, makeReport, type ClaimRule, type ClassifyContext } from './classify-state.js';
import { strands } from './classify-strands.js';
import type { ClaimReport } from './types.js';

export type { ClassifyContext } from './classify-state.js';
export { MOUNT_GRACE_MS } from './classify-strands.js';

/** Whether a claim asks for ReadWriteMany (spec, or status once bound). */
export function isRwx(pvc: PersistentVolumeClaim): boolean {
  return (
    (pvc.spec?.accessModes ?? []).includes('ReadWriteMany') || (pvc.status?.accessModes ?? []).includes('ReadWriteMany')
  );
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
