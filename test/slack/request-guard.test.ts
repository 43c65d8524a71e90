// The request guard in front of Bolt: timestamps checked both ways, replays refused through a ledger shared by
// replicas (real Redis), and failing closed when the ledger cannot be reached.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { RequestListener } from 'node:http';
import { closeServer, listen } from '../../src/serve/http.js';
import {
  guardSlackRequests,
  memoryReplayLedger,
  redisReplayLedger,
  refusal,
  type ReplayLedger,
} from '../../src/slack/request-guard.js';
import { cleanRedis, REDIS_URL } from '../serve/harness.js';
import { sign } from '../support/slash-command.js';

const SECRET = 'guard-secret';
const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
const nowSec = Math.floor(clock.now() / 1000);
const prefix = `rwx-test-guard-${randomBytes(4).toString('hex')}`;
const redis = new Redis(REDIS_URL);
afterAll(async () => {
  await cleanRedis(prefix);
  await redis.quit();
});

const signed = (ts: number, body = 'command=%2Frwx&text=help') => ({
  headers: { signature: sign(SECRET, ts, body), timestamp: String(ts) },
  body,
});
const check = (r: ReturnType<typeof signed>, ledger: ReplayLedger = memoryReplayLedger(clock)) =>
  refusal(r.headers, r.body, { signingSecret: SECRET, ledger, clock });

describe('refusal', () => {
  it.each([
    ['now: accepted', 0, undefined],
    ['4 minutes old: accepted', -240, undefined],
    ['4 minutes ahead (clock skew): accepted', 240, undefined],
    ['6 minutes old: refused', -360, 'timestamp more than 5 minutes from now'],
    ['10 minutes in the future: refused', 600, 'timestamp more than 5 minutes from now'],
  ])('%s', async (_why, offset, want) => {
    expect(await check(signed(nowSec + offset))).toBe(want);
  });

  it('refuses a bad signature, a missing header and a non-numeric timestamp', async () => {
    const r = signed(nowSec);
    expect(await check({ ...r, body: `${r.body}&x=1` })).toBe('bad signature');
    expect(await check({ ...r, headers: { timestamp: r.headers.timestamp } as never })).toBe('unsigned');
    expect(await check({ ...r, headers: { ...r.headers, timestamp: '12a' } })).toBe('bad timestamp');
  });

  it('refuses a replay across replicas sharing Redis, and does not record a forged request', async () => {
    const replicaA = redisReplayLedger(redis, prefix);
    const replicaB = redisReplayLedger(redis, prefix);
    const r = signed(nowSec);
    // A forgery with the genuine request's timestamp is refused and leaves nothing that would block the real one.
    expect(await check({ ...r, headers: { ...r.headers, signature: 'v0=00' } }, replicaA)).toBe('bad signature');
    expect(await check(r, replicaA)).toBeUndefined();
    expect(await check(r, replicaA)).toBe('replayed');
    expect(await check(r, replicaB)).toBe('replayed');
    const keys = await redis.keys(`${prefix}:slack-request:*`);
    expect(keys).toHaveLength(1);
    // Remembered for both ways of the window (10 minutes), so it cannot be replayed while it would pass the clock.
    expect(await redis.ttl(keys[0]!)).toBeGreaterThan(590);
  });

  it('the memory ledger forgets a request once its window has passed', async () => {
    const own = new ManualClock(clock.now());
    const ledger = memoryReplayLedger(own);
    expect(await ledger.first('k', 600)).toBe(true);
    expect(await ledger.first('k', 600)).toBe(false);
    own.advance(601_000);
    expect(await ledger.first('k', 600)).toBe(true);
  });
});

describe('guardSlackRequests over HTTP', () => {
  // Bolt stands behind the guard; here a listener that says what it received.
  async function serve(ledger: ReplayLedger) {
    const warnings: string[] = [];
    const next: RequestListener = (req, res) => {
      const raw = (req as { rawBody?: Buffer }).rawBody;
      res.end(`passed ${req.url} ${raw ? raw.toString() : 'unbuffered'}`);
    };
    const guard = guardSlackRequests(next, { signingSecret: SECRET, ledger, clock, warn: (m) => warnings.push(m) });
    const { server, port } = await listen(guard, 0, '127.0.0.1');
    const post = async (path: string, r: ReturnType<typeof signed>) => {
      const headers = { 'x-slack-signature': r.headers.signature, 'x-slack-request-timestamp': r.headers.timestamp };
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers, body: r.body });
      return { status: res.status, text: await res.text() };
    };
    return { post, warnings, close: () => closeServer(server) };
  }

  it('hands an accepted request to Bolt with its body buffered, and refuses the replay with 401', async () => {
    const s = await serve(memoryReplayLedger(clock));
    const r = signed(nowSec);
    expect(await s.post('/slack/events', r)).toEqual({ status: 200, text: `passed /slack/events ${r.body}` });
    expect((await s.post('/slack/events', r)).status).toBe(401);
    expect(s.warnings).toEqual(['slack request refused: replayed']);
    // Other paths are not Slack's: passed through untouched.
    expect((await s.post('/healthz', r)).text).toBe('passed /healthz unbuffered');
    await s.close();
  });

  it('answers 503 when the ledger cannot be reached: fail closed, Slack retries', async () => {
    const s = await serve({ first: () => Promise.reject(new Error('ECONNREFUSED')) });
    expect((await s.post('/slack/events', signed(nowSec))).status).toBe(503);
    expect(s.warnings[0]).toContain('replay ledger unreachable (ECONNREFUSED)');
    await s.close();
  });
});
