// The evaluator lease on real Redis: taken when free, kept by its holder, and taken over at once only from this
// replica's dead predecessor (a restart in place), never from another replica, which keeps it until its TTL.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisEvaluatorLease } from '../../src/serve/lease.js';
import { REDIS_URL, cleanRedis } from './harness.js';

const prefix = `rwx-test-lease-${randomBytes(4).toString('hex')}`;
const redis = new Redis(REDIS_URL);
afterAll(async () => {
  redis.disconnect();
  await cleanRedis(prefix);
});

describe('redisEvaluatorLease', () => {
  it("takes over its dead predecessor's lease at once, and nobody else's", async () => {
    const key = `${prefix}:evaluator`;
    const restarted = redisEvaluatorLease(redis, prefix, 10_000, {
      id: 'rwx-7d9f#2.bb',
      predecessor: (holder) => holder === 'rwx-7d9f#1.aa',
    });
    await redis.set(key, 'rwx-5c4e#1.cc', 'PX', 10_000); // another replica, alive
    expect(await restarted.renew(true)).toBe(false);
    expect(await redis.get(key)).toBe('rwx-5c4e#1.cc');

    await redis.set(key, 'rwx-7d9f#1.aa', 'PX', 10_000); // the same pod before its restart
    expect(await restarted.renew(true)).toBe(true);
    expect(await restarted.holds()).toBe(true);
    expect(await redis.pttl(key)).toBeGreaterThan(9_000);

    // Without an identity (or not eligible) nothing is taken over.
    const plain = redisEvaluatorLease(redis, prefix, 10_000);
    expect(await plain.renew(true)).toBe(false);
    expect(await restarted.renew(false)).toBe(false);
    expect(await redis.exists(key)).toBe(0);
  });
});
