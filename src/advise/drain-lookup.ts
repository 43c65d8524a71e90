// The per-node lookups drain advice reads, built once per evaluation over its incidents (drain.ts drainAdvisor),
// so each node's advice costs O(incidents). Pure.
import type { StuckPodFinding } from '../domain/findings.js';
import type { Incident, IncidentNode } from '../domain/incident.js';
import type { StuckHere } from './drain-caution.js';
import { unmountableClaims } from './running-consumers.js';

/** Per-node lookups over a list of incidents, built once per evaluation (see drainAdvisor). */
export interface ByNode {
  rows: Map<Incident, Map<string, IncidentNode>>;
  onNew: Map<Incident, Set<string>>;
  replacing: Map<Incident, Set<string>>;
  terminating: Map<string, StuckPodFinding[]>;
  /** node -> the incidents with stuck pods there, and those pods ("namespace/name"). */
  stuck: Map<string, StuckHere[]>;
  /** Claims stuck pods cannot mount now -> the incident (running-consumers.ts). */
  unmountable: Map<string, string>;
}

/** The lookups over `incidents`; they must not change while the lookups are in use. */
export function byNode(incidents: readonly Incident[]): ByNode {
  const b: ByNode = {
    rows: new Map(),
    onNew: new Map(),
    replacing: new Map(),
    terminating: new Map(),
    stuck: new Map(),
    unmountable: unmountableClaims(incidents),
  };
  for (const inc of incidents) {
    b.rows.set(inc, new Map(inc.nodes.map((n) => [n.node, n])));
    for (const n of inc.nodes) {
      if (n.stuckPods.length === 0) continue;
      b.stuck.set(n.node, [...(b.stuck.get(n.node) ?? []), { incident: inc, pods: n.stuckPods }]);
    }
    b.onNew.set(inc, new Set(inc.rollout?.nodesOnNewRevision ?? []));
    b.replacing.set(inc, new Set(inc.rollout?.nodesReplacing ?? []));
    for (const f of inc.pods) {
      if (f.kind !== 'stuck-terminating' || !f.node || !f.storage.some((s) => s.claim)) continue;
      const l = b.terminating.get(f.node) ?? [];
      l.push(f);
      b.terminating.set(f.node, l);
    }
  }
  return b;
}
