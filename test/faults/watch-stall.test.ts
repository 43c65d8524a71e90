// A watch that stalls half-open: the connection stays open and no byte comes, not even a bookmark. The bot notices
// after the idle limit (RWX_WATCH_IDLE_TIMEOUT, here a few of the simulator's bookmark intervals, as the 2m30s
// default is to the API server's minute): /readyz names the stalled watches, the watchdog relists, and a change
// made during the stall reaches the thread. Ready again soon after the fault ends; one root, no reply twice.
// With the default settings (RWX_WATCH_IDLE_TIMEOUT 75s, the simulator's bookmark every minute), the same stall is
// named by /readyz within 90 s of simulated time: the bot in process on a ManualClock (test/serve/harness.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../serve/harness.js';
import { until } from '../support/until.js';
import {
  BOOKMARK_MS,
  IDLE_MS,
  apiBench,
  expectOneTruth,
  logOf,
  metric,
  readyz,
  recover,
  shownRecovered,
  type ApiBench,
} from './api.js';

let b: ApiBench | undefined;
afterEach(async () => {
  await b?.close();
  b = undefined;
});

describe('a watch that stalls half-open', () => {
  it('is named by /readyz after the idle limit, relisted, and the change made meanwhile shows', async () => {
    b = await apiBench();
    await readyz(b, 200, 'ready');
    const stall = 10_000;
    const t0 = Date.now();
    b.sim.faults.halfOpenWatches({ forMs: stall });
    recover(b, 'platform', 'postgres-2'); // made during the stall: no watch delivers it
    const named = /^watches: stalled: .*\bpods \(silent \d+s\)/m;
    await readyz(b, 503, 'not ready, naming the silent pods watch', 15_000, named);
    const caught = Date.now() - t0;
    // Caught once the idle limit has passed since the last bookmark (at most an interval before the stall began).
    expect(caught).toBeGreaterThanOrEqual(IDLE_MS - BOOKMARK_MS);
    await until(() => shownRecovered(b!, 'platform/postgres-2'), 'the change made during the stall', 20_000);
    const shown = Date.now() - t0;
    await readyz(b, 200, 'ready again after the stall', 30_000);
    const back = Date.now() - t0 - stall;
    console.log(
      `half-open watches (${stall} ms): not ready after ${caught} ms; change shown ${shown} ms after the stall began; ready ${back} ms after it ended`,
    );
    expect(back).toBeLessThan(30_000);
    expect(await metric(b, 'rwx_watch_restarts_total{kind="pods",reason="stalled"}')).toBeGreaterThan(0);
    expect(logOf(b)).toMatch(/"kind":"pods"[^\n]*watch silent too long; the watchdog relists it/);
    expectOneTruth(b);
  }, 120_000);
});

describe('a watch that stalls half-open, with the default settings', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('is named by /readyz within 90 s of its going silent, and relisted', async () => {
    h = await harness('scenarios/propagation-loss.yaml'); // RWX_WATCH_IDLE_TIMEOUT unset: the default
    await h.start();
    const readyz = async (): Promise<{ status: number; body: string }> => {
      const res = await fetch(`http://127.0.0.1:${h!.serve!.port}/readyz`);
      return { status: res.status, body: await res.text() };
    };
    expect((await readyz()).status).toBe(200);
    h.sim.faults.halfOpenWatches();
    const t0 = h.clock.now();
    let caught: number | undefined;
    let last = { status: 0, body: '' };
    for (let i = 0; i < 24 && caught === undefined; i++) {
      await h.advance(5_000);
      last = await readyz();
      if (last.status === 503 && /^watches: stalled: .*\bpods \(silent \d+s\)/m.test(last.body))
        caught = h.clock.now() - t0;
    }
    console.log(
      `half-open watches with the defaults: /readyz named them ${caught} ms (simulated) after they went silent`,
    );
    expect(caught, last.body).toBeDefined();
    expect(caught!).toBeLessThanOrEqual(90_000);
    expect(h.lines.join('')).toMatch(/watch silent too long; the watchdog relists it/);
  });
});
