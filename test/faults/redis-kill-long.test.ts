// Redis killed for longer than RWX_LOCK_TTL, the time to live of the incident lock and of the notify job's BullMQ
// lock (lockDuration), while a step is in flight (a root edit hanging in Slack) and with a second change made
// meanwhile: both locks have expired when Redis comes back with its append-only file, and the step, its job and the
// change made during the outage must all still go through, once and in order, within 10 s of Redis answering. The
// checks are outage() in redis-outage.ts. Scaled from production (Slack request timeout 10 s, lock TTL 30 s) by
// configuration, keeping the production order: the hung Slack call gives up during the outage, then the locks
// expire, then Redis answers.
import { afterEach, describe, it } from 'vitest';
import { redisServerTool } from './own-redis.js';
import { cleanUp, outage } from './redis-outage.js';

afterEach(cleanUp);

/** RWX_SLACK_REQUEST_TIMEOUT of the bench: the hung edit gives up this long after it was sent, Redis gone by then. */
const SLACK_REQUEST_TIMEOUT_MS = 1_000;
/** RWX_LOCK_TTL of the bench: longer than the Slack request timeout, as the configuration requires. */
const LOCK_TTL_MS = 2_000;
/** Past the locks' TTL, counted from the kill (the locks were written just before). */
const OUTAGE_MS = LOCK_TTL_MS + 2_000;
/** RWX_BLIND_AFTER of the bench: shorter than the outage, so the channel is told once Redis is back. */
const BLIND_AFTER_MS = 2_000;

describe.runIf(redisServerTool.run)(`Redis killed past the lock TTLs, with persistence${redisServerTool.note}`, () => {
  it('SIGKILL past RWX_LOCK_TTL with a step in flight: no duplicate, no lost change, back to work within 10 s', async () => {
    await outage('SIGKILL', OUTAGE_MS, {
      inFlight: true,
      lockTtlMs: LOCK_TTL_MS,
      slackRequestTimeoutMs: SLACK_REQUEST_TIMEOUT_MS,
      blindAfterMs: BLIND_AFTER_MS,
    });
  }, 60_000);
});
