// An incident's node rows: their order (nodes with stuck pods first) and how many a record keeps. An incident
// over thousands of nodes would otherwise make a record of megabytes in the shared Redis (one per incident per
// cluster); the renderers show at most a screenful of rows anyway, and count the rest ("+N more").
import type { Incident, IncidentNode } from './incident.js';

/** Node rows (and their drain advice) an incident record keeps; the rest are counted in `nodesNotKept`. */
export const MAX_RECORDED_NODES = 200;

/** Orders names as a person counts them: node-2 before node-12. */
export function naturalOrder(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/** Nodes with stuck pods first (most first), then the rest, each group in natural order. */
export function byStuckPods(nodes: readonly IncidentNode[]): IncidentNode[] {
  return [...nodes].sort((a, b) => b.stuckPods.length - a.stuckPods.length || naturalOrder(a.node, b.node));
}

/**
 * The incident as a record keeps it: at most `max` node rows, with the drain advice of those nodes only, and how
 * many rows (and of them with stuck pods) were left out, added to any already left out. First the rows with stuck
 * pods that `previous` (the record's last incident) listed, so a node listed with stuck pods drops out of the list
 * only once it has none (a change reply can tell joins and departures from the lists); then in byStuckPods order.
 * Everything else is kept whole here: the rollout's node lists and the next steps (stuck pods: kept.ts).
 */
export function keptNodeRows(incident: Incident, max = MAX_RECORDED_NODES, previous?: Incident): Incident {
  if (incident.nodes.length <= max) return incident;
  const listed = new Set(previous?.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node));
  const rank = (n: IncidentNode): number => (listed.has(n.node) && n.stuckPods.length > 0 ? 0 : 1);
  const sorted = byStuckPods(incident.nodes).sort((a, b) => rank(a) - rank(b));
  const kept = sorted.slice(0, max);
  const left = sorted.slice(max);
  const names = new Set(kept.map((n) => n.node));
  const before = incident.nodesNotKept ?? { nodes: 0, withStuckPods: 0 };
  return {
    ...incident,
    nodes: kept,
    drain: incident.drain.filter((d) => names.has(d.node) || d.node === incident.node),
    nodesNotKept: {
      nodes: before.nodes + left.length,
      withStuckPods: before.withStuckPods + left.filter((n) => n.stuckPods.length > 0).length,
    },
  };
}

/** How many node rows the incident has, listed or counted. */
export function nodeRowCount(incident: Incident): { nodes: number; withStuckPods: number } {
  const notKept = incident.nodesNotKept ?? { nodes: 0, withStuckPods: 0 };
  return {
    nodes: incident.nodes.length + notKept.nodes,
    withStuckPods: incident.nodes.filter((n) => n.stuckPods.length > 0).length + notKept.withStuckPods,
  };
}
