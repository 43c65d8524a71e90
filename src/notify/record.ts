// The evaluator's side of the record: what one evaluation saw, and which incident keys need a job (and after how
// long). It writes only `observed` (the incident, its hash and history, whether it cleared and what the cluster
// said then, CronJobs seen done after a resolution), never the lifecycle or the buttons.
import { mergeHistory } from '../domain/history.js';
import { isChannelKey } from '../domain/teams.js';
import type { Incident } from '../domain/incident.js';
import { keptForRecord } from '../domain/kept.js';
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
  /** The keep-firing window (NotifyTimers.keepFiring; default 0: none): see keptFiring and reopens. */
  keepFiring?: number;
  /** By incident key: what the caller observed when it cleared. Wins over `observe`. */
  resolutions?: ReadonlyMap<string, ResolutionFacts>;
  /** What the cluster says now about every member the incident ever had (its history). */
  observe?: ObserveResolution;
}

/** What recording one evaluation did: the jobs to enqueue, and the open incidents it kept though not reported. */
export interface Recorded {
  jobs: JobRequest[];
  /** The incidents the evaluation did not report that stay open for now (keptFiring), as last recorded. */
  kept: Incident[];
}

/**
 * Records one evaluation: each reported incident (recordReported), then each open record it no longer reports
 * (recordAbsent).
 */
export async function recordEvaluation(
  ctx: RecordContext,
  incidents: readonly Incident[],
  now: number,
): Promise<Recorded> {
  const out: Recorded = { jobs: [], kept: [] };
  const seen = new Set<string>();
  for (const incident of incidents) {
    if (seen.has(incident.key)) continue;
    seen.add(incident.key);
    const job = await recordReported(ctx, incident, now);
    if (job) out.jobs.push(job);
  }
  for (const key of await ctx.store.listOpen()) {
    if (seen.has(key)) continue;
    const absent = await recordAbsent(ctx, key, now);
    if (absent && 'kept' in absent) out.kept.push(absent.kept);
    else if (absent) out.jobs.push(absent);
  }
  return out;
}

/**
 * Prometheus' keep_firing_for, for established incidents only: while a node plugin pod is being replaced the
 * correlation can lose its verdict for a few seconds (the stuck pod's node has no plugin pod), which would resolve
 * the thread and post a new root moments later. An incident that had been firing for at least `window` when it
 * went absent is kept, as last recorded, until it has been absent that long; a short-lived one is not, so a blip
 * never lingers long enough to pass group_wait and be posted. Both times are the record's (createdAt,
 * absentSince): every replica, and a replica that restarted in the middle of the window, decides the same. An
 * incident that came back after its resolution is the same incident: it counts from its first record, so a
 * flapping incident is kept through its next blip rather than resolved and reopened again.
 */
export function keptFiring(r: IncidentRecord, now: number, window: number): boolean {
  const absent = r.observed.absentSince ?? now;
  return absent - r.createdAt >= window && now - absent < window;
}

/**
 * Whether an incident resolved automatically that is reported again at `now` reopens its thread rather than
 * starting a new one: while the CronJobs it missed are still awaited (it is not over yet), or within the keep-firing
 * window after its resolution (a blip longer than the window: the same incident, the same people following it).
 * Later, it is a new incident, and a person's Resolve is final.
 */
export function reopens(r: IncidentRecord, now: number, window: number): boolean {
  const l = r.lifecycle;
  if (!isResolved(l) || l.resolution.by !== undefined) return false;
  return l.phase === 'following-up' || (l.phase === 'resolved' && now - l.resolution.at < window);
}

/**
 * A reported incident. New: a record, and a job after group_wait. Changed (by notifiable hash) or reported again
 * after it cleared: the new content, and a job now. Back within the keep-firing window: no longer absent. Its
 * members are merged into the history either way (written only when it changed). Resolved automatically and
 * reported again: its thread reopens when `reopens` says so, else a new record, so a new thread. Resolved by a
 * person: silent while the cluster keeps reporting it; once it cleared (its job then closes the record), a
 * recurrence starts a new thread as well. Each of these is one write: a reopened record is firing again, so the
 * next evaluation finds nothing to do.
 */
async function recordReported(ctx: RecordContext, incident: Incident, now: number): Promise<JobRequest | undefined> {
  const { store } = ctx;
  const hash = notifiableHash(incident);
  let r = await store.get(incident.key);
  if (r && isResolved(r.lifecycle)) {
    if (r.lifecycle.resolution.by !== undefined && !r.observed.cleared) return undefined;
    if (r.observed.cleared && reopens(r, now, ctx.keepFiring ?? 0)) {
      const history = mergeHistory(r.observed.history, incident, now).history;
      const observed = {
        incident: keptForRecord(incident, r.observed.incident),
        hash,
        history,
        cleared: undefined,
        reopenedAt: now,
      };
      await store.patch(incident.key, { observed });
      return { key: incident.key, delayMs: 0 };
    }
    if (r.observed.cleared) {
      await store.delete(incident.key);
      r = undefined;
    } // else reopened already, its job not run yet: recorded below as any firing incident
  }
  if (!r) {
    const history = mergeHistory(undefined, incident, now).history;
    const created = await store.create({
      key: incident.key,
      channel: ctx.channel,
      createdAt: now,
      observed: { incident: keptForRecord(incident), hash, history },
      lifecycle: { phase: 'pending' },
      buttons: {},
    });
    // Another replica created it first: its job already waits for group_wait.
    return created ? { key: incident.key, delayMs: ctx.groupWait } : undefined;
  }
  const merged = mergeHistory(r.observed.history, incident, now);
  const history = merged.changed ? { history: merged.history } : {};
  const back = r.observed.absentSince !== undefined ? { absentSince: undefined } : {};
  if (r.observed.hash === hash && !r.observed.cleared) {
    // Nothing to notify, but the history's cluster-time end moves on (a write a minute at most).
    if (merged.changed || r.observed.absentSince !== undefined)
      await store.patch(incident.key, { observed: { ...history, ...back } });
    return undefined;
  }
  await store.patch(incident.key, {
    observed: { incident: keptForRecord(incident, r.observed.incident), hash, ...history, ...back, cleared: undefined },
  });
  return { key: incident.key, delayMs: 0 };
}

/**
 * An open record the evaluation no longer reports. Firing until now and established: kept through the keep-firing
 * window (its start written once). Else, or once the window is over: cleared, with what the cluster says about
 * every member it ever had, and a job now. Resolved and waiting for CronJobs: which of them are done now, once.
 */
async function recordAbsent(
  ctx: RecordContext,
  key: string,
  now: number,
): Promise<JobRequest | { kept: Incident } | undefined> {
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
  if (!isResolved(l) && keptFiring(r, now, ctx.keepFiring ?? 0)) {
    if (r.observed.absentSince === undefined) await ctx.store.patch(key, { observed: { absentSince: now } });
    return { kept: r.observed.incident };
  }
  const facts = ctx.resolutions?.get(key) ?? ctx.observe?.(r.observed.history, now);
  const cleared = { at: now, ...(facts ? { facts } : {}) };
  await ctx.store.patch(key, { observed: { cleared, absentSince: undefined } });
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
