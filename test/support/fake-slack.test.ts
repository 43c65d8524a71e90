// The fake Slack's fault knobs, over raw HTTP: storms and outages of a given length, ghost posts (stored, answer
// lost), calls that never answer, and Slack's per-channel rate limit, each counted so a test can assert on it.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startFakeSlack, type FakeSlack } from './fake-slack.js';

let fake: FakeSlack;
let clock: number;
beforeEach(async () => {
  clock = Date.parse('2026-11-30T09:15:00Z');
  fake = await startFakeSlack({ now: () => clock });
});
afterEach(async () => {
  await fake.close();
});

/** A Web API call as WebClient makes it; resolves to the status (or 'dropped' / 'timeout'), headers and body. */
async function call(method: string, args: Record<string, unknown> = {}, timeoutMs = 2000) {
  try {
    const res = await fetch(`${fake.apiUrl}${method}`, {
      method: 'POST',
      headers: { authorization: 'Bearer xoxb-test', 'content-type': 'application/json' },
      body: JSON.stringify(args),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return {
      status: res.status as number | string,
      retryAfter: res.headers.get('retry-after'),
      body: await res.json(),
    };
  } catch (e) {
    return { status: (e as Error).name === 'TimeoutError' ? 'timeout' : 'dropped', retryAfter: null, body: undefined };
  }
}

const post = (channel = 'C1', text = 'hi') => call('chat.postMessage', { channel, text });

describe('fake Slack faults', () => {
  test('an outage of a given length: 503 for every call until it ends, nothing stored, each call counted', async () => {
    fake.outage(30_000);
    expect((await post()).status).toBe(503);
    expect((await call('chat.update', { channel: 'C1', ts: '1.1' })).status).toBe(503);
    clock += 30_000;
    expect((await post()).status).toBe(200);
    expect(fake.messages).toHaveLength(1);
    expect(fake.calls.map((c) => [c.method, c.answer, c.fault ?? '-'])).toEqual([
      ['chat.postMessage', 503, 'outage'],
      ['chat.update', 503, 'outage'],
      ['chat.postMessage', 200, '-'],
    ]);
  });

  test('a 429 storm with Retry-After, for some methods only', async () => {
    fake.outage(10_000, { status: 429, retryAfter: 7, methods: ['chat.postMessage'] });
    expect(await post()).toMatchObject({ status: 429, retryAfter: '7', body: { ok: false, error: 'ratelimited' } });
    expect((await call('auth.test')).status).toBe(200);
    expect(fake.answered(429)).toHaveLength(1);
  });

  test("count-based storms: '*' matches any method", async () => {
    fake.serverError('*', 2, 502);
    expect([(await post()).status, (await call('auth.test')).status, (await post()).status]).toEqual([502, 502, 200]);
  });

  test('ghost posts: stored, then answered 500 or the connection dropped; the thread shows the message', async () => {
    fake.failAfterHandling('chat.postMessage', 1);
    fake.dropAfterHandling('chat.postMessage', 1);
    expect((await post('C1', 'one')).status).toBe(500);
    expect((await post('C1', 'two')).status).toBe('dropped');
    expect(fake.messages.map((m) => m.text)).toEqual(['one', 'two']);
    expect(fake.calls.map((c) => [c.handled, c.answer])).toEqual([
      [true, 500],
      [true, 'dropped'],
    ]);
  });

  test('a dropped connection before Slack acts stores nothing', async () => {
    fake.dropConnection('chat.postMessage');
    expect((await post()).status).toBe('dropped');
    expect(fake.messages).toHaveLength(0);
  });

  test('hanging calls never answer; with handled the message is stored anyway', async () => {
    fake.hang('chat.postMessage', 1);
    fake.hang('chat.postMessage', 1, { handled: true });
    expect((await post('C1', 'lost')).status).toBe('timeout');
    expect((await post('C1', 'ghost')).status).toBe('timeout');
    expect(fake.messages.map((m) => m.text)).toEqual(['ghost']);
    expect(fake.answered('hung')).toHaveLength(2);
    expect((await post('C1', 'after')).status).toBe(200);
  });

  test('a fault for one channel: calls naming another channel pass it by', async () => {
    fake.hang('chat.postMessage', 1, { handled: true, channel: 'C2' });
    expect((await post('C1', 'one')).status).toBe(200);
    expect((await post('C2', 'two')).status).toBe('timeout');
    expect((await post('C2', 'three')).status).toBe(200);
    expect(fake.messages.map((m) => m.text)).toEqual(['one', 'two', 'three']);
  });

  test('a channel the bot is not in: not_in_channel for posts, edits and reads there, until it joins', async () => {
    fake.leave('C2');
    expect((await post('C2')).body).toEqual({ ok: false, error: 'not_in_channel' });
    expect((await call('conversations.history', { channel: 'C2' })).body).toEqual({
      ok: false,
      error: 'not_in_channel',
    });
    expect((await post('C1')).status).toBe(200);
    fake.join('C2');
    expect((await post('C2')).body).toMatchObject({ ok: true });
    expect(fake.roots().map((m) => m.channel)).toEqual(['C1', 'C2']);
  });
});

describe("Slack's per-channel rate limit", () => {
  test('about one message per second per channel: 429 beyond, with the wait, counted per channel', async () => {
    fake.channelRateLimit();
    expect((await post('C1')).status).toBe(200);
    clock += 400;
    expect(await post('C1')).toMatchObject({ status: 429, retryAfter: '1' });
    expect((await post('C2')).status).toBe(200); // another channel has its own budget
    expect((await call('chat.update', { channel: 'C1', ts: fake.messages[0]!.ts })).status).toBe(200);
    clock += 600;
    expect((await post('C1')).status).toBe(200);
    expect(fake.channelLimited).toEqual(new Map([['C1', 1]]));
    expect(fake.roots('C1')).toHaveLength(2);
  });

  test('a limit of several per window; off again with false', async () => {
    fake.channelRateLimit({ limit: 3, windowMs: 10_000 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post('C1')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(fake.answered(429)[0]?.fault).toBe('channel-limit');
    fake.channelRateLimit(false);
    expect((await post('C1')).status).toBe(200);
  });
});
