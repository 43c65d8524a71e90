// One active evaluator per cluster: a lease in Redis. Replicas that see the cluster differently (a watch that died
// silently, a partition from the API server) must not take turns writing their own view of an incident: two views
// edit the root back and forth (stuck count 6, 5, 7, 5...). Of the two ways out, a lease and freshness stamps on
// every record, the lease is chosen because it keeps ONE view writing at a time, which a per-record comparison
// cannot: the staler replica still decides alone which incidents exist and which cleared (absence is not a record
// it could compare against), and comparing resourceVersions across replicas needs both to have seen the same
// resource. The holder gives the lease up as soon as its own view is not known to be current (a watch not synced
// or stalled, the API unreachable), so a healthy standby takes over within one TTL; a crashed holder's lease
// expires within one TTL. Standbys keep watching and correlating (their cache stays warm for /rwx and a
// takeover), they only do not submit. Safety does not rest on timing alone: the holder checks the lease right
// before each submit, and the per-incident lock still serialises every Slack step. A replica restarted in place
// (kill -9, OOM) takes over the lease its dead predecessor held at once instead of waiting out the TTL, as it takes
// over its incident locks (src/notify/resume.ts): the lease names the replica the same way.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';

/** The lease as the serve loop uses it. */
export interface EvaluatorLease {
  /** This process's id in the lease (host, pid, random). */
  readonly id: string;
  /** Takes or extends the lease when `eligible`, else gives it up; whether this process holds it now. */
  renew(eligible: boolean): Promise<boolean>;
  /** Whether this process holds the lease right now (one Redis read). */
  holds(): Promise<boolean>;
  /** Whether any replica holds the lease (one that does sees the cluster); false when Redis does not answer. */
  taken(): Promise<boolean>;
  /** Gives the lease up if held (on shutdown: the standby takes over at once). */
  release(): Promise<void>;
  /**
   * Until when (wall ms) this process is sure to hold the lease: the time its last renewal that held it was sent,
   * plus the TTL (Redis counts the TTL from later); undefined once it gave the lease up or was refused it. A renewal
   * that got no answer changes nothing: the lease in Redis expires then, not before.
   */
  heldUntil(): number | undefined;
}

/** Default lease TTL: failover within this plus one tick. */
export const LEASE_TTL_MS = 10_000;

// Extend only our own lease; take it when free.
const RENEW = `
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
// Take the lease from the holder read (ARGV[3]) if it still holds it.
const TAKE = `if redis.call('GET', KEYS[1]) == ARGV[3] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

/** Who takes the lease: its id in it, and which holders are this replica's dead predecessors (taken over at once). */
export interface LeaseIdentity {
  id: string;
  predecessor(holder: string): boolean;
}

/**
 * A lease on `<prefix>:evaluator`. Redis errors count as not holding it (nothing can be submitted then anyway).
 * `who`: the notifier's lock identity (resume.ts); without it an id of host, pid and a random part, never a
 * predecessor's.
 */
export function redisEvaluatorLease(
  redis: Redis,
  prefix: string,
  ttlMs = LEASE_TTL_MS,
  who?: LeaseIdentity,
): EvaluatorLease {
  const key = `${prefix}:evaluator`;
  const id = who?.id ?? `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
  let heldUntil: number | undefined;
  // The script's answer (1 = held), or undefined when Redis did not answer.
  const run = async (script: string, ...args: (string | number)[]): Promise<boolean | undefined> => {
    try {
      return Number(await redis.eval(script, 1, key, ...args)) === 1;
    } catch {
      return undefined;
    }
  };
  const holder = async (): Promise<string | undefined> => {
    try {
      return (await redis.get(key)) ?? undefined;
    } catch {
      return undefined;
    }
  };
  // Extends or takes the lease, from a dead predecessor of this replica too; undefined when Redis did not answer.
  const acquire = async (): Promise<boolean | undefined> => {
    const held = await run(RENEW, id, ttlMs);
    if (held !== false) return held;
    const cur = await holder();
    return cur !== undefined && who?.predecessor(cur) === true ? run(TAKE, id, ttlMs, cur) : false;
  };
  const renew = async (): Promise<boolean> => {
    const sent = Date.now();
    const held = await acquire();
    if (held !== undefined) heldUntil = held ? sent + ttlMs : undefined;
    return held ?? false;
  };
  const release = async (): Promise<void> => {
    if ((await run(RELEASE, id)) !== undefined) heldUntil = undefined;
  };
  return {
    id,
    renew: (eligible) => (eligible ? renew() : release().then(() => false)),
    holds: async () => (await holder()) === id,
    taken: async () => {
      try {
        return (await redis.exists(key)) === 1;
      } catch {
        return false;
      }
    },
    release,
    heldUntil: () => heldUntil,
  };
}
