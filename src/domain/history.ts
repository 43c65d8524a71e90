// What an incident record remembers of every member the incident ever had, and how each evaluation adds to it.
// The correlator reports only the current members, but the resolution speaks for the whole incident: which pods
// recovered on their own, which were deleted, whether each missed CronJob completed a run since. Bounded, so a
// 150k-pod incident keeps a record of known size. Merging is pure and stable: merging the same members again
// returns `changed: false`, so an unchanged incident costs no write.
import type { Incident } from './incident.js';
import type { WorkloadRef } from './findings.js';
import { timeMs } from './refs.js';

/** Members kept per incident (pods and CronJobs together); more are counted, not kept. */
export const MAX_HISTORY_MEMBERS = 500;

/** Node names kept per incident; more are counted, not kept. */
export const MAX_HISTORY_NODES = 500;

/** How far the cluster-time end of the incident must move before it is written again (one write a minute). */
const LAST_STUCK_STEP_MS = 60_000;

/** A pod that was stuck at some point of the incident, as first seen. */
export interface HistoryPod {
  /** "namespace/name". */
  pod: string;
  /** The uid it had when first seen stuck: a different uid later means it was replaced. */
  uid?: string;
  /** How it was first stuck: a pod stuck Terminating that is gone later has finished terminating. */
  kind: 'stuck-creating' | 'stuck-terminating';
  node?: string;
  workload: WorkloadRef;
  /** When it became stuck (cluster time, RFC 3339). */
  since: string;
}

/** A CronJob that had missed runs at some point of the incident. */
export interface HistoryCronJob {
  /** "namespace/name". */
  cronJob: string;
  schedule: string;
  /** The most missed runs seen at once. */
  missedRuns: number;
  /** Its status.lastSuccessfulTime when first seen: a later one means a run completed since (cluster time). */
  lastSuccessfulTime?: string;
  /** When the notifier first saw it (epoch ms, the notifier's clock). */
  firstSeen: number;
}

/** The most the incident had at once. */
export interface HistoryPeak {
  pods: number;
  /** Nodes with stuck pods. */
  nodes: number;
  cronJobs: number;
  /** The incident's one-line summary when it had the most stuck pods (e.g. the rollout's 2x2 counts then). */
  summary: string;
}

/** Every member an incident ever had, bounded. Times in cluster time unless said otherwise. */
export interface IncidentHistory {
  pods: HistoryPod[];
  cronJobs: HistoryCronJob[];
  /** Nodes that had stuck pods, in the order they joined. */
  nodes: string[];
  /** Members seen but not kept (MAX_HISTORY_MEMBERS reached): at least this many, more if they came and went. */
  omittedPods: number;
  omittedCronJobs: number;
  omittedNodes: number;
  peak: HistoryPeak;
  /** Earliest `since` of any stuck pod (epoch ms, cluster time). */
  firstStuckAt?: number;
  /** Latest evaluation time at which a pod was seen stuck (epoch ms, cluster time; advanced a minute at a time). */
  lastStuckAt?: number;
}

/** An empty history. */
export function emptyHistory(): IncidentHistory {
  return {
    pods: [],
    cronJobs: [],
    nodes: [],
    omittedPods: 0,
    omittedCronJobs: 0,
    omittedNodes: 0,
    peak: { pods: 0, nodes: 0, cronJobs: 0, summary: '' },
  };
}

/**
 * Adds what `incident` shows now to `prev` (undefined: a new history). Members are keyed by "namespace/name" and
 * kept as first seen (the first uid is the one that was stuck); a CronJob keeps its most missed runs. At most
 * MAX_HISTORY_MEMBERS members and MAX_HISTORY_NODES nodes are kept; the rest are counted. `now` (notifier clock)
 * stamps a CronJob's first sighting. Returns a new object when anything changed; never mutates `prev`.
 */
export function mergeHistory(
  prev: IncidentHistory | undefined,
  incident: Incident,
  now: number,
): { history: IncidentHistory; changed: boolean } {
  const base = prev ?? emptyHistory();
  // CronJobs first: they are few, and whether each ran since is the resolution's second question.
  const room = { left: MAX_HISTORY_MEMBERS - base.pods.length - base.cronJobs.length };
  const crons = mergeCronJobs(base.cronJobs, incident, room, now);
  const pods = mergePods(base.pods, incident, room);
  const nodes = mergeNodes(base.nodes, incident);
  const update: Partial<IncidentHistory> = {
    ...(crons.list ? { cronJobs: crons.list } : {}),
    ...(pods.list ? { pods: pods.list } : {}),
    ...(nodes.list ? { nodes: nodes.list } : {}),
    ...omitted(base, { pods: pods.dropped, cronJobs: crons.dropped, nodes: nodes.dropped }),
    ...peakOf(base.peak, incident),
    ...stuckTimes(base, incident),
  };
  const changed = prev === undefined || Object.keys(update).length > 0;
  return { history: changed ? { ...base, ...update } : base, changed };
}

/** The record's history, or one made from its last incident (records written before histories existed). */
export function historyOrLast(
  history: IncidentHistory | undefined,
  incident: Incident | undefined,
  at: number,
): IncidentHistory {
  if (history) return history;
  return incident ? mergeHistory(undefined, incident, at).history : emptyHistory();
}

