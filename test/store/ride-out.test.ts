// BullMQ with our worker options against the real Redis: a notifier job whose lock is lost twice (a crash, a Redis
// outage longer than the lock) runs again and completes; with BullMQ's default it is failed, and its incident's
// work is dropped until the next change.
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { idempotentWorkerOptions, workerOptions } from '../../src/store/ride-out.js';
import { REDIS_URL, cleanRedis } from '../serve/harness.js';
import { until } from '../support/until.js';

const prefixes: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  for (const p of prefixes.splice(0)) await cleanRedis(p);
});

/** Runs one job whose first `stalls` runs hang while its lock is deleted; resolves with how the job ended. */
async function stalledTwice(options: object): Promise<string> {
  const prefix = `rwx-ride-out-${randomBytes(4).toString('hex')}`;
  prefixes.push(prefix);
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('q', { connection: redis, prefix });
  let runs = 0;
  const worker = new Worker(
    'q',
    async (job) => {
      if (++runs <= 2) {
        // The process that held the job is gone: its lock expires, nothing renews it.
        await redis.del(`${prefix}:q:${job.id}:lock`);
        await new Promise(() => undefined);
      }
      return 'done';
    },
    { connection: redis.duplicate({ maxRetriesPerRequest: null }), prefix, concurrency: 4, ...options },
  );
  closers.push(
    () => redis.quit(),
    () => queue.close(),
    () => worker.close(true),
  );
  const ended = new Promise<string>((resolve) => {
    worker.on('completed', () => resolve('completed'));
    worker.on('failed', (_j, e) => resolve(`failed: ${e.message}`));
  });
  await queue.add('incident', {});
  await until(() => runs >= 1, 'the first run');
  return ended;
}

describe('worker options for idempotent jobs', () => {
  const fast = { stalledInterval: 300 };

  it('a job stalled twice runs again and completes', async () => {
    expect(await stalledTwice({ ...idempotentWorkerOptions, ...fast })).toBe('completed');
  });

  it("control: with BullMQ's stall limit the same job is failed", async () => {
    expect(await stalledTwice({ ...workerOptions, ...fast })).toMatch(/^failed: job stalled more than allowable limit/);
  });
});
