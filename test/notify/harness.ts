// What the notify stage tests share: the seed incident's key, time units, and StageDeps on the in-memory fakes.
import type { Clock } from '../../src/domain/clock.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import type { StageDeps } from '../../src/notify/stages.js';
import type { IncidentStore } from '../../src/store/incident-store.js';
import { MemoryIncidentStore } from '../../src/store/memory-store.js';
import type { SlackApi } from '../../src/slack/api.js';

/** The key of rolloutIncident() (test/render/incident-fixtures.ts). */
export const KEY = 'rollout/kube-system/ebs-csi-node@2';
export const S = 1000;
export const M = 60 * S;
export const H = 60 * M;

/** Stage dependencies with Alertmanager's default timers, a 30 s lock and records kept a day once closed. */
export function stageDeps(
  clock: Clock,
  slack: SlackApi,
  store: IncidentStore = new MemoryIncidentStore(clock),
): StageDeps {
  return { store, slack, timers: DEFAULT_TIMERS, clock, lockTtlMs: 30 * S, closedTtlMs: 86_400_000 };
}
