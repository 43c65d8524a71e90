// One cluster per key prefix, outside a fleet. Two bots of different clusters on one Redis with the same
// RWX_REDIS_PREFIX (an easy mistake: "we already have a Redis") share one evaluator lease and one set of records:
// one cluster's incidents are never posted (its bot stays standby) and /rwx about a node of one is answered by the
// other. So each bot claims the prefix for its cluster name (`<prefix>:cluster`, refreshed on every lease renewal,
// expiring CLAIM_TTL_MS after its cluster's last bot stopped): a bot that finds another cluster's claim refuses to
// start, and one that finds it later (Redis came back empty and the other claimed first) stops evaluating, says so
// in one line and on /readyz. Two clusters both without RWX_CLUSTER_NAME cannot be told apart (docs/fleet.md).
import type { Redis } from 'ioredis';
import { RwxError } from '../errors.js';
import type { EvaluatorLease } from './lease.js';

/** How long a claim outlives its cluster's last renewal (a renamed cluster waits this long, or deletes the key). */
export const CLAIM_TTL_MS = 60_000;

// Claims the prefix for ARGV[1] unless another name holds it: that name, or false when the claim is ours now.
const CLAIM = `local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return cur end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

/** The claim of one prefix for one cluster. */
export interface ClusterClaim {
  /** Claims (or keeps) the prefix; the other cluster's name when another holds it, undefined when ours or unknown. */
  refresh(): Promise<string | undefined>;
  /** At start: throws RwxError CONFIG naming both clusters and the fix when another cluster holds the prefix. */
  check(): Promise<void>;
  /** The readiness probe: true, or the clash in one line. */
  probe(): Promise<true | string>;
  /** `lease`, refused while another cluster holds the prefix (logged once per clash). */
  guard(lease: EvaluatorLease, log: { error(obj: object, msg: string): void }): EvaluatorLease;
}

const shown = (name: string): string => (name === '' ? 'a cluster without RWX_CLUSTER_NAME' : `"${name}"`);

/** The one line a clash is told in: both clusters, the prefix, and the fix. */
export function clashText(prefix: string, other: string, own: string): string {
  return (
    `another cluster, ${shown(other)}, writes under RWX_REDIS_PREFIX "${prefix}" on this Redis and this one is ` +
    `${shown(own)}: their incidents and /rwx answers would mix. Give each cluster its own RWX_REDIS_PREFIX, ` +
    `or set RWX_FLEET=true (with RWX_CLUSTER_NAME) on every cluster to share one Redis as a fleet`
  );
}

/** The claim of `prefix` for cluster `name` ('' when RWX_CLUSTER_NAME is unset). */
export function clusterClaim(redis: Redis, prefix: string, name: string, ttlMs = CLAIM_TTL_MS): ClusterClaim {
  const key = `${prefix}:cluster`;
  let clash: string | undefined;
  const refresh = async (): Promise<string | undefined> => {
    try {
      const other = await redis.eval(CLAIM, 1, key, name, ttlMs);
      clash = typeof other === 'string' ? other : undefined;
    } catch {
      // Redis not answering is told by its own probe; the last answer stands.
    }
    return clash;
  };
  return {
    refresh,
    async check() {
      const other = await refresh();
      if (other !== undefined) throw new RwxError('CONFIG', clashText(prefix, other, name));
    },
    probe: async () => (clash === undefined ? true : clashText(prefix, clash, name)),
    guard(lease, log) {
      let told: string | undefined;
      const clashing = async (): Promise<boolean> => {
        const other = await refresh();
        if (other !== undefined && told !== other) log.error({ other, prefix }, clashText(prefix, other, name));
        told = other;
        return other !== undefined;
      };
      return {
        ...lease,
        renew: async (eligible) => ((await clashing()) ? lease.renew(false) : lease.renew(eligible)),
        holds: async () => clash === undefined && (await lease.holds()),
      };
    },
  };
}
