// The Redis part of Config and what reads it without validating anything: its types, where it is in words, and a
// prefix's hash tag. Apart from the schema (redis.ts) so the read commands that open Redis do not load zod.

/** One host:port of a Sentinel or Cluster seed list. */
export interface HostPort {
  host: string;
  port: number;
}

/** The Redis part of Config. Exactly one of `url` (non-empty), `sentinel` and `cluster` says where it is. */
export interface RedisConfig {
  /** REDIS_URL for one server; '' with Sentinel or Cluster. */
  url: string;
  /** RWX_REDIS_PREFIX; with Cluster always holding a hash tag (`{rwx}`), so every key of the bot shares one slot. */
  prefix: string;
  /** `password` from REDIS_PASSWORD (REDIS_URL then has none). */
  password?: string;
  /** REDIS_USERNAME: an ACL user (REDIS_URL then has none). */
  username?: string;
  /** REDIS_SENTINELS, REDIS_SENTINEL_NAME, REDIS_SENTINEL_PASSWORD. */
  sentinel?: { nodes: readonly HostPort[]; name: string; password?: string };
  /** REDIS_CLUSTER_NODES: the seeds; the client learns the rest of the cluster from them. */
  cluster?: { nodes: readonly HostPort[] };
  /** REDIS_TLS=true (or a rediss:// URL); `caFile` from REDIS_TLS_CA_FILE, else the system's CAs. */
  tls?: { caFile?: string };
}

/** A hash tag in a key prefix: Redis Cluster hashes only the part between the first `{` and the next `}`. */
export function hashTagOf(prefix: string): string | undefined {
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix.slice(open + 1, close) : undefined;
}

/** Where Redis is, for a log line or an error: the masked URL, or the topology and its seeds. */
export function describeRedis(r: RedisConfig, maskUrl: (url: string) => string): string {
  const list = (nodes: readonly HostPort[]): string => nodes.map((n) => `${n.host}:${n.port}`).join(',');
  if (r.sentinel) return `Sentinel primary "${r.sentinel.name}" via ${list(r.sentinel.nodes)}`;
  if (r.cluster) return `Redis Cluster via ${list(r.cluster.nodes)}`;
  return maskUrl(r.url);
}
