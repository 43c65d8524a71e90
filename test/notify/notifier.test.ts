// The notifier on real Redis (BullMQ) against the fake Slack over HTTP, through the real WebClient adapter.
// BullMQ delays are real time, so the timers here are a few ms; timer logic itself is tested on a ManualClock.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Notifier, createNotifier } from '../../src/notify/notifier.js';
import type { IncidentStore } from '../../src/store/incident-store.js';
import { RedisIncidentStore } from '../../src/store/redis-store.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import { type FakeSlack, startFakeSlack } from '../support/fake-slack.js';
import { rolloutIncident } from '../render/incident-fixtures.js';
import { replyingOf, tsOf } from './harness.js';

const KEY = 'rollout/kube-system/ebs-csi-node@2';
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
let fake: FakeSlack;
let prefix: string;
const notifiers: Notifier[] = [];

beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => {
  await fake.close();
  await redis.quit();
});
beforeEach(() => {
  prefix = `rwx-test-${randomUUID()}`;
  fake.reset();
});
afterEach(async () => {
  await Promise.all(notifiers.splice(0).map((n) => n.close()));
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
});

function notifier(over: Partial<Parameters<typeof createNotifier>[0]> = {}): Notifier {
  const n = createNotifier({
    redis,
    prefix,
    channel: 'C0INCIDENTS',
    slack: createWebSlackApi({ token: 'xoxb-test-token', slackApiUrl: fake.apiUrl }),
    timers: { groupWait: 20, groupInterval: 20, repeatInterval: 3_600_000, keepFiring: 0 },
    backoffMs: 10,
    lockRetryMs: 10,
    ...over,
  });
  notifiers.push(n);
  return n;
}

const settled = async (n: Notifier): Promise<void> => {
  await expect.poll(() => n.queueDepth(), { timeout: 10_000, interval: 20 }).toBe(0);
};

