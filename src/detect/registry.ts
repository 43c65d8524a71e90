// The detector registry: every check in one list. Adding a check = one file + one line here + its table test.
// Cluster-wide detectors are linear in the objects they read; per-pod checks let the watch path re-evaluate only
// the pods that changed.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { CronJobFinding, Finding, StuckPodFinding } from '../domain/findings.js';
import type { CronJob, Pod } from '../domain/objects.js';
import { collect } from './collect.js';
import type { DetectContext } from './config.js';
import { cronJobMissedFinding, detectCronJobsMissed } from './cronjob-missed.js';
import { detectStuckCreating, stuckCreatingFinding } from './stuck-creating.js';
import { detectStuckTerminating, stuckTerminatingFinding } from './stuck-terminating.js';

/** A pure detector over the whole cluster cache. */
export type Detector = (index: ClusterIndex, ctx: DetectContext) => Finding[];

/** A pure check of one pod. */
export type PodCheck = (index: ClusterIndex, pod: Pod, ctx: DetectContext) => StuckPodFinding | undefined;

/** Every cluster-wide detector, by name. */
export const DETECTORS: Readonly<Record<string, Detector>> = Object.freeze({
  'stuck-creating': detectStuckCreating,
  'stuck-terminating': detectStuckTerminating,
  'cronjob-missed': detectCronJobsMissed,
});

/** The per-pod checks behind the pod detectors above (same logic, one pod). */
export const POD_CHECKS: readonly PodCheck[] = [stuckCreatingFinding, stuckTerminatingFinding];

/** Runs every detector; findings in registry order. */
export function detectAll(index: ClusterIndex, ctx: DetectContext): Finding[] {
  return Object.values(DETECTORS).flatMap((d) => d(index, ctx));
}

/** Re-evaluates one pod (the watch path): its stuck findings, at most one per kind. */
export function detectPod(index: ClusterIndex, pod: Pod, ctx: DetectContext): StuckPodFinding[] {
  return collect(POD_CHECKS, (check) => check(index, pod, ctx));
}

/** Re-evaluates one CronJob (the watch path, on CronJob, Job or Job-pod changes). */
export function detectCronJob(index: ClusterIndex, cj: CronJob, ctx: DetectContext): CronJobFinding | undefined {
  return cronJobMissedFinding(index, cj, ctx);
}
