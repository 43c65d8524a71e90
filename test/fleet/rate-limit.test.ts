// The fleet's per-channel limiter (rate-limit.ts) keys every chat.postMessage by the channel it posts in, so a team
// channel (RWX_TEAM_CHANNELS) takes its own turns: it never waits behind the incident channel, and its own posts are
// spaced like any channel's. Real Redis; an interval of a minute and no waiting in place make it deterministic.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { rateLimitedSlack, redisChannelLimiter } from '../../src/fleet/rate-limit.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { REDIS_URL, cleanRedis } from '../serve/harness.js';

const prefix = `rwx-test-rate-${randomBytes(4).toString('hex')}`;
const redis = new Redis(REDIS_URL);
afterAll(async () => {
  await redis.quit();
  await cleanRedis(prefix);
});

describe('the per-channel limiter', () => {
  it('gives each channel, team channels included, its own turns', async () => {
    const memory = new MemorySlack();
    const limiter = redisChannelLimiter(redis, (c) => `${prefix}:rate:${c}`, { intervalMs: 60_000, maxWaitMs: 0 });
    const slack = rateLimitedSlack(memory, limiter);
    await slack.postMessage({ channel: 'C0INCIDENT', text: 'incident root' });
    await slack.postMessage({ channel: 'C0PAY', text: 'team root' }); // not behind the incident channel's post
    await expect(slack.postMessage({ channel: 'C0PAY', text: 'team evidence' })).rejects.toMatchObject({
      code: 'SLACK_RATE_LIMITED',
    });
    expect(memory.messages.map((m) => m.channel)).toEqual(['C0INCIDENT', 'C0PAY']);
  });
});
