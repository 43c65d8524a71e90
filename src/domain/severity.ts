// An incident's status (open, recovering, resolved) and severity (SEV1-SEV3), decided once from the incident so
// the evaluation, the thread and a sort by severity agree. Pure; the root's first line says both.
import type { Incident } from './incident.js';

/** Where an incident is: stuck pods and no fix under way, a fix under way, or over. */
export type IncidentStatus = 'open' | 'recovering' | 'resolved';

/** SEV1 spreads by itself, SEV2 holds workloads down, SEV3 is contained. Sorts as text. */
export type Severity = 'SEV1' | 'SEV2' | 'SEV3';

/** Stuck pods from which an incident is SEV1 whatever its cause. */
export const SEV1_STUCK_PODS = 10;

/**
 * `recovering` when a rollback of the incident's node plugin is rolling out (the DaemonSet left the bad revision)
 * or some of its pods are stuck only since before their node's plugin pod was replaced; `resolved` once resolved.
 */
export function incidentStatus(incident: Incident, resolved = false): IncidentStatus {
  if (resolved) return 'resolved';
  if (rollbackUnderWay(incident)) return 'recovering';
  return (incident.rollout?.recoveringPods?.length ?? 0) > 0 ? 'recovering' : 'open';
}

/** Whether the incident's node plugin DaemonSet already left the bad revision: a rollback is rolling out. */
export function rollbackUnderWay(incident: Incident): boolean {
  return incident.rollback?.state === 'under-way' || incident.rollout?.rolledBack === true;
}

/**
 * SEV1: a node plugin rollout that still spreads (each node it reaches breaks new mounts), or 10+ stuck pods.
 * SEV2: a StatefulSet's pod or a CronJob's run held, or any storage fault with stuck pods. SEV3: the rest (a
 * rollback under way with few pods, a fault that is not storage with few pods, nothing stuck).
 */
export function incidentSeverity(incident: Incident): Severity {
  const stuck = incident.pods.length + (incident.podsNotKept ?? 0);
  const spreading = incident.verdict === 'FOLLOWS_ROLLOUT' && incidentStatus(incident) === 'open';
  if (spreading || stuck >= SEV1_STUCK_PODS) return 'SEV1';
  const held = incident.workloads.some((w) => w.kind === 'StatefulSet') || incident.cronJobs.length > 0;
  if (incident.verdict === 'NOT_STORAGE' || incidentStatus(incident) === 'recovering') return held ? 'SEV2' : 'SEV3';
  return stuck > 0 || held ? 'SEV2' : 'SEV3';
}
