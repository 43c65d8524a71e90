// The ioredis client for each Redis topology of Config.redis: one server (REDIS_URL), a primary found through
// Sentinel (asked again after every lost connection, and told of a failover by the sentinels' +switch-master), or
// a Redis Cluster. ACL user, password and TLS apply to whichever it is. Nothing connects here (lazyConnect):
// connectRedis (redis.ts) connects and says what failed.
import { readFileSync } from 'node:fs';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisConfig } from '../config/redis-target.js';

/** What every connection of the bot shares, whatever the topology. */
function common(r: RedisConfig, timeoutMs: number): RedisOptions {
  const tls = r.tls ? { ...(r.tls.caFile ? { ca: readFileSync(r.tls.caFile) } : {}) } : undefined;
  return {
    ...(r.username ? { username: r.username } : {}),
    ...(r.password ? { password: r.password } : {}),
    ...(tls ? { tls } : {}),
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: timeoutMs,
    enableOfflineQueue: true,
  };
}

/**
 * A Cluster whose duplicate() takes a Redis's options, as the notifier and BullMQ call it
 * (`redis.duplicate({ maxRetriesPerRequest: null })`): they apply to every node's connection. Called with a node
 * list it is Cluster's own duplicate.
 */
class BotCluster extends Cluster {
  constructor(
    private readonly seeds: { host: string; port: number }[],
    private readonly seedOptions: ClusterOptions,
  ) {
    super(seeds, seedOptions);
  }
  override duplicate(over?: unknown, clusterOver?: ClusterOptions): Cluster {
    if (Array.isArray(over)) return super.duplicate(over, clusterOver);
    const redisOptions = { ...this.seedOptions.redisOptions, ...(over as RedisOptions | undefined) };
    return new BotCluster(this.seeds, { ...this.seedOptions, ...clusterOver, redisOptions });
  }
}

/**
 * The client for `r`, not connected. A Cluster is returned typed as Redis: the bot uses the commands, scripts,
 * MULTI, duplicate(options) and the connection events, which Cluster has with the same meaning once every key of
 * one command shares a slot (the prefix's hash tag, src/config/redis.ts). Throws on a malformed REDIS_URL.
 */
export function redisClient(r: RedisConfig, timeoutMs: number): Redis {
  const base = common(r, timeoutMs);
  if (r.sentinel) {
    return new Redis({
      ...base,
      sentinels: r.sentinel.nodes.map((n) => ({ host: n.host, port: n.port })),
      name: r.sentinel.name,
      ...(r.sentinel.password ? { sentinelPassword: r.sentinel.password } : {}),
      ...(base.tls ? { enableTLSForSentinelMode: true, sentinelTLS: base.tls } : {}),
      // Subscribe to the sentinels' +switch-master: move to the promoted replica at once, not at the next error.
      failoverDetector: true,
    });
  }
  if (r.cluster) {
    const { lazyConnect, enableOfflineQueue, ...redisOptions } = base;
    const cluster = new BotCluster(
      r.cluster.nodes.map((n) => ({ host: n.host, port: n.port })),
      { lazyConnect, enableOfflineQueue, redisOptions, slotsRefreshTimeout: timeoutMs, retryDelayOnFailover: 200 },
    );
    return cluster as unknown as Redis;
  }
  return new Redis(r.url, base);
}
