// What an incident record keeps in the shared Redis: bounded, however many nodes and pods the incident has. Node
// rows are capped by keptNodeRows (node-rows.ts); the stuck pods' findings (about 0.7 KB each, with their events and
// storage path) and the workloads' pod lists are capped here, the rest counted, so a record of a 5 000-node incident
// stays well under a megabyte. The notifiable hash is taken before (notify/record.ts), so a pod beyond the cap that
// joins or leaves is still a change; members.ts and the change reply tell it by the counts.
import type { Incident } from './incident.js';
import { keptNodeRows } from './node-rows.js';

/** Stuck pods (findings) an incident record keeps; the rest are counted in `podsNotKept`. */
export const MAX_RECORDED_PODS = 200;

/**
 * The incident as a record keeps it: node rows capped (keptNodeRows), then stuck pods capped (keptPods), each
 * listing again first what `previous` (the record's last incident) listed.
 */
export function keptForRecord(incident: Incident, previous?: Incident): Incident {
  return keptPods(keptNodeRows(incident, undefined, previous), previous);
}

/**
 * At most `max` stuck-pod findings: first those `previous` listed that are still stuck (a listed pod never drops
 * out of the list while it stays stuck, so one that left the list left the incident), then the longest stuck. Each
 * workload lists only the pods kept, and counts its others; `podsNotKept` counts them all.
 */
export function keptPods(incident: Incident, previous?: Incident, max = MAX_RECORDED_PODS): Incident {
  if (incident.pods.length <= max) return incident;
  const listed = new Set(previous?.pods.map((p) => p.key));
  const rank = (p: Incident['pods'][number]): number => (listed.has(p.key) ? 0 : 1);
  const since = (p: Incident['pods'][number]): number => Date.parse(p.since) || 0;
  const kept = [...incident.pods]
    .sort((a, b) => rank(a) - rank(b) || since(a) - since(b) || a.key.localeCompare(b.key))
    .slice(0, max)
    .sort((a, b) => a.key.localeCompare(b.key));
  const names = new Set(kept.map((p) => `${p.pod.namespace}/${p.pod.name}`));
  return {
    ...incident,
    pods: kept,
    podsNotKept: incident.pods.length - kept.length,
    workloads: incident.workloads.map((w) => {
      const pods = w.pods.filter((p) => names.has(p));
      return pods.length === w.pods.length ? w : { ...w, pods, podsNotKept: w.pods.length - pods.length };
    }),
  };
}

/** How many stuck pods the incident has, listed or counted. */
export function stuckPodCount(incident: Incident): number {
  return incident.pods.length + (incident.podsNotKept ?? 0);
}
