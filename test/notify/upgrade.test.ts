// An upgrade over records the previous version left in Redis (its field-per-property hashes) must never post a
// second root or a second reply: each record is converted on first read, rewritten in the current layout, and its
// thread carries on. The records are written here exactly as the previous RedisIncidentStore wrote them.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { mergeHistory } from '../../src/domain/history.js';
import { membersOf } from '../../src/domain/members.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { type Notifier, createNotifier } from '../../src/notify/notifier.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import { incidentMetadata, replyMetadata } from '../../src/slack/api.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import type { LegacyRecord } from '../../src/store/migrate.js';
import { RedisIncidentStore } from '../../src/store/redis-store.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { startFakeSlack } from '../support/fake-slack.js';
import { H, KEY, M, S, stageDeps, tsOf } from './harness.js';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
afterAll(() => redis.quit());

let prefix: string;
let clock: ManualClock;
let slack: MemorySlack;
let deps: StepDeps;
beforeEach(() => {
  prefix = `rwx-test-${randomUUID()}`;
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  deps = stageDeps(clock, slack, new RedisIncidentStore(redis, prefix));
});
afterEach(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
});

const recordKey = (key = KEY): string => `${prefix}:incident:${key}`;

/** Writes a record the way the previous version did: one JSON value per property, and the key in the open set. */
async function writeLegacy(r: LegacyRecord): Promise<void> {
  const fields = Object.entries(r).filter(([, v]) => v !== undefined);
  await redis.hset(recordKey(r.key), ...fields.flatMap(([f, v]) => [f, JSON.stringify(v)]));
  await redis.sadd(`${prefix}:open`, r.key);
}

/** A previous-version record of the rollout incident, created at FIXTURE_NOW. */
function legacy(over: Partial<LegacyRecord> = {}): LegacyRecord {
  const incident = rolloutIncident();
  return {
    key: KEY,
    channel: 'C1',
    createdAt: FIXTURE_NOW,
    updatedAt: FIXTURE_NOW,
    incident,
    observedHash: 'hash-of-the-previous-version',
    history: mergeHistory(undefined, incident, FIXTURE_NOW).history,
    firing: true,
    ...over,
  };
}

/** The root and evidence reply the previous version posted, as Slack holds them. */
async function previousThread(): Promise<string> {
  const { ts } = await slack.postMessage({ channel: 'C1', text: 'root', metadata: incidentMetadata(KEY) });
  await slack.postMessage({ channel: 'C1', threadTs: ts, text: 'evidence', metadata: replyMetadata(KEY, 'evidence') });
  return ts;
}

const submit = (incidents = [rolloutIncident()]) =>
  recordEvaluation({ store: deps.store, channel: 'C1', groupWait: DEFAULT_TIMERS.groupWait }, incidents, clock.now());

