// A Slack outage (503 on every call) longer than the notify job's retries used to last (8 attempts): the root was
// never posted, even after Slack came back. Retryable failures are now retried until delivered, with a capped
// backoff; when Slack answers again the thread is brought to what the record says. One root, no reply twice.
// The outage is counted in calls, not seconds (12 answered 503, whatever the machine's load), and its time scaled
// to the backoff: from the harness' 50 ms, capped at RETRY_MAX_MS (RWX_RETRY_MAX, 10 s by default), about 4 s.
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../serve/harness.js';
import { until } from '../support/until.js';
import { expectOneThread } from './thread.js';

let h: Harness | undefined;
/** RWX_RETRY_MAX of the first case: 12 attempts from 50 ms are spent in 50 + 100 + 200 + 9 x 400 ms, about 4 s. */
const RETRY_MAX_MS = 400;
/** The outage: every Slack call answered 503 until this many were, more than the 8 attempts the job used to get. */
const OUTAGE_CALLS = 12;
/** Slack calls that failed, over every method (rwx_slack_calls_total{outcome="error"}). */
const slackErrors = (metrics: string): number =>
  [...metrics.matchAll(/^rwx_slack_calls_total\{[^}]*outcome="error"[^}]*\} (\d+)$/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a Slack 5xx outage longer than the old retries', () => {
  it('posts the incident once Slack is back, and only once', async () => {
    h = await harness('scenarios/propagation-loss.yaml', undefined, { RWX_RETRY_MAX: `${RETRY_MAX_MS}ms` });
    h.slack.serverError('*', OUTAGE_CALLS, 503);
    const t0 = Date.now();
    await h.start();
    await h.advance(1_000);
    await until(() => h!.slack.answered(503).length >= 8, 'the retries during the outage', 20_000);
    await until(() => h!.slack.roots().length === 1, 'the root after the outage', 60_000);
    await until(() => h!.slack.evidenceShown(h!.slack.roots()[0]!.ts), 'the evidence reply', 30_000);
    console.log(`slack 503 outage of ${OUTAGE_CALLS} calls: root posted ${Date.now() - t0} ms after it began`);
    expect(h.slack.answered(503)).toHaveLength(OUTAGE_CALLS); // the root came after the whole outage
    expectOneThread(h.slack, h.slack.roots()[0]!.ts, { noInventedChange: true });
    expect(h.lines.join('')).toMatch(/notify failed: will retry/);
    expect(h.lines.join('')).not.toMatch(/notify gave up/);
    const ops = `http://127.0.0.1:${h.serve!.port}`;
    expect((await fetch(`${ops}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    expect(slackErrors(metrics)).toBeGreaterThanOrEqual(8);
  }, 90_000);
});

describe('SIGTERM while a Slack call hangs', () => {
  it('stops within the close deadline, and the restart adopts the post instead of repeating it', async () => {
    h = await harness('scenarios/propagation-loss.yaml');
    h.slack.hang('chat.postMessage', 1, { handled: true }); // Slack took the root, the answer never comes
    const first = await h.start();
    await h.advance(1_000);
    await until(() => h!.slack.callsOf('chat.postMessage').length >= 1, 'the hung post');
    const t0 = Date.now();
    await first.stop();
    const stopMs = Date.now() - t0;
    console.log(`stop with a hung Slack call: ${stopMs} ms (close deadline 5 s)`);
    expect(stopMs).toBeLessThan(9_000);
    expect(h.lines.join('')).toMatch(/in-flight step abandoned/);
    await h.start();
    for (let i = 0; i < 3; i++) await h.advance(2_000);
    await until(() => h!.slack.evidenceShown(h!.slack.roots()[0]!.ts), 'the evidence after the restart');
    expectOneThread(h.slack, h.slack.roots()[0]!.ts, { noInventedChange: true });
  }, 60_000);
});

/** RWX_SLACK_REQUEST_TIMEOUT where a call is never answered: the step gives up on it after this long (10 s by default). */
const SLACK_REQUEST_TIMEOUT_MS = 1_000;

describe('a Slack call that is never answered', () => {
  it('times out, is retried, and the retry adopts what Slack took: one root', async () => {
    h = await harness('scenarios/propagation-loss.yaml', undefined, {
      RWX_SLACK_REQUEST_TIMEOUT: `${SLACK_REQUEST_TIMEOUT_MS}ms`,
    });
    h.slack.hang('chat.postMessage', 1, { handled: true });
    const t0 = Date.now();
    await h.start();
    await h.advance(1_000);
    await until(
      () => h!.slack.roots().length === 1 && h!.slack.evidenceShown(h!.slack.roots()[0]!.ts),
      'the evidence',
      40_000,
    );
    console.log(
      `hung chat.postMessage: evidence in the thread ${Date.now() - t0} ms after the start (request timeout ${SLACK_REQUEST_TIMEOUT_MS} ms)`,
    );
    expectOneThread(h.slack, h.slack.roots()[0]!.ts, { noInventedChange: true });
    expect(h.lines.join('')).toMatch(/notify failed: will retry/);
    const metrics = await (await fetch(`http://127.0.0.1:${h.serve!.port}/metrics`)).text();
    expect(slackErrors(metrics)).toBeGreaterThan(0);
  }, 60_000);
});
