// The submit stage: records what one evaluation saw, and says which incident keys need a job (and after how
// long). It writes only the evaluator's fields (incident, history, firing, cleared, resolution facts, CronJobs seen
// done after a resolution), never Slack's.
import type { Incident } from '../domain/incident.js';
import type { IncidentStore } from '../store/incident-store.js';
import { rootHash } from '../render/slack-incident.js';
import type { ObserveResolution, ResolutionFacts } from '../domain/resolution.js';
import { newlyDone } from './follow-up.js';
import { historyOrLast, mergeHistory } from '../domain/history.js';
import { historyOf } from './history.js';

/** A job to enqueue: run the stages for `key` after `delayMs`. */
export interface JobRequest {
  key: string;
  delayMs: number;
}

/** How recordEvaluation learns the context it needs. */
export interface RecordContext {
  store: IncidentStore;
  channel: string;
  groupWait: number;
  /** By incident key: what the caller observed when it cleared. Wins over `observe`. */
  resolutions?: ReadonlyMap<string, ResolutionFacts>;
  /** What the cluster says now about every member the incident ever had (its history). */
  observe?: ObserveResolution;
}

/**
 * Records one evaluation. New incident: a record, and a job after group_wait. Changed (by root hash) or firing
 * again: the new content, and a job now. Every reported incident's members are merged into its history (written
 * only when it changed). Open but no longer reported: cleared with the facts observed for its whole history, and
 * a job now. An incident resolved automatically that comes back starts a new thread. One a person resolved stays
 * closed while the cluster keeps reporting it; once it cleared (the job then closes the record), a recurrence
 * starts a new thread as well.
 */
export async function recordEvaluation(
  ctx: RecordContext,
  incidents: readonly Incident[],
  now: number,
): Promise<JobRequest[]> {
  const { store } = ctx;
  const jobs: JobRequest[] = [];
  const seen = new Set<string>();
  for (const incident of incidents) {
    if (seen.has(incident.key)) continue;
    seen.add(incident.key);
    const hash = rootHash(incident);
    let r = await store.get(incident.key);
    if (r?.resolutionPosted && r.resolvedBy !== undefined && r.firing) continue;
    if (r?.resolutionPosted) {
      await store.delete(incident.key);
      r = undefined;
    }
    if (!r) {
      const history = mergeHistory(undefined, incident, now).history;
      const created = await store.create({
        key: incident.key,
        channel: ctx.channel,
        createdAt: now,
        updatedAt: now,
        incident,
        history,
        observedHash: hash,
        firing: true,
      });
      // Another replica created it first: its job already waits for group_wait.
      if (created) jobs.push({ key: incident.key, delayMs: ctx.groupWait });
      continue;
    }
    const merged = mergeHistory(r.history ?? historyOrLast(undefined, r.incident, r.createdAt), incident, now);
    const history = merged.changed || !r.history ? { history: merged.history } : {};
    if (r.observedHash === hash && r.firing) {
      // Same root, but the history's cluster-time end moves on (a write a minute at most).
      if (history.history) await store.patch(incident.key, history);
      continue;
    }
    await store.patch(incident.key, {
      incident,
      ...history,
      observedHash: hash,
      firing: true,
      clearedAt: undefined,
      resolution: undefined,
      updatedAt: now,
    });
    jobs.push({ key: incident.key, delayMs: 0 });
  }
  for (const key of await store.listOpen()) {
    if (seen.has(key)) continue;
    const r = await store.get(key);
    if (!r) continue;
    if (r.resolutionPosted && !r.firing) {
      // Resolved, waiting for CronJobs to run (follow-up.ts): say which are done now, once.
      const done = r.awaitingCronJobs ? newlyDone(r, ctx.observe?.(historyOf(r), now, true)) : undefined;
      if (done) {
        await store.patch(key, { cronJobsDone: done });
        jobs.push({ key, delayMs: 0 });
      }
      continue;
    }
    if (!r.firing) continue;
    const facts = ctx.resolutions?.get(key) ?? ctx.observe?.(historyOf(r), now);
    await store.patch(key, { firing: false, clearedAt: now, resolution: facts, updatedAt: now });
    jobs.push({ key, delayMs: 0 });
  }
  return jobs;
}
