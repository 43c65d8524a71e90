// BLOCK in drain advice: a FOLLOWS_ROLLOUT incident has stuck mounts on the node, or the node's plugin runs the bad
// revision, or its plugin pod is being replaced right now (the rollout reaches it next). The decision only; the
// wording is drain-wording.ts. Read-only, pure.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { DrainAdvice, Incident, RolloutEvidence } from '../domain/incident.js';
import type { ByNode } from './drain-lookup.js';
import { blockWording, type BlockState } from './drain-wording.js';
import { rollbackOf } from './rollback.js';

/** Where a node stands in one rollout incident. */
interface Standing {
  /** The incident has stuck pods on the node. */
  stuckHere: boolean;
  /** ...and every one of them is recovering after the node's plugin pod was replaced. */
  onlyRecovering: boolean;
  /** The node's plugin runs the incident's new (bad) revision. */
  onBad: boolean;
  /** The node's plugin pod is being replaced right now. */
  replacing: boolean;
}

/** Why the node is blocked, first match wins; a node that matches none is not blocked by this incident. */
const BLOCK_RULES: readonly { state: BlockState; when: (s: Standing) => boolean }[] = [
  { state: 'recovering', when: (s) => s.onlyRecovering },
  { state: 'stuck', when: (s) => s.stuckHere },
  { state: 'replacing', when: (s) => s.replacing },
  { state: 'on-bad', when: (s) => s.onBad },
];

/** BLOCK when a FOLLOWS_ROLLOUT incident has stuck mounts on `node`, or its plugin runs or is about to run the bad revision. */
export function blockFor(
  index: ClusterIndex,
  lookup: ByNode,
  incidents: readonly Incident[],
  node: string,
): DrainAdvice | undefined {
  for (const inc of incidents) {
    if (inc.verdict !== 'FOLLOWS_ROLLOUT' || !inc.rollout) continue;
    const standing = standingOf(lookup, inc, inc.rollout, node);
    const state = BLOCK_RULES.find((r) => r.when(standing))?.state;
    if (!state) continue;
    const wording = blockWording({ node, state, rollout: inc.rollout, rollback: rollbackOf(index, inc)! });
    return { node, decision: 'BLOCK', ...wording };
  }
  return undefined;
}

/** Where `node` stands in the rollout incident `inc` (whose evidence is `ev`). */
function standingOf(lookup: ByNode, inc: Incident, ev: RolloutEvidence, node: string): Standing {
  const row = lookup.rows.get(inc)?.get(node);
  const stuckPods = row?.stuckPods ?? [];
  const stuckHere = stuckPods.length > 0;
  const recovering = stuckHere ? new Set(ev.recoveringPods ?? []) : undefined;
  return {
    stuckHere,
    onlyRecovering: stuckHere && stuckPods.every((p) => recovering?.has(p)),
    // The correlator read each plugin's revision once: the node's row, and the rollout's list of new-revision nodes.
    onBad: row?.plugin?.revision === ev.newRevision || (lookup.onNew.get(inc)?.has(node) ?? false),
    replacing: lookup.replacing.get(inc)?.has(node) ?? false,
  };
}
