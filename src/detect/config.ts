// Detector configuration and context. Defaults live in one constant so every caller (CLI, serve, tests) agrees.

/** Thresholds the detectors apply. */
export interface DetectConfig {
  /** A pod is stuck once it has waited this long (ContainerCreating since scheduling, Terminating past grace). */
  stuckAfterMs: number;
  /** Grace after a CronJob's scheduled time when the CronJob has no startingDeadlineSeconds. */
  cronJobGraceMs: number;
}

/** The documented defaults: 5m stuck, 10m CronJob grace. */
export const DEFAULT_DETECT_CONFIG: Readonly<DetectConfig> = Object.freeze({
  stuckAfterMs: 5 * 60_000,
  cronJobGraceMs: 10 * 60_000,
});

/** What every detector receives besides the index: the evaluation time (epoch ms) and the thresholds. */
export interface DetectContext {
  now: number;
  config: DetectConfig;
}

/** A context at `now` with the defaults overridden by `overrides`. */
export function detectContext(now: number, overrides: Partial<DetectConfig> = {}): DetectContext {
  return { now, config: { ...DEFAULT_DETECT_CONFIG, ...overrides } };
}
