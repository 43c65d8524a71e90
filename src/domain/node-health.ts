// A node's health as the API shows it: its Ready condition (the kubelet posts it; the node lifecycle controller sets
// it to Unknown, reason NodeStatusUnknown, "Kubelet stopped posting node status.", when the posts stop) and the
// node.kubernetes.io taints that say it (unreachable, not-ready, out-of-service). Pure.
import type { ClusterIndex } from './cluster-index.js';
import type { NodeHealth } from './location.js';

const HEALTH_TAINTS = new Set([
  'node.kubernetes.io/unreachable',
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/out-of-service',
]);

/** The out-of-service taint: set by hand on a node that is shut down, it forces the detach of its volumes. */
export const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

/**
 * The node's health when it is not Ready (Ready False or Unknown, or an unreachable/not-ready taint), else
 * undefined: a Ready node, a node without a Ready condition, or a node the cache does not know.
 */
export function notReady(index: ClusterIndex, node: string | undefined): NodeHealth | undefined {
  const n = node ? index.get('nodes', node) : undefined;
  if (!n || !node) return undefined;
  const cond = (n.status?.conditions ?? []).find((c) => c?.type === 'Ready');
  const taints = [...new Set((n.spec?.taints ?? []).map((t) => t?.key ?? '').filter((k) => HEALTH_TAINTS.has(k)))];
  const status = cond?.status === 'False' || cond?.status === 'Unknown' ? cond.status : undefined;
  const tainted = taints.some((t) => t !== OUT_OF_SERVICE);
  if (!status && !tainted) return undefined;
  const h: NodeHealth = { node, ready: status ?? 'Unknown', taints };
  if (cond?.reason) h.reason = cond.reason;
  if (cond?.message) h.message = cond.message;
  if (cond?.lastTransitionTime) h.since = cond.lastTransitionTime;
  return h;
}

/** "node-a is NotReady (Ready=Unknown since T: Kubelet stopped posting node status.; taint ...unreachable)". */
export function describeHealth(h: NodeHealth): string {
  const since = h.since ? ` since ${h.since}` : '';
  const why = h.message ? `: ${h.message}` : h.reason ? `: ${h.reason}` : '';
  const taints = h.taints.length > 0 ? `; taints ${h.taints.join(', ')}` : '';
  return `${h.node} is NotReady (Ready=${h.ready}${since}${why}${taints})`;
}
