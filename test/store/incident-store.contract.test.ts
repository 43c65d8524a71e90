// One contract, two implementations: the in-memory fake must behave like the Redis store it stands in for.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { IncidentStore } from '../../src/store/incident-store.js';
import { MemoryIncidentStore } from '../support/memory-store.js';
import { RedisIncidentStore } from '../../src/store/redis-store.js';
import type { IncidentRecord } from '../../src/store/record.js';
import { record } from '../notify/harness.js';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: false });
afterAll(() => redis.quit());

async function removePrefix(prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
}

const base = (key: string): IncidentRecord => record({ key, createdAt: 1000 });
const thread = { ts: '1.2', sent: { hash: 'h1', at: 1000 } };

interface Subject {
  store: IncidentStore;
  /** Lets time pass for lock / record expiry (real ms for Redis, clock for memory). */
  expire(ms: number): Promise<void>;
}

const impls: [string, () => Promise<Subject> | Subject, (s: Subject) => Promise<void>][] = [
  [
    'memory',
    () => {
      const clock = new ManualClock(0);
      return { store: new MemoryIncidentStore(clock), expire: async (ms) => clock.advance(ms) };
    },
    async () => {},
  ],
  [
    'redis',
    () => {
      const prefix = `rwx-test-${randomUUID()}`;
      // Redis expiry is real time: the cases keep TTLs to a few ms and wait for them by polling (no fixed sleeps).
      const store = new RedisIncidentStore(redis, prefix);
      return Object.assign({ store, expire: async () => {} }, { prefix });
    },
    async (s) => removePrefix((s as unknown as { prefix: string }).prefix),
  ],
];

describe.each(impls)('IncidentStore contract: %s', (name, make, cleanup) => {
  let s: Subject;
  beforeEach(async () => {
    s = await make();
  });
  afterEach(async () => cleanup(s));

  it('creates once, reads back deep-equal, lists it open', async () => {
    expect(await s.store.create(base('k1'))).toBe(true);
    expect(await s.store.create({ ...base('k1'), channel: 'C2' })).toBe(false);
    expect(await s.store.get('k1')).toEqual(base('k1'));
    expect(await s.store.listOpen()).toEqual(['k1']);
    expect(await s.store.get('nope')).toBeUndefined();
  });

  it('patches fields independently; undefined removes; a missing record is not resurrected', async () => {
    await s.store.create({ ...base('k1'), buttons: { mute: { until: 5, by: 'U1' } } });
    expect(
      await s.store.patch('k1', {
        observed: { cleared: { at: 2000 } },
        lifecycle: { phase: 'open', thread },
        buttons: { mute: undefined },
      }),
    ).toBe(true);
    const r = await s.store.get('k1');
    expect(r?.lifecycle).toEqual({ phase: 'open', thread });
    expect(r?.observed.cleared).toEqual({ at: 2000 });
    expect(r?.observed.incident).toEqual(base('k1').observed.incident); // the fields not named stay
    expect(r?.buttons.mute).toBeUndefined();
    expect(r?.channel).toBe('C1');
    await s.store.patch('k1', { observed: { cleared: undefined } });
    expect((await s.store.get('k1'))?.observed.cleared).toBeUndefined();
    expect(await s.store.patch('gone', { lifecycle: { phase: 'pending' } })).toBe(false);
    expect(await s.store.get('gone')).toBeUndefined();
  });

  it('a reply marker is written with the lifecycle, then removed by the write that records the reply', async () => {
    await s.store.create(base('k1'));
    await s.store.patch('k1', { lifecycle: { phase: 'open', thread: { ...thread, replying: 'change:1700:abc' } } });
    expect((await s.store.get('k1'))?.lifecycle).toMatchObject({ thread: { replying: 'change:1700:abc' } });
    const next = { ts: '1.2', sent: { hash: 'h2', at: 2000 } };
    await s.store.patch('k1', { lifecycle: { phase: 'open', thread: next } });
    expect((await s.store.get('k1'))?.lifecycle).toEqual({ phase: 'open', thread: next });
  });

  it('keeps the first ack under double clicks', async () => {
    await s.store.create(base('k1'));
    expect(await s.store.setAckIfAbsent('k1', { user: 'U1', at: 1 })).toBe(true);
    expect(await s.store.setAckIfAbsent('k1', { user: 'U2', at: 2 })).toBe(false);
    expect((await s.store.get('k1'))?.buttons.ack).toEqual({ user: 'U1', at: 1 });
    expect(await s.store.setAckIfAbsent('missing', { user: 'U1', at: 1 })).toBe(false);
  });

  it('a claim is kept by its first owner, whose retries get the same answer; names are apart', async () => {
    expect(await s.store.claimOnce('hint:C1', 'k1')).toBe(true);
    expect(await s.store.claimOnce('hint:C1', 'k2')).toBe(false);
    expect(await s.store.claimOnce('hint:C1', 'k1')).toBe(true);
    expect(await s.store.claimOnce('hint:C2', 'k2')).toBe(true);
  });

  it('close drops from the open set but keeps the record; delete removes both', async () => {
    await s.store.create(base('k1'));
    await s.store.create(base('k2'));
    await s.store.close('k1', 60_000);
    expect(await s.store.listOpen()).toEqual(['k2']);
    expect((await s.store.get('k1'))?.key).toBe('k1');
    await s.store.delete('k2');
    expect(await s.store.listOpen()).toEqual([]);
    expect(await s.store.get('k2')).toBeUndefined();
  });

  it('lock: one holder at a time, released only by its token', async () => {
    const t1 = await s.store.tryLock('k1', 60_000);
    expect(t1).toBeTypeOf('string');
    expect(await s.store.tryLock('k1', 60_000)).toBeUndefined();
    await s.store.unlock('k1', 'not-the-token');
    expect(await s.store.tryLock('k1', 60_000)).toBeUndefined();
    await s.store.unlock('k1', t1!);
    expect(await s.store.tryLock('k1', 60_000)).toBeTypeOf('string');
  });

  it('lock expires after its TTL', async () => {
    expect(await s.store.tryLock('k1', name === 'redis' ? 20 : 1000)).toBeTypeOf('string');
    await s.expire(1000);
    await expect.poll(() => s.store.tryLock('k1', 1000), { timeout: 2000, interval: 10 }).toBeTypeOf('string');
  });
});
