// Merging each evaluation's incident into the record's history (src/queue/incident-history.ts): pure, bounded,
// and stable: merging the same members again returns `changed: false`, so an unchanged incident costs no write.
import type { Incident } from '../domain/incident.js';
import { timeMs } from '../domain/refs.js';
import {
  type HistoryCronJob,
  type HistoryPod,
  type IncidentHistory,
  MAX_HISTORY_MEMBERS,
  MAX_HISTORY_NODES,
} from '../queue/incident-history.js';
import type { IncidentRecord } from '../queue/incident-store.js';

/** How far the cluster-time end of the incident must move before it is written again (one write a minute). */
const LAST_STUCK_STEP_MS = 60_000;

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
  const h: IncidentHistory = { ...base };
  let changed = prev === undefined;
  let kept = h.pods.length + h.cronJobs.length;

  // CronJobs first: they are few, and whether each ran since is the resolution's second question (step 5).
  const cronIndex = new Map(h.cronJobs.map((c, i) => [c.cronJob, i]));
  let crons: HistoryCronJob[] | undefined; // copied on first change
  let droppedCrons = 0;
  for (const c of incident.cronJobs) {
    const key = `${c.cronJob.namespace}/${c.cronJob.name}`;
    const i = cronIndex.get(key);
    const known = i === undefined ? undefined : (crons ?? h.cronJobs)[i];
    if (i !== undefined && known) {
      if (c.missedRuns > known.missedRuns) {
        crons ??= [...h.cronJobs];
        crons[i] = { ...known, missedRuns: c.missedRuns };
      }
      continue;
    }
    if (kept >= MAX_HISTORY_MEMBERS) {
      droppedCrons++;
      continue;
    }
    kept++;
    crons ??= [...h.cronJobs];
    cronIndex.set(key, crons.length);
    crons.push({
      cronJob: key,
      schedule: c.schedule,
      missedRuns: c.missedRuns,
      ...(c.lastSuccessfulTime ? { lastSuccessfulTime: c.lastSuccessfulTime } : {}),
      firstSeen: now,
    });
  }
  if (crons) {
    h.cronJobs = crons;
    changed = true;
  }

  const knownPods = new Set(h.pods.map((p) => p.pod));
  const newPods: HistoryPod[] = [];
  let droppedPods = 0;
  for (const f of incident.pods) {
    const key = `${f.pod.namespace}/${f.pod.name}`;
    if (knownPods.has(key)) continue;
    knownPods.add(key);
    if (kept >= MAX_HISTORY_MEMBERS) {
      droppedPods++;
      continue;
    }
    kept++;
    newPods.push({
      pod: key,
      ...(f.pod.uid ? { uid: f.pod.uid } : {}),
      kind: f.kind,
      ...(f.node ? { node: f.node } : {}),
      workload: { ...f.workload },
      since: f.since,
    });
  }
  if (newPods.length > 0) {
    h.pods = [...h.pods, ...newPods];
    changed = true;
  }

  const stuckNodes = incident.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node);
  const knownNodes = new Set(h.nodes);
  const newNodes: string[] = [];
  let droppedNodes = 0;
  for (const n of [...stuckNodes, ...incident.pods.flatMap((p) => (p.node ? [p.node] : []))]) {
    if (knownNodes.has(n)) continue;
    knownNodes.add(n);
    if (h.nodes.length + newNodes.length >= MAX_HISTORY_NODES) droppedNodes++;
    else newNodes.push(n);
  }
  if (newNodes.length > 0) {
    h.nodes = [...h.nodes, ...newNodes];
    changed = true;
  }

  // Counted, not kept: the most seen at once is a lower bound on how many were left out in all.
  if (droppedPods > h.omittedPods || droppedCrons > h.omittedCronJobs || droppedNodes > h.omittedNodes) {
    h.omittedPods = Math.max(h.omittedPods, droppedPods);
    h.omittedCronJobs = Math.max(h.omittedCronJobs, droppedCrons);
    h.omittedNodes = Math.max(h.omittedNodes, droppedNodes);
    changed = true;
  }

  const peak = { pods: incident.pods.length, nodes: stuckNodes.length, cronJobs: incident.cronJobs.length };
  if (
    peak.pods > h.peak.pods ||
    peak.nodes > h.peak.nodes ||
    peak.cronJobs > h.peak.cronJobs ||
    (!h.peak.summary && incident.summary)
  ) {
    h.peak = {
      pods: Math.max(peak.pods, h.peak.pods),
      nodes: Math.max(peak.nodes, h.peak.nodes),
      cronJobs: Math.max(peak.cronJobs, h.peak.cronJobs),
      summary: peak.pods > h.peak.pods || !h.peak.summary ? incident.summary : h.peak.summary,
    };
    changed = true;
  }

  // Cluster time, from the findings themselves: the notifier's clock may not be the cluster's (rwx demo).
  // Loops, not Math.min(...spread): an incident may hold far more pods than a call's argument list.
  let first = Infinity;
  let seenAt = -Infinity;
  for (const p of incident.pods) {
    const t = timeMs(p.since);
    if (t === undefined) continue;
    first = Math.min(first, t);
    seenAt = Math.max(seenAt, t + p.stuckSeconds * 1000);
  }
  if (Number.isFinite(first) && (h.firstStuckAt === undefined || first < h.firstStuckAt)) {
    h.firstStuckAt = first;
    changed = true;
  }
  if (Number.isFinite(seenAt) && (h.lastStuckAt === undefined || seenAt >= h.lastStuckAt + LAST_STUCK_STEP_MS)) {
    h.lastStuckAt = seenAt;
    changed = true;
  }
  return { history: changed ? h : base, changed };
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

/** A record's history (historyOrLast of its history, last incident and creation time). */
export function historyOf(r: Pick<IncidentRecord, 'history' | 'incident' | 'createdAt'>): IncidentHistory {
  return historyOrLast(r.history, r.incident, r.createdAt);
}
