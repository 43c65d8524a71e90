// The evaluator's side of the record: what one evaluation saw, and which incident keys need a job (and after how
// long). It writes only `observed` (the incident, its hash and history, whether it cleared and what the cluster
// said then, CronJobs seen done after a resolution), never the lifecycle or the buttons.
import { mergeHistory } from '../domain/history.js';
import { isChannelKey } from '../domain/teams.js';
import type { Incident } from '../domain/incident.js';
import { keptNodeRows } from '../domain/node-rows.js';
import type { ObserveResolution, ResolutionFacts } from '../domain/resolution.js';
import type { IncidentStore } from '../store/incident-store.js';
import { isResolved, type IncidentRecord } from '../store/record.js';
import { newlyDone } from './follow-up.js';
import { notifiableHash } from './notifiable.js';

/** A job to enqueue: run the steps for `key` after `delayMs`. */
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
 * Records one evaluation: each reported incident (recordReported), then each open record it no longer reports
 * (recordAbsent). Returns the jobs to enqueue.
 */
export async function recordEvaluation(
  ctx: RecordContext,
  incidents: readonly Incident[],
  now: number,
): Promise<JobRequest[]> {
  const jobs: JobRequest[] = [];
  const seen = new Set<string>();
  for (const incident of incidents) {
    if (seen.has(incident.key)) continue;
    seen.add(incident.key);
    const job = await recordReported(ctx, incident, now);
    if (job) jobs.push(job);
  }
  for (const key of await ctx.store.listOpen()) {
    if (seen.has(key)) continue;
    const job = await recordAbsent(ctx, key, now);
    if (job) jobs.push(job);
  }
  return jobs;
}

/**
 * A reported incident. New: a record, and a job after group_wait. Changed (by notifiable hash) or reported again
 * after it cleared: the new content, and a job now. Its members are merged into the history either way (written
 * only when it changed). Resolved automatically and reported again: a new record, so a new thread. Resolved by a
 * person: silent while the cluster keeps reporting it; once it cleared (its job then closes the record), a
 * recurrence starts a new thread as well.
 */
async function recordReported(ctx: RecordContext, incident: Incident, now: number): Promise<JobRequest | undefined> {
  const { store } = ctx;
  const hash = notifiableHash(incident);
  let r = await store.get(incident.key);
  if (r && isResolved(r.lifecycle)) {
    if (r.lifecycle.resolution.by !== undefined && !r.observed.cleared) return undefined;
    await store.delete(incident.key);
    r = undefined;
  }
  if (!r) {
    const history = mergeHistory(undefined, incident, now).history;
    const created = await store.create({
      key: incident.key,
      channel: ctx.channel,
      createdAt: now,
      observed: { incident: keptNodeRows(incident), hash, history },
      lifecycle: { phase: 'pending' },
      buttons: {},
    });
    // Another replica created it first: its job already waits for group_wait.
    return created ? { key: incident.key, delayMs: ctx.groupWait } : undefined;
  }
  const merged = mergeHistory(r.observed.history, incident, now);
  const history = merged.changed ? { history: merged.history } : {};
  if (r.observed.hash === hash && !r.observed.cleared) {
    // Nothing to notify, but the history's cluster-time end moves on (a write a minute at most).
    if (merged.changed) await store.patch(incident.key, { observed: history });
    return undefined;
  }
  await store.patch(incident.key, {
    observed: { incident: keptNodeRows(incident), hash, ...history, cleared: undefined },
  });
  return { key: incident.key, delayMs: 0 };
}

/**
 * An open record the evaluation no longer reports. Firing until now: cleared, with what the cluster says about
 * every member it ever had, and a job now. Resolved and waiting for CronJobs: which of them are done now, once.
 */
async function recordAbsent(ctx: RecordContext, key: string, now: number): Promise<JobRequest | undefined> {
  const r = await ctx.store.get(key);
  if (!r) return undefined;
  const l = r.lifecycle;
  if (isResolved(l) && r.observed.cleared) {
    if (l.phase !== 'following-up') return undefined;
    const facts = ctx.observe?.(r.observed.history, now, true);
    const done = newlyDone(l.awaiting.cronJobs, r.observed.cronJobsDone, facts);
    if (!done) return undefined;
    await ctx.store.patch(key, { observed: { cronJobsDone: done } });
    return { key, delayMs: 0 };
  }
  if (r.observed.cleared) return undefined;
  const facts = ctx.resolutions?.get(key) ?? ctx.observe?.(r.observed.history, now);
  await ctx.store.patch(key, { observed: { cleared: { at: now, ...(facts ? { facts } : {}) } } });
  return { key, delayMs: 0 };
}

/** The per-record rules, for the team channels' records (channels.ts), which follow the same ones. */
export { recordReported, recordAbsent };

/**
 * Keys of the open records not yet resolved: the incidents a process starting up (or taking over evaluation)
 * treats as already open, so its first pass keeps them as they were (CorrelateOptions.openKeys).
 */
export async function unresolvedKeys(store: Pick<IncidentStore, 'listOpen' | 'get'>): Promise<string[]> {
  return (await unresolvedRecords(store)).map((r) => r.key);
}

/** The open records not yet resolved (unresolvedKeys' records): what a process starting up takes over. */
export async function unresolvedRecords(store: Pick<IncidentStore, 'listOpen' | 'get'>): Promise<IncidentRecord[]> {
  // A team channel's record (channels.ts) follows an incident; it is not one.
  const keys = (await store.listOpen()).filter((k) => !isChannelKey(k));
  const records = await Promise.all(keys.map((k) => store.get(k)));
  return records.filter((r): r is IncidentRecord => r !== undefined && !isResolved(r.lifecycle));
}
