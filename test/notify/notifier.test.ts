// The notifier on real Redis (BullMQ) against the fake Slack over HTTP (real-notifier.ts), timers of a few ms;
// timer logic itself is tested on a ManualClock.
import { describe, expect, it } from 'vitest';
import type { Notifier, createNotifier } from '../../src/notify/notifier.js';
import type { IncidentStore } from '../../src/store/incident-store.js';
import { RedisIncidentStore } from '../../src/store/redis-store.js';
import { realNotifiers } from './real-notifier.js';
import { rolloutIncident } from '../render/incident-fixtures.js';
import { replyingOf, tsOf } from './harness.js';

const KEY = 'rollout/kube-system/ebs-csi-node@2';
const t = realNotifiers();
const notifier = (over: Partial<Parameters<typeof createNotifier>[0]> = {}): Notifier => t.notifier(over);

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
    await expect.poll(() => t.fake.roots().length, { timeout: 10_000, interval: 20 }).toBe(1);
    await expect.poll(() => t.fake.replies(t.fake.roots()[0]!.ts).length, { timeout: 10_000, interval: 20 }).toBe(1);
    await settled(a);
    const root = t.fake.roots()[0]!;
    expect(root.metadata).toEqual({ event_type: 'rwx_incident', event_payload: { key: KEY } });
    expect(t.fake.callsOf('chat.postMessage').every((c) => c.token === 'xoxb-test-token')).toBe(true);

    const changed = rolloutIncident([{ node: 'node-50', pod: 'search-new' }]);
    await Promise.all([a.submit([changed], Date.now()), b.submit([changed], Date.now())]);
    await expect.poll(() => root.edits, { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(1);
    await settled(a);
    expect(t.fake.roots()).toHaveLength(1);
    expect(JSON.stringify(root.blocks)).toContain('Stuck on 5 nodes');
    expect(t.fake.replies(root.ts).filter((m) => m.text.endsWith(`Changed: ${changed.summary}`))).toHaveLength(1);
    expect(tsOf(await a.store.get(KEY))).toBe(root.ts);
  });

  it('stages racing on two notifiers over one Redis (lock + record) still make one root', async () => {
    const a = notifier({ worker: false, timers: { groupWait: 0 } });
    const b = notifier({ worker: false, timers: { groupWait: 0 } });
    await a.submit([rolloutIncident()], Date.now());
    const outcomes = await Promise.all([a.process(KEY), b.process(KEY), a.process(KEY), b.process(KEY)]);
    // Whoever lost the lock retries later and finds nothing left to post.
    for (const n of [a, b]) await n.process(KEY);
    expect(t.fake.roots()).toHaveLength(1);
    expect(t.fake.replies(t.fake.roots()[0]!.ts)).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind !== 'locked').flatMap((o) => ('steps' in o ? o.steps : []))).toEqual([
      'post-root',
      'post-evidence',
    ]);
  });

  it('recovery posts the resolution in the thread and closes the record', async () => {
    const n = notifier();
    await n.submit([rolloutIncident()], Date.now());
    await expect.poll(() => t.fake.roots().length, { timeout: 10_000, interval: 20 }).toBe(1);
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
      .poll(() => t.fake.replies(t.fake.roots()[0]!.ts).some((m) => m.text.startsWith('Resolved')), {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(true);
    await settled(n);
    expect(await n.store.listOpen()).toEqual([]);
    expect(t.fake.roots()[0]!.text).toContain('ebs-csi-node');
  });

  it('an evaluation that lands as its job finishes is not put off until that job wakes up', async () => {
    // The job reads the record, finds nothing to do before repeat_interval, and moves itself to delayed; an
    // evaluation written between that read and the move (here: just before the lock is released) must still run.
    let clearNow = false;
    const real = new RedisIncidentStore(t.redis, t.prefix);
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
    await expect.poll(() => t.fake.roots().length, { timeout: 10_000, interval: 20 }).toBe(1);
    await settled(n);
    clearNow = true;
    await n.submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])], Date.now());
    await expect
      .poll(() => t.fake.replies(t.fake.roots()[0]!.ts).some((m) => m.text.startsWith('Resolved')), {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(true);
  });

  it('a 429 delays the job by Retry-After and then posts once', async () => {
    t.fake.rateLimit('chat.postMessage', 1, 1);
    const n = notifier();
    await n.submit([rolloutIncident()], Date.now());
    await expect.poll(() => t.fake.roots().length, { timeout: 10_000, interval: 50 }).toBe(1);
    await settled(n);
    expect(t.fake.roots()).toHaveLength(1);
    // The first call got 429 (the job was delayed, not failed); then the root and its evidence reply.
    expect(t.fake.callsOf('chat.postMessage').length).toBe(3); // 429, root, evidence
  });

  it('invalid_auth is not retried', async () => {
    t.fake.platformError('chat.postMessage', 'invalid_auth', 5);
    const n = notifier({ attempts: 5 });
    await n.submit([rolloutIncident()], Date.now());
    await expect.poll(() => t.fake.callsOf('chat.postMessage').length, { timeout: 10_000, interval: 20 }).toBe(1);
    await settled(n);
    expect(t.fake.callsOf('chat.postMessage')).toHaveLength(1);
    expect(t.fake.roots()).toHaveLength(0);
    expect(tsOf(await n.store.get(KEY))).toBeUndefined();
  });

  it('a crash after Slack posted the root (500 after handling) never makes a second root', async () => {
    t.fake.failAfterHandling('chat.postMessage', 1);
    const n = notifier();
    await n.submit([rolloutIncident()], Date.now());
    await expect
      .poll(async () => (await n.store.get(KEY))?.lifecycle.phase, { timeout: 10_000, interval: 20 })
      .toBe('open');
    await settled(n);
    expect(t.fake.roots()).toHaveLength(1);
    expect(t.fake.callsOf('conversations.history').length).toBeGreaterThanOrEqual(1);
    expect(tsOf(await n.store.get(KEY))).toBe(t.fake.roots()[0]!.ts);
  });

  it('a crash after Slack posted the evidence reply (500 after handling) never makes a second one', async () => {
    t.fake.pass('chat.postMessage'); // the root
    t.fake.failAfterHandling('chat.postMessage', 1); // the evidence reply
    const n = notifier();
    await n.submit([rolloutIncident()], Date.now());
    await expect
      .poll(async () => (await n.store.get(KEY))?.lifecycle.phase, { timeout: 10_000, interval: 20 })
      .toBe('open');
    await settled(n);
    expect(t.fake.roots()).toHaveLength(1);
    const replies = t.fake.replies(t.fake.roots()[0]!.ts);
    expect(replies.map((m) => m.metadata)).toEqual([
      { event_type: 'rwx_incident', event_payload: { key: KEY, reply: 'evidence' } },
    ]);
    expect(t.fake.callsOf('conversations.replies')).toHaveLength(1);
    expect(replyingOf(await n.store.get(KEY))).toBeUndefined();
  });
});
