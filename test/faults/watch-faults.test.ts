// Watch streams that break the ways a real API server's do: a connection cut inside a chunk (the stream ends in the
// middle of a JSON line), a list answer cut inside its JSON, and 410 Gone both as an ERROR event on the watch and as
// the HTTP status of the watch request. No change is lost, a relist posts no "Changed:" the cluster did not make,
// one root, no reply twice; the restarts are counted in /metrics and logged.
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { apiBench, expectOneTruth, logOf, metric, readyz, recover, shownRecovered, type ApiBench } from './api.js';

let b: ApiBench | undefined;
afterEach(async () => {
  await b?.close();
  b = undefined;
});

/** Calls of `method` so far. */
const calls = (x: ApiBench, method: string): number => x.slack.callsOf(method).length;

describe('watch streams cut and expired', () => {
  it('a watch cut inside a chunk, then a list cut inside its JSON: no change lost', async () => {
    b = await apiBench();
    let t0 = Date.now();
    b.sim.faults.cutWatches({ resource: 'pods' });
    recover(b, 'platform', 'postgres-2'); // the event that is cut in half
    await until(() => shownRecovered(b!, 'platform/postgres-2'), 'the change whose event was cut', 20_000);
    const afterCut = Date.now() - t0;
    // The pods watch expires (a relist), and the first two list answers stop halfway through their JSON.
    t0 = Date.now();
    b.sim.faults.cutResponses({ resource: 'pods', verb: 'list', times: 2 });
    b.sim.faults.expireWatches({ resource: 'pods' });
    recover(b, 'search', 'search-7c9d8f6b5-kccvl');
    await until(() => shownRecovered(b!, 'search/search-7c9d8f6b5-kccvl'), 'the change behind the cut lists', 20_000);
    const afterCutList = Date.now() - t0;
    await readyz(b, 200, 'ready after the cuts');
    console.log(`watch cut mid-chunk: change shown after ${afterCut} ms; list cut mid-JSON twice: ${afterCutList} ms`);
    expect(await metric(b, 'rwx_watch_restarts_total{kind="pods",reason="gone"}')).toBeGreaterThan(0);
    expect(await metric(b, 'rwx_watch_restarts_total{kind="pods",reason="error"}')).toBeGreaterThan(0);
    expect(logOf(b)).toMatch(/Kubernetes API unreachable; retrying with backoff|watch pods failed; retrying/);
    expect(logOf(b)).toMatch(/"kind":"pods"[^\n]*watch expired \(410 Gone\): relisting/);
    expectOneTruth(b);
  }, 120_000);

  it('410 as an ERROR event and as HTTP 410: a relist, nothing posted for it, and no change lost', async () => {
    b = await apiBench();
    await readyz(b, 200, 'ready');
    // Every watch expires with nothing changed: the relists must not post or edit anything.
    const replies = b.slack.replies(b.root).length;
    const updates = calls(b, 'chat.update');
    b.sim.faults.expireWatches();
    await until(
      async () => (await metric(b!, 'rwx_watch_restarts_total{kind="pods",reason="gone"}')) > 0,
      'the relist after the ERROR event',
    );
    await readyz(b, 200, 'ready after the relists');
    // Two group intervals and ticks: what a relist would post is posted by now.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(b.slack.replies(b.root).length).toBe(replies);
    expect(calls(b, 'chat.update')).toBe(updates);
    // The pods watch is cut and its re-watch answered 410: a relist, which finds the change made meanwhile.
    const t0 = Date.now();
    b.sim.faults.respond(410, { resource: 'pods', verb: 'watch', times: 1 });
    b.sim.faults.dropWatches({ resource: 'pods' });
    recover(b, 'platform', 'postgres-2');
    await until(() => shownRecovered(b!, 'platform/postgres-2'), 'the change after the HTTP 410', 20_000);
    console.log(`watch answered HTTP 410: change shown after ${Date.now() - t0} ms`);
    expect(await metric(b, 'rwx_watch_restarts_total{kind="pods",reason="gone"}')).toBeGreaterThan(1);
    expect(logOf(b).match(/watch expired \(410 Gone\): relisting/g)?.length).toBeGreaterThan(1);
    await readyz(b, 200, 'ready after the HTTP 410');
    expectOneTruth(b);
  }, 120_000);
});