describe('upgrade over previous-version records', () => {
  it('an open thread carries on: no second root, the next change edits it, the resolution goes in it', async () => {
    const ts = await previousThread();
    const incident = rolloutIncident();
    await writeLegacy(
      legacy({
        threadTs: ts,
        evidencePosted: true,
        members: membersOf(incident),
        lastSentHash: 'sent-by-the-previous-version',
        lastNotifiedAt: FIXTURE_NOW,
      }),
    );
    clock.advance(H);
    await submit();
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['update'] }); // once: the hash scheme changed
    clock.advance(5 * M);
    await submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])]);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['update'] });
    expect(slack.replies(ts).at(-1)?.text).toContain('Changed');
    await submit([]);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['resolve'] });
    expect(slack.roots()).toHaveLength(1);
    const ids = slack.replies(ts).map((m) => String(m.metadata?.event_payload.reply).split(':')[0]);
    expect(ids).toEqual(['evidence', 'change', 'resolution']);
  });

  it('a root whose post was started and not recorded is adopted, not posted again', async () => {
    const ts = (await slack.postMessage({ channel: 'C1', text: 'root', metadata: incidentMetadata(KEY) })).ts;
    await writeLegacy(legacy({ rootPostStartedAt: FIXTURE_NOW + 30 * S }));
    clock.advance(M);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['post-root', 'post-evidence'] });
    expect(slack.roots()).toHaveLength(1);
    expect(tsOf(await deps.store.get(KEY))).toBe(ts);
  });

  it('a reply whose post was started and not recorded is found, not posted again', async () => {
    const { ts } = await slack.postMessage({ channel: 'C1', text: 'root', metadata: incidentMetadata(KEY) });
    await slack.postMessage({
      channel: 'C1',
      threadTs: ts,
      text: 'evidence',
      metadata: replyMetadata(KEY, 'evidence'),
    });
    await writeLegacy(
      legacy({ threadTs: ts, lastSentHash: 'x', lastNotifiedAt: FIXTURE_NOW, replyStarted: 'evidence' }),
    );
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['post-evidence'] });
    expect(slack.replies(ts)).toHaveLength(1);
  });

  it('a record still in group_wait gets exactly one root', async () => {
    await writeLegacy(legacy());
    expect(await processIncident(deps, KEY)).toMatchObject({ kind: 'wait', until: FIXTURE_NOW + 30 * S });
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    await processIncident(deps, KEY);
    expect(slack.roots()).toHaveLength(1);
  });

  it('a resolved record waiting for a CronJob follows it up in its thread', async () => {
    const ts = await previousThread();
    await writeLegacy(
      legacy({
        firing: false,
        clearedAt: FIXTURE_NOW + H,
        threadTs: ts,
        evidencePosted: true,
        resolvedAt: FIXTURE_NOW + H,
        resolutionReplied: true,
        resolutionPosted: true,
        awaitingCronJobs: ['data/nightly-backup'],
        awaitingUntil: FIXTURE_NOW + 26 * H,
      }),
    );
    await redis.hset(recordKey(), 'cronJobsDone', JSON.stringify([{ cronJob: 'data/nightly-backup', at: 'x' }]));
    clock.advance(2 * H);
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'done', steps: ['follow-up', 'close'] });
    expect(slack.roots()).toHaveLength(1);
    expect(slack.replies(ts).at(-1)?.text).toContain('Follow-up');
  });

  // No "key" field: the previous version reads the rewritten hash as no record at all.
  it('rewrites the record in the current layout, keeping its expiry', async () => {
    await writeLegacy(legacy({ threadTs: '1.1', evidencePosted: true, resolvedAt: 1, resolutionPosted: true }));
    await redis.pexpire(recordKey(), 60_000);
    await redis.srem(`${prefix}:open`, KEY);
    expect((await deps.store.get(KEY))?.lifecycle).toMatchObject({ phase: 'closed', threadTs: '1.1' });
    const h = await redis.hgetall(recordKey());
    expect(h.key).toBeUndefined();
    expect(h.schema).toBe('2');
    expect(h.lifecycle).toBeDefined();
    expect(await redis.pttl(recordKey())).toBeGreaterThan(50_000);
  });

  it('leaves the record as it is while a previous-version process holds its lock, and converts it after', async () => {
    await writeLegacy(legacy());
    await redis.set(`${prefix}:lock:${KEY}`, randomUUID(), 'PX', 60_000); // an old worker, mid-step
    expect((await deps.store.get(KEY))?.lifecycle).toEqual({ phase: 'pending' });
    expect((await redis.hgetall(recordKey())).key).toBe(JSON.stringify(KEY));
    await redis.del(`${prefix}:lock:${KEY}`);
    await deps.store.get(KEY);
    expect((await redis.hgetall(recordKey())).key).toBeUndefined();
  });

  it('the whole notifier (BullMQ, Web API) over an open previous-version thread posts no second root', async () => {
    const fake = await startFakeSlack();
    let n: Notifier | undefined;
    try {
      const web = createWebSlackApi({ token: 'xoxb-test', slackApiUrl: fake.apiUrl });
      const { ts } = await web.postMessage({ channel: 'C1', text: 'root', metadata: incidentMetadata(KEY) });
      await writeLegacy(legacy({ threadTs: ts, evidencePosted: true, lastSentHash: 'x', lastNotifiedAt: 0 }));
      n = createNotifier({
        redis,
        prefix,
        slack: web,
        channel: 'C1',
        timers: { groupWait: 20, groupInterval: 20, keepFiring: 0 },
      });
      await n.submit([rolloutIncident()], Date.now());
      await expect.poll(() => fake.roots()[0]?.edits ?? 0, { timeout: 10_000, interval: 20 }).toBe(1);
      await expect.poll(() => n!.queueDepth(), { timeout: 10_000, interval: 20 }).toBe(0);
      await n.submit([], Date.now());
      await expect
        .poll(() => fake.replies(ts).some((m) => m.text.startsWith('Resolved')), { timeout: 10_000, interval: 20 })
        .toBe(true);
      expect(fake.roots()).toHaveLength(1);
    } finally {
      await n?.close();
      await fake.close();
    }
  });
});
