// Where the bot's Redis is: one server (REDIS_URL), a Sentinel-watched primary (REDIS_SENTINELS with
// REDIS_SENTINEL_NAME) or a Redis Cluster (REDIS_CLUSTER_NODES), with an ACL user, a password and TLS for any of
// them. The fields of the raw schema, the combinations that cannot start, and the Redis part of Config.
import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { ConfigKey } from './keys.js';
import { hashTagOf, type HostPort, type RedisConfig } from './redis-target.js';

export { describeRedis, hashTagOf, type HostPort, type RedisConfig } from './redis-target.js';

const HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?)$/;

/** `host:port,host:port` (env) or a YAML list of them. */
export const hostPorts = z
  .union([z.string(), z.array(z.string())], { error: 'expected host:port,host:port,...' })
  .optional()
  .transform((v, ctx) => {
    if (v === undefined) return undefined;
    const items = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
    const out: HostPort[] = [];
    for (const item of items) {
      const i = item.lastIndexOf(':');
      const host = item.slice(0, i);
      const port = Number(item.slice(i + 1));
      if (i < 1 || !HOST.test(host) || !Number.isInteger(port) || port < 1 || port > 65535) {
        ctx.addIssue({ code: 'custom', message: `"${item}" is not host:port (expected e.g. redis-0.redis:26379)` });
        return z.NEVER;
      }
      out.push({ host: host.replace(/^\[(.*)\]$/, '$1'), port });
    }
    return out.length ? out : undefined;
  });

/** The Redis values as the raw schema gives them. */
interface RawRedis {
  redisUrl?: string | undefined;
  redisPassword?: string | undefined;
  redisPrefix: string;
  redisUsername?: string | undefined;
  redisSentinels?: readonly HostPort[] | undefined;
  redisSentinelName?: string | undefined;
  redisSentinelPassword?: string | undefined;
  redisClusterNodes?: readonly HostPort[] | undefined;
  redisTls: boolean;
  redisTlsCaFile?: string | undefined;
}

/** Config.redis from validated raw values (the combinations were checked by redisProblems). */
export function redisConfig(r: RawRedis): RedisConfig {
  const tagged = r.redisClusterNodes && !hashTagOf(r.redisPrefix) ? `{${r.redisPrefix}}` : r.redisPrefix;
  const sentinel = r.redisSentinels && {
    nodes: r.redisSentinels,
    name: r.redisSentinelName ?? '',
    ...(r.redisSentinelPassword ? { password: r.redisSentinelPassword } : {}),
  };
  return {
    url: sentinel || r.redisClusterNodes ? '' : (r.redisUrl ?? ''),
    prefix: tagged,
    ...(r.redisPassword ? { password: r.redisPassword } : {}),
    ...(r.redisUsername ? { username: r.redisUsername } : {}),
    ...(sentinel ? { sentinel } : {}),
    ...(r.redisClusterNodes ? { cluster: { nodes: r.redisClusterNodes } } : {}),
    ...(r.redisTls || r.redisTlsCaFile ? { tls: r.redisTlsCaFile ? { caFile: r.redisTlsCaFile } : {} } : {}),
  };
}

const filled = (v: unknown): boolean => v !== undefined && v !== null && String(v).trim() !== '';

/**
 * The Redis combinations `rwx serve` cannot start with. `given`: the keys the file or the environment set (REDIS_URL
 * has a default, which Sentinel and Cluster replace; one given with them is a contradiction).
 */
export function redisProblems(raw: Record<string, unknown>, given: ReadonlySet<string>): [ConfigKey, string][] {
  const out: [ConfigKey, string][] = [];
  const sentinels = filled(raw.redisSentinels);
  const cluster = filled(raw.redisClusterNodes);
  if (sentinels && cluster) out.push(['redisClusterNodes', 'set with REDIS_SENTINELS: give one topology only']);
  if (given.has('redisUrl') && (sentinels || cluster)) {
    const other = sentinels ? 'REDIS_SENTINELS' : 'REDIS_CLUSTER_NODES';
    out.push(['redisUrl', `set with ${other}: give one topology only (REDIS_URL is for one server)`]);
  }
  if (sentinels && !filled(raw.redisSentinelName))
    out.push(['redisSentinelName', "required with REDIS_SENTINELS (the monitored primary's name, e.g. mymaster)"]);
  if (!sentinels && filled(raw.redisSentinelName)) out.push(['redisSentinelName', 'needs REDIS_SENTINELS']);
  if (!sentinels && filled(raw.redisSentinelPassword)) out.push(['redisSentinelPassword', 'needs REDIS_SENTINELS']);
  const file = filled(raw.redisTlsCaFile) ? String(raw.redisTlsCaFile).trim() : undefined;
  if (file !== undefined && !existsSync(file)) out.push(['redisTlsCaFile', `"${file}": no such file`]);
  out.push(...twiceInUrl(raw, 'password', 'redisPassword'));
  out.push(...twiceInUrl(raw, 'username', 'redisUsername'));
  return out;
}

/** A password (or user) given in REDIS_URL and in its own variable: which one is meant is not ours to guess. */
function twiceInUrl(
  raw: Record<string, unknown>,
  part: 'password' | 'username',
  key: ConfigKey,
): [ConfigKey, string][] {
  if (!filled(raw[key])) return [];
  try {
    if (!new URL(String(raw.redisUrl ?? ''))[part]) return [];
  } catch {
    return []; // a malformed REDIS_URL is reported on its own
  }
  return [
    [key, `REDIS_URL already carries a ${part === 'password' ? 'password' : 'user'}: give it in one of the two only`],
  ];
}
