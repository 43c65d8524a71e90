// What cordoning costs: the nodes it takes out of scheduling, weighed against the cluster, and when to cordon
// fewer. One sentence, said with every step that cordons more than a quarter of the nodes.
import { nameList } from '../domain/names.js';

/** The share of the cluster's nodes past which a cordon step says what it costs. */
export const CORDON_COST_SHARE = 0.25;

/**
 * " It takes 29 of 40 nodes (72%) out of scheduling: if the other 11 cannot take the pods that must move, cordon
 * only the 4 with stuck pods (kubectl cordon ...)." Empty when `cordon` is at most CORDON_COST_SHARE of `total`
 * nodes, or `total` is unknown (0).
 */
export function cordonCost(cordon: readonly string[], total: number, stuck: readonly string[]): string {
  if (total <= 0 || cordon.length / total <= CORDON_COST_SHARE) return '';
  const pct = Math.round((100 * cordon.length) / total);
  const rest = total - cordon.length;
  const fewer =
    stuck.length > 0 && stuck.length < cordon.length
      ? `cordon only the ${stuck.length} with stuck pods (kubectl cordon ${nameList(stuck)}) and let the rollback fix the rest`
      : 'cordon the nodes in rollout order, a few at a time';
  return ` It takes ${cordon.length} of ${total} nodes (${pct}%) out of scheduling: if the other ${rest} cannot take the pods that must move, ${fewer}.`;
}