describe('createNotifier', () => {
  it('two workers on one Redis, concurrent submits: one root, one evidence reply; a change edits it', async () => {
    const a = notifier();
    const b = notifier();
    const now = Date.now();
    await Promise.all([
      a.submit([rolloutIncident()], now),
      b.submit([rolloutIncident()], now),
      a.submit([rolloutIncident()], now),
    ]);
    await expect.poll(() => fake.roots().length, { timeout: 10_000, interval: 20 }).toBe(1);
    await expect.poll(() => fake.replies(fake.roots()[0]!.ts).length, { timeout: 10_000, interval: 20 }).toBe(1);
    await settled(a);
    const root = fake.roots()[0]!;
    expect(root.metadata).toEqual({ event_type: 'rwx_incident', event_payload: { key: KEY } });
    expect(fake.callsOf('chat.postMessage').every((c) => c.token === 'xoxb-test-token')).toBe(true);

    const changed = rolloutIncident([{ node: 'node-50', pod: 'search-new' }]);
    await Promise.all([a.submit([changed], Date.now()), b.submit([changed], Date.now())]);
    await expect.poll(() => root.edits, { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(1);
    await settled(a);
    expect(fake.roots()).toHaveLength(1);
    expect(JSON.stringify(root.blocks)).toContain('Stuck on 5 nodes');
    expect(fake.replies(root.ts).filter((m) => m.text.endsWith(`Changed: ${changed.summary}`))).toHaveLength(1);
    expect(tsOf(await a.store.get(KEY))).toBe(root.ts);
  });

  it('stages racing on two notifiers over one Redis (lock + record) still make one root', async () => {
    const a = notifier({ worker: false, timers: { groupWait: 0 } });
    const b = notifier({ worker: false, timers: { groupWait: 0 } });
    await a.submit([rolloutIncident()], Date.now());
    const outcomes = await Promise.all([a.process(KEY), b.process(KEY), a.process(KEY), b.process(KEY)]);
    // Whoever lost the lock retries later and finds nothing left to post.
    for (const n of [a, b]) await n.process(KEY);
    expect(fake.roots()).toHaveLength(1);
    expect(fake.replies(fake.roots()[0]!.ts)).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind !== 'locked').flatMap((o) => ('steps' in o ? o.steps : []))).toEqual([
      'post-root',
      'post-evidence',
    ]);
  });

  it('recovery posts the resolution in the thread and closes the record', async () => {
    const n = notifier();
    await n.submit([rolloutIncident()], Date.now());
    await expect.poll(() => fake.roots().length, { timeout: 10_000, interval: 20 }).toBe(1);
    await settled(n);
    const facts = new Map([
      [
        KEY,
        {
          recovered: ['platform/postgres-2'],
          deleted: ['search/search-7d9f-abcde'],
          cronJobs: [{ cronJob: 'data/nightly-backup', completedSince: true }],
        },
      ],
    ]);
    await n.submit([], Date.now(), facts);
    await expect
      .poll(() => fake.replies(fake.roots()[0]!.ts).some((m) => m.text.startsWith('Resolved')), {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(true);
    await settled(n);
    expect(await n.store.listOpen()).toEqual([]);
    expect(fake.roots()[0]!.text).toContain('ebs-csi-node');
  });

  it('an evaluation that lands as its job finishes is not put off until that job wakes up', async () => {
    // The job reads the record, finds nothing to do before repeat_interval, and moves itself to delayed; an
    // evaluation written between that read and the move (here: just before the lock is released) must still run.
    let clearNow = false;
    const real = new RedisIncidentStore(redis, prefix);
    const store: IncidentStore = Object.assign(Object.create(real) as IncidentStore, {
      unlock: async (key: string, token: string) => {
        if (clearNow) {
          clearNow = false;
          await n.submit([], Date.now());
        }
        return real.unlock(key, token);
      },
    });
    const n = notifier({ store });
    await n.submit([rolloutIncident()], Date.now());
    await expect.poll(() => fake.roots().length, { timeout: 10_000, interval: 20 }).toBe(1);
    await settled(n);
    clearNow = true;
    await n.submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])], Date.now());
    await expect
      .poll(() => fake.replies(fake.roots()[0]!.ts).some((m) => m.text.startsWith('Resolved')), {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(true);
  });

  it('a 429 delays the job by Retry-After and then posts once', async () => {
    fake.rateLimit('chat.postMessage', 1, 1);
    const n = notifier();
    await n.submit([rolloutIncident()], Date.now());
    await expect.poll(() => fake.roots().length, { timeout: 10_000, interval: 50 }).toBe(1);
    await settled(n);
    expect(fake.roots()).toHaveLength(1);
    // The first call got 429 (the job was delayed, not failed); then the root and its evidence reply.
    expect(fake.callsOf('chat.postMessage').length).toBe(3); // 429, root, evidence
  });

  it('invalid_auth is not retried', async () => {
    fake.platformError('chat.postMessage', 'invalid_auth', 5);
    const n = notifier({ attempts: 5 });
    await n.submit([rolloutIncident()], Date.now());
    await expect.poll(() => fake.callsOf('chat.postMessage').length, { timeout: 10_000, interval: 20 }).toBe(1);
    await settled(n);
    expect(fake.callsOf('chat.postMessage')).toHaveLength(1);
    expect(fake.roots()).toHaveLength(0);
    expect(tsOf(await n.store.get(KEY))).toBeUndefined();
  });

  it('a crash after Slack posted the root (500 after handling) never makes a second root', async () => {
    fake.failAfterHandling('chat.postMessage', 1);
    const n = notifier();
    await n.submit([rolloutIncident()], Date.now());
    await expect
      .poll(async () => (await n.store.get(KEY))?.lifecycle.phase, { timeout: 10_000, interval: 20 })
      .toBe('open');
    await settled(n);
    expect(fake.roots()).toHaveLength(1);
    expect(fake.callsOf('conversations.history').length).toBeGreaterThanOrEqual(1);
    expect(tsOf(await n.store.get(KEY))).toBe(fake.roots()[0]!.ts);
  });

  it('a crash after Slack posted the evidence reply (500 after handling) never makes a second one', async () => {
    fake.pass('chat.postMessage'); // the root
    fake.failAfterHandling('chat.postMessage', 1); // the evidence reply
    const n = notifier();
    await n.submit([rolloutIncident()], Date.now());
    await expect
      .poll(async () => (await n.store.get(KEY))?.lifecycle.phase, { timeout: 10_000, interval: 20 })
      .toBe('open');
    await settled(n);
    expect(fake.roots()).toHaveLength(1);
    const replies = fake.replies(fake.roots()[0]!.ts);
    expect(replies.map((m) => m.metadata)).toEqual([
      { event_type: 'rwx_incident', event_payload: { key: KEY, reply: 'evidence' } },
    ]);
    expect(fake.callsOf('conversations.replies')).toHaveLength(1);
    expect(replyingOf(await n.store.get(KEY))).toBeUndefined();
  });
});