// A merged list: the new list (undefined when nothing changed) and how many members did not fit.
interface Merged<T> {
  list: T[] | undefined;
  dropped: number;
}

// How many more members (pods and CronJobs together) the history keeps; each one kept takes one.
interface Room {
  left: number;
}

function mergeCronJobs(
  known: readonly HistoryCronJob[],
  incident: Incident,
  room: Room,
  now: number,
): Merged<HistoryCronJob> {
  const at = new Map(known.map((c, i) => [c.cronJob, i]));
  let list: HistoryCronJob[] | undefined; // copied on first change
  let dropped = 0;
  for (const c of incident.cronJobs) {
    const key = `${c.cronJob.namespace}/${c.cronJob.name}`;
    const i = at.get(key);
    if (i !== undefined) {
      const seen = (list ?? known)[i]!;
      if (c.missedRuns > seen.missedRuns) {
        list ??= [...known];
        list[i] = { ...seen, missedRuns: c.missedRuns };
      }
      continue;
    }
    if (room.left <= 0) {
      dropped++;
      continue;
    }
    room.left--;
    list ??= [...known];
    at.set(key, list.length);
    list.push({
      cronJob: key,
      schedule: c.schedule,
      missedRuns: c.missedRuns,
      ...(c.lastSuccessfulTime ? { lastSuccessfulTime: c.lastSuccessfulTime } : {}),
      firstSeen: now,
    });
  }
  return { list, dropped };
}

function mergePods(known: readonly HistoryPod[], incident: Incident, room: Room): Merged<HistoryPod> {
  const keys = new Set(known.map((p) => p.pod));
  const added: HistoryPod[] = [];
  let dropped = 0;
  for (const f of incident.pods) {
    const key = `${f.pod.namespace}/${f.pod.name}`;
    if (keys.has(key)) continue;
    keys.add(key);
    if (room.left <= 0) {
      dropped++;
      continue;
    }
    room.left--;
    added.push({
      pod: key,
      ...(f.pod.uid ? { uid: f.pod.uid } : {}),
      kind: f.kind,
      ...(f.node ? { node: f.node } : {}),
      workload: { ...f.workload },
      since: f.since,
    });
  }
  return { list: added.length > 0 ? [...known, ...added] : undefined, dropped };
}

// Nodes with stuck pods: the node rows first, then the nodes the pods name.
function mergeNodes(known: readonly string[], incident: Incident): Merged<string> {
  const keys = new Set(known);
  const added: string[] = [];
  let dropped = 0;
  for (const n of [...stuckNodes(incident), ...incident.pods.flatMap((p) => (p.node ? [p.node] : []))]) {
    if (keys.has(n)) continue;
    keys.add(n);
    if (known.length + added.length >= MAX_HISTORY_NODES) dropped++;
    else added.push(n);
  }
  return { list: added.length > 0 ? [...known, ...added] : undefined, dropped };
}

function stuckNodes(incident: Incident): string[] {
  return incident.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node);
}

// Counted, not kept: the most left out at once is a lower bound on how many were left out in all.
function omitted(
  h: IncidentHistory,
  dropped: { pods: number; cronJobs: number; nodes: number },
): Partial<IncidentHistory> {
  if (dropped.pods <= h.omittedPods && dropped.cronJobs <= h.omittedCronJobs && dropped.nodes <= h.omittedNodes)
    return {};
  return {
    omittedPods: Math.max(h.omittedPods, dropped.pods),
    omittedCronJobs: Math.max(h.omittedCronJobs, dropped.cronJobs),
    omittedNodes: Math.max(h.omittedNodes, dropped.nodes),
  };
}

// The most the incident had at once; the summary is the one of the moment it had the most stuck pods.
function peakOf(peak: HistoryPeak, incident: Incident): Partial<IncidentHistory> {
  const now = { pods: incident.pods.length, nodes: stuckNodes(incident).length, cronJobs: incident.cronJobs.length };
  const more = now.pods > peak.pods || now.nodes > peak.nodes || now.cronJobs > peak.cronJobs;
  if (!more && !(!peak.summary && incident.summary)) return {};
  return {
    peak: {
      pods: Math.max(now.pods, peak.pods),
      nodes: Math.max(now.nodes, peak.nodes),
      cronJobs: Math.max(now.cronJobs, peak.cronJobs),
      summary: now.pods > peak.pods || !peak.summary ? incident.summary : peak.summary,
    },
  };
}

// Cluster time, from the findings themselves: the notifier's clock may not be the cluster's (rwx demo).
// Loops, not Math.min(...spread): an incident may hold far more pods than a call's argument list.
function stuckTimes(h: IncidentHistory, incident: Incident): Partial<IncidentHistory> {
  let first = Infinity;
  let seenAt = -Infinity;
  for (const p of incident.pods) {
    const t = timeMs(p.since);
    if (t === undefined) continue;
    first = Math.min(first, t);
    seenAt = Math.max(seenAt, t + p.stuckSeconds * 1000);
  }
  const out: Partial<IncidentHistory> = {};
  if (Number.isFinite(first) && (h.firstStuckAt === undefined || first < h.firstStuckAt)) out.firstStuckAt = first;
  if (Number.isFinite(seenAt) && (h.lastStuckAt === undefined || seenAt >= h.lastStuckAt + LAST_STUCK_STEP_MS))
    out.lastStuckAt = seenAt;
  return out;
}
