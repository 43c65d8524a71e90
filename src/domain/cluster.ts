// Cluster names in a fleet (several clusters on one Redis and one Slack app): the rule for a name, and incident
// keys qualified by the cluster they belong to, so keys, Slack metadata and button values never collide between
// clusters posting into one channel.

/** A fleet member's name (RWX_CLUSTER_NAME with RWX_FLEET, `@CLUSTER` in commands): a DNS label. */
export const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Whether `s` is a valid fleet cluster name. */
export function isClusterName(s: string): boolean {
  return CLUSTER_NAME.test(s);
}

/** The key of `key` in cluster `cluster`: `prod-eu-1:rollout/kube-system/ebs-csi-node@2`. */
export function qualifyKey(cluster: string, key: string): string {
  return `${cluster}:${key}`;
}

/**
 * The cluster and key of a qualified key; `cluster` is undefined when the key carries none (a root posted before
 * the fleet was enabled). Cluster names hold no ':', so the first one separates them.
 */
export function splitKey(qualified: string): { cluster?: string; key: string } {
  const i = qualified.indexOf(':');
  if (i <= 0) return { key: qualified };
  const cluster = qualified.slice(0, i);
  return isClusterName(cluster) ? { cluster, key: qualified.slice(i + 1) } : { key: qualified };
}
