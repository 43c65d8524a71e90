// §3 scale: three clusters open their incidents at once into one channel, and the fake Slack enforces Slack's
// per-channel limit (one chat.postMessage per second). The fleet's shared limiter spaces the posts so that not one
// is refused with 429; the figure printed is the posting rate the channel saw.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RwxError } from '../../src/errors.js';
import { redisChannelLimiter } from '../../src/fleet/rate-limit.js';
import { REDIS_URL } from '../serve/harness.js';
import { until } from '../support/until.js';
import { scenarioPath } from '../support/sim.js';
import { CHANNEL, startFleet, type Fleet } from './harness.js';

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet(
    [
      { name: 'staging-1', scenario: scenarioPath('propagation-loss') },
      { name: 'prod-eu-1', scenario: scenarioPath('rwx-strands') },
      { name: 'prod-us-1', scenario: scenarioPath('node-fault') },
    ],
    { channelLimit: true },
  );
}, 60_000);

afterAll(async () => {
  await fleet?.close();
});

describe('a burst of incidents from three clusters into one channel', () => {
  it('gets no 429 from Slack: every post waits for its turn in the shared limiter', async () => {
    await fleet.advance(1_000); // past group_wait everywhere at once: every incident posts its root and evidence
    const clusters = ['staging-1', 'prod-eu-1', 'prod-us-1'];
    const posted = () => fleet.slack.callsOf('chat.postMessage').filter((c) => c.handled);
    await until(
      () => clusters.every((c) => fleet.slack.roots(CHANNEL).some((m) => m.text.includes(`[${c}]`))),
      'a root from every cluster',
      60_000,
    );
    // Let the evidence replies drain too (quiet for 3 s).
    let last = -1;
    await until(
      async () => {
        const n = posted().length;
        const quiet = n === last;
        last = n;
        if (!quiet) await new Promise((r) => setTimeout(r, 3000));
        return quiet;
      },
      'the posts to drain',
      90_000,
    );
    const calls = posted();
    expect(fleet.slack.answered(429)).toEqual([]);
    expect(fleet.slack.channelLimited.get(CHANNEL) ?? 0).toBe(0);
    expect(calls.length).toBeGreaterThanOrEqual(6);
    const first = calls[0]!.at;
    const end = calls[calls.length - 1]!.at;
    const rate = ((calls.length - 1) * 1000) / Math.max(1, end - first);
    console.log(`fleet burst: ${calls.length} posts from 3 clusters in ${end - first} ms: ${rate.toFixed(2)} msg/s`);
  }, 120_000);
});

describe('the limiter', () => {
  it('hands a post back as rate limited, with the wait as Retry-After, rather than waiting too long', async () => {
    const redis = new Redis(REDIS_URL);
    const key = `${fleet.base}:fleet:rate:C0UNIT`;
    const limiter = redisChannelLimiter(redis, () => key, { intervalMs: 60_000, maxWaitMs: 1000 });
    try {
      await limiter.take('C0UNIT'); // granted: the channel was idle
      const e = await limiter.take('C0UNIT').catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RwxError);
      expect((e as RwxError).code).toBe('SLACK_RATE_LIMITED');
      expect((e as RwxError).retryAfterSeconds).toBeGreaterThanOrEqual(59);
    } finally {
      await redis.quit();
    }
  });
});
