// The detector registry: every check in one list. Adding a check = one file + one line here + its table test.
// Cluster-wide detectors are linear in the objects they read; per-pod checks let the watch path re-evaluate only
// the pods that changed.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { CronJobFinding, Finding, StuckPodFinding } from '../domain/findings.js';
import type { CronJob, Pod } from '../domain/objects.js';
import { finish, type Steps } from '../domain/steps.js';
import { collect } from './collect.js';
import type { DetectContext } from './config.js';
import { cronJobMissedFinding } from './cronjob-missed.js';
import { stuckCreatingFinding } from './stuck-creating.js';
import { stuckTerminatingFinding } from './stuck-terminating.js';

/**
 * A cluster-wide detector: a pure check applied to every object of one kind (`collect`'s loop), its findings kept.
 * Linear in the objects of that kind.
 */
export type Detector =
  | { over: 'pods'; check: (index: ClusterIndex, pod: Pod, ctx: DetectContext) => Finding | undefined }
  | { over: 'cronJobs'; check: (index: ClusterIndex, cj: CronJob, ctx: DetectContext) => Finding | undefined };

/** A pure check of one pod. */
export type PodCheck = (index: ClusterIndex, pod: Pod, ctx: DetectContext) => StuckPodFinding | undefined;

/** Every cluster-wide detector, by name (detectStuckCreating and the others run one of them alone). */
export const DETECTORS: Readonly<Record<string, Detector>> = Object.freeze({
  'stuck-creating': { over: 'pods', check: stuckCreatingFinding },
  'stuck-terminating': { over: 'pods', check: stuckTerminatingFinding },
  'cronjob-missed': { over: 'cronJobs', check: cronJobMissedFinding },
});

/** The per-pod checks behind the pod detectors above (same logic, one pod). */
export const POD_CHECKS: readonly PodCheck[] = [stuckCreatingFinding, stuckTerminatingFinding];

/** Objects checked between two steps of detectSteps. */
const PER_STEP = 1000;

/** Runs every detector; findings in registry order. */
export function detectAll(index: ClusterIndex, ctx: DetectContext): Finding[] {
  return finish(detectSteps(index, ctx));
}

/** detectAll() in steps (domain/steps.ts): one every PER_STEP objects checked. */
export function* detectSteps(index: ClusterIndex, ctx: DetectContext): Steps<Finding[]> {
  const out: Finding[] = [];
  let n = 0;
  for (const d of Object.values(DETECTORS)) {
    const objects: Iterable<Pod | CronJob> = index.all(d.over);
    for (const o of objects) {
      if (++n % PER_STEP === 0) yield;
      const f = d.over === 'pods' ? d.check(index, o as Pod, ctx) : d.check(index, o as CronJob, ctx);
      if (f) out.push(f);
    }
  }
  return out;
}

/** Re-evaluates one pod (the watch path): its stuck findings, at most one per kind. */
export function detectPod(index: ClusterIndex, pod: Pod, ctx: DetectContext): StuckPodFinding[] {
  return collect(POD_CHECKS, (check) => check(index, pod, ctx));
}

/** Re-evaluates one CronJob (the watch path, on CronJob, Job or Job-pod changes). */
export function detectCronJob(index: ClusterIndex, cj: CronJob, ctx: DetectContext): CronJobFinding | undefined {
  return cronJobMissedFinding(index, cj, ctx);
}
