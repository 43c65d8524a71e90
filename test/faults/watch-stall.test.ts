// A watch that stalls half-open: the connection stays open and no byte comes, not even a bookmark. The bot notices
// after the idle limit (RWX_WATCH_IDLE_TIMEOUT, here a few of the simulator's bookmark intervals, as the 2m30s
// default is to the API server's minute): /readyz names the stalled watches, the watchdog relists, and a change
// made during the stall reaches the thread. Ready again soon after the fault ends; one root, no reply twice.
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../serve/harness.js';
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
