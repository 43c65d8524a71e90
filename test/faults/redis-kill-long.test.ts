// Redis killed for 40 s, longer than the 30 s TTL of the incident lock and of BullMQ's job lock, while a step is in
// flight (a root edit hanging in Slack) and with a second change made meanwhile: both locks have expired when Redis
// comes back with its append-only file, and the step, its job and the change made during the outage must all
// still go through, once and in order, within 10 s of Redis answering. The checks are outage() in redis-outage.ts.
import { afterEach, describe, it } from 'vitest';
import { redisServerTool } from './own-redis.js';
import { cleanUp, outage } from './redis-outage.js';

afterEach(cleanUp);

describe.runIf(redisServerTool.run)(`Redis killed past the lock TTLs, with persistence${redisServerTool.note}`, () => {
  it('SIGKILL for 40 s with a step in flight: no duplicate, no lost change, back to work within 10 s', async () => {
    await outage('SIGKILL', 40_000, { inFlight: true });
  }, 100_000);
});
