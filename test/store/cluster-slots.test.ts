// Every multi-key operation of the bot is slot-safe on a real Redis Cluster of three primaries: the store's
// scripts and transactions, the evaluator lease, the fleet's limiter, names and sightings, and a BullMQ queue with
// its worker, all under the hash-tagged prefix Config gives in Cluster mode. The control: the same store under an
// untagged prefix fails with CROSSSLOT, so a key set that spans slots cannot pass unnoticed.
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { fleetKeys } from '../../src/fleet/keys.js';
import { clustersHaving, publishNames } from '../../src/fleet/names.js';
import { redisChannelLimiter } from '../../src/fleet/rate-limit.js';
import { Sightings } from '../../src/fleet/sightings.js';
import { redisEvaluatorLease } from '../../src/serve/lease.js';
import { connectRedis } from '../../src/serve/redis.js';
import { RedisIncidentStore } from '../../src/store/redis-store.js';
import { clusterSet, type ClusterSet } from '../faults/redis-ha.js';
import { redisServerTool } from '../faults/own-redis.js';
import { until } from '../support/until.js';
import { record } from '../notify/harness.js';

let set: ClusterSet | undefined;
let redis: Redis | undefined;
let prefix = '';

beforeAll(async () => {
  if (!redisServerTool.run) return;
  redisServerTool.check();
  set = await clusterSet();
  const config = loadConfig({
    env: { ...set.env, RWX_REDIS_PREFIX: `rwx-slots-${randomBytes(3).toString('hex')}` },
    slack: 'optional',
  });
  prefix = config.redis.prefix;
  redis = await connectRedis(config.redis, { timeoutMs: 10_000 });
}, 120_000);
afterAll(async () => {
  redis?.disconnect();
  await set?.stop();
});

describe.runIf(redisServerTool.run)(`slot safety on a Redis Cluster of three primaries${redisServerTool.note}`, () => {
  it('the prefix Config gives is hash-tagged', () => {
    expect(prefix).toMatch(/^\{rwx-slots-[0-9a-f]{6}\}$/);
  });

  it('the incident store: create, patch, ack, lock, close, delete', async () => {
    const store = new RedisIncidentStore(redis!, prefix);
    const r = record({ key: 'k1', createdAt: 1000 });
    expect(await store.create(r)).toBe(true);
    expect(await store.patch('k1', { lifecycle: { phase: 'pending' } })).toBe(true);
    expect(await store.setAckIfAbsent('k1', { user: 'U1', at: 2 })).toBe(true);
    const token = await store.tryLock('k1', 5_000);
    expect(token).toBeDefined();
    await store.unlock('k1', token!);
    expect((await store.get('k1'))?.lifecycle.phase).toBe('pending');
    expect(await store.listOpen()).toEqual(['k1']);
    await store.close('k1', 60_000);
    expect(await store.listOpen()).toEqual([]);
    await store.delete('k1');
    expect(await store.get('k1')).toBeUndefined();
  });

  it('the evaluator lease, the channel limiter, published names and sightings', async () => {
    const lease = redisEvaluatorLease(redis!, prefix);
    expect(await lease.renew(true)).toBe(true);
    expect(await lease.holds()).toBe(true);
    await lease.release();
    const keys = fleetKeys(prefix);
    await redisChannelLimiter(redis!, keys.rate, { intervalMs: 1 }).take('C1');
    await publishNames(redis!, keys, 'prod-a', { nodes: ['worker-1'], claims: [], namespaces: ['data'] });
    expect(await clustersHaving(redis!, keys, ['prod-a'], 'nodes', 'worker-1')).toEqual({ has: ['prod-a'], maybe: [] });
    const sightings = new Sightings(redis!, keys.fingerprints);
    const fp = { id: 'fp1' } as Parameters<Sightings['report']>[0];
    await sightings.report(fp, { cluster: 'prod-a' } as Parameters<Sightings['report']>[1], 1);
    expect((await sightings.of('fp1')).map((s) => s.cluster)).toEqual(['prod-a']);
  });

  it('a BullMQ queue and worker under the prefix', async () => {
    const done: string[] = [];
    const queue = new Queue('notify', { connection: redis!.duplicate({ maxRetriesPerRequest: null }), prefix });
    const worker = new Worker('notify', async (job) => void done.push(String(job.data.key)), {
      connection: redis!.duplicate({ maxRetriesPerRequest: null }),
      prefix,
    });
    try {
      await queue.add('step', { key: 'k2' }, { delay: 50 });
      await until(() => done.length === 1, 'the job processed', 20_000);
      expect(done).toEqual(['k2']);
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 30_000);

  it('control: the store under an untagged prefix is refused with CROSSSLOT', async () => {
    const store = new RedisIncidentStore(redis!, `rwx-untagged-${randomBytes(3).toString('hex')}`);
    await expect(store.create(record({ key: 'k3', createdAt: 1 }))).rejects.toThrow(/CROSSSLOT/);
  });
});
