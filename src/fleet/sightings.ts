// Where each fingerprint was seen (Redis): one hash per fingerprint, cluster -> its sighting (which incident, its
// thread, whether it was rolled back there, and the order in which clusters first reported it). Bounded: the
// newest MAX_FINGERPRINTS fingerprints are kept, each for SIGHTING_TTL_MS after its last report.
import type { Redis } from 'ioredis';
import type { Fingerprint } from './fingerprint.js';

/** How many fingerprints the fleet keeps (the oldest are dropped). */
export const MAX_FINGERPRINTS = 500;
/** How long a fingerprint is kept after it was last reported. */
export const SIGHTING_TTL_MS = 30 * 86_400_000;

/** One cluster's report of a fingerprint. Plain JSON. */
export interface Sighting {
  cluster: string;
  /** The incident's qualified key. */
  key: string;
  /** Order of first report across the fleet (a Redis counter): lower saw it first. */
  seq: number;
  /** When first reported (the reporter's clock). */
  firstSeenAt: number;
  /** The changes as a person reads them. */
  summary: string;
  daemonSet: string;
  rolledBack: boolean;
  channel?: string;
  threadTs?: string;
}

/** Reads and writes sightings under `prefix` (FleetKeys.fingerprints). */
export class Sightings {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Every cluster's sighting of fingerprint `id`. */
  async of(id: string): Promise<Sighting[]> {
    const all = await this.redis.hgetall(`${this.prefix}:${id}`);
    return Object.values(all).flatMap((raw) => {
      try {
        const s = JSON.parse(raw) as Sighting;
        return typeof s.cluster === 'string' && typeof s.seq === 'number' ? [s] : [];
      } catch {
        return [];
      }
    });
  }

  /** Records `cluster`'s sighting, keeping its first seq and time when it had one. Returns what was recorded. */
  async report(fp: Fingerprint, s: Omit<Sighting, 'seq' | 'firstSeenAt'>, now: number): Promise<Sighting> {
    const key = `${this.prefix}:${fp.id}`;
    const old = (await this.of(fp.id)).find((x) => x.cluster === s.cluster);
    const seq = old?.seq ?? (await this.redis.incr(`${this.prefix}:seq`));
    const next: Sighting = { ...s, seq, firstSeenAt: old?.firstSeenAt ?? now };
    await this.redis
      .multi()
      .hset(key, s.cluster, JSON.stringify(next))
      .pexpire(key, SIGHTING_TTL_MS)
      .zadd(`${this.prefix}:ids`, now, fp.id)
      .zremrangebyrank(`${this.prefix}:ids`, 0, -(MAX_FINGERPRINTS + 1))
      .exec();
    return next;
  }

  /**
   * Runs `post` once across the fleet for `what` (a link, a warning): claimed first (so replicas do not both post),
   * marked done after it succeeded, released when it failed (the next evaluation tries again).
   */
  async once(what: string, post: () => Promise<void>): Promise<boolean> {
    const key = `${this.prefix}:once:${what}`;
    if ((await this.redis.set(key, 'claimed', 'PX', 60_000, 'NX')) !== 'OK') return false;
    try {
      await post();
    } catch (e) {
      await this.redis.del(key);
      throw e;
    }
    await this.redis.set(key, 'done', 'PX', SIGHTING_TTL_MS);
    return true;
  }
}
