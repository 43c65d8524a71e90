// The wording of drain advice: what each answer says, filled in from the facts the decision found (drain.ts and
// drain-block.ts decide; nothing here decides). One phrasing per case, in tables, so a sentence reads whole.
import type { BlindSpot, DrainAdvice, RollbackAdvice, RolloutEvidence } from '../domain/incident.js';
import { nameList } from '../domain/names.js';
import { blindSentence, blindSteps } from './blind.js';
import type { Caution } from './drain-caution.js';
import { rollbackStep } from './rollback.js';

/** What an answer says: the one-line reason and the steps. */
type Wording = Pick<DrainAdvice, 'reason' | 'steps'>;

/** What the bot's open incidents decide, for a blind spot. */
export const INCIDENTS_UNDECIDED =
  'whether an open rollout incident that partly recovered still breaks mounts on this node';

/** The sentence an answer given without the bot's open incidents ends with. */
export const NOT_CONSULTED =
  "The bot's open incidents were not consulted (no --redis or REDIS_URL): a plugin rollout incident that partly recovered can still make this node unsafe to drain.";

/** Why a node is BLOCK, by what the rollout does to it. */
export type BlockState = 'recovering' | 'stuck' | 'replacing' | 'on-bad';

/** One phrasing per BlockState. */
const BLOCK_WHY: Record<BlockState, (f: { node: string; ds: string; rev: number }) => string> = {
  recovering: ({ node, ds }) =>
    `the stuck pods on ${node} are recovering after its plugin pod was replaced (they got stuck under the plugin pod that was there before, of ${ds}); evicting them only restarts their mounts`,
  stuck: ({ node, ds, rev }) => `the stuck mounts on ${node} follow ${ds} revision ${rev}, not the node`,
  replacing: ({ node, ds, rev }) =>
    `${node}'s plugin pod is being replaced: the ${ds} rollout to revision ${rev} reaches it next`,
  'on-bad': ({ node, ds, rev }) => `${node} runs ${ds} revision ${rev}, which does not mount new volumes`,
};

/** What a BLOCK is worded from: the node, why it is blocked, the rollout and its rollback. */
export interface BlockFacts {
  node: string;
  state: BlockState;
  rollout: RolloutEvidence;
  rollback: RollbackAdvice;
}

/** BLOCK: why draining turns working pods into stuck ones, and what to do instead (roll back, cordon, wait). */
export function blockWording({ node, state, rollout: ev, rollback }: BlockFacts): Wording {
  const why = BLOCK_WHY[state]({ node, ds: `${ev.daemonSet.namespace}/${ev.daemonSet.name}`, rev: ev.newRevision });
  const reach = `the rollout has reached (${ev.updatedNodes} of ${ev.desiredNodes}) or will reach (${counts2x2(ev)})`;
  const good = rollback.toRevision ?? ev.previousRevision;
  return {
    reason: `Do not drain: ${why}; draining moves its pods onto nodes ${reach}.`,
    steps: [
      `Stop the drain; keep ${node} cordoned but evict nothing more.`,
      rollbackStep(rollback),
      `Cordon the nodes on revision ${ev.newRevision} while it rolls back: kubectl cordon ${nameList(ev.nodesOnNewRevision)}`,
      'Leave stuck pods alone: the kubelet retries and they recover once the plugin is fixed.',
      `Drain ${node} later, if still needed, once its plugin pod is back on ${revisionName(good)} and a test mount succeeds there.`,
    ],
  };
}

/** "revision 3: 2 nodes stuck, 0 fine; revision 2: 0 stuck, 4 fine". */
function counts2x2(ev: RolloutEvidence): string {
  const c = ev.counts;
  const prev = ev.previousRevision ?? 'previous';
  return `revision ${ev.newRevision}: ${c.newStuck} nodes stuck, ${c.newFine} fine; revision ${prev}: ${c.oldStuck} stuck, ${c.oldFine} fine`;
}

/** "revision 2", or "the previous revision" when its number is not known. */
function revisionName(rev: number | undefined): string {
  return rev !== undefined ? `revision ${rev}` : 'the previous revision';
}

/** One phrasing per reason a node is OK. */
export const OK_WORDING = {
  /** A rollout incident elsewhere: this node is not on its revision, but its evicted pods could land there. */
  besideRollout: (node: string, ev: RolloutEvidence): Wording => ({
    reason: `${node} has no stuck mounts and its plugin is not on ${ev.daemonSet.name} revision ${ev.newRevision}.`,
    steps: [
      `Cordon the ${ev.nodesOnNewRevision.length} nodes on revision ${ev.newRevision} first, so pods evicted from ${node} cannot land where mounts fail: kubectl cordon ${nameList(ev.nodesOnNewRevision)}`,
    ],
  }),
  /** The stuck mounts follow the node itself: draining is the way out. */
  ownFault: (node: string): Wording => ({
    reason: `The stuck mounts follow ${node} itself: draining moves its pods to nodes where mounts work.`,
    steps: ['Investigate the node after the drain: kubelet and node plugin logs, mount table.'],
  }),
  /** Nothing on the node and no rollout implicated. */
  clear: (node: string): Wording => ({
    reason: `No stuck mounts, stuck terminations or stale attachments on ${node}, and no plugin rollout is implicated.`,
    steps: [],
  }),
};

/** UNKNOWN: what could not be read and what that leaves undecided; what is known to be wrong is still said. */
export function unknownWording(node: string, blind: readonly BlindSpot[], caution: Caution | undefined): Wording {
  const known = caution ? [`Known already: ${caution.reason}`] : [];
  return {
    reason: [`Cannot tell whether ${node} is safe to drain.`, blindSentence(blind), ...known].join(' '),
    steps: [`Do not drain ${node} on this answer.`, ...blindSteps(blind), ...(caution?.steps ?? [])],
  };
}
