// The Kubernetes API down three ways: connection refused, a 503 storm, a blackhole (connections accepted, never
// answered, open watches silent). Each time /readyz names the API, `/rwx drain` of a node it would call OK says
// UNKNOWN (never OK from ignorance) and `/rwx status` says UNKNOWN above the incidents as last recorded, nothing is resolved while the bot is blind, and after the fault the change
// made during it reaches the thread and the bot is ready again within seconds. Seen in /metrics and the log.
// Time is scaled to the bench's backoff cap (RETRY_MAX_MS, 2 s for the 10 s default): each outage lasts until its
// checks are made and at least three caps, so the backoff has reached its cap when the API answers again, as in an
// outage of any length; the bound on readiness after it is the cap plus the relist of every kind.
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '@rwx/kube-sim';
import { until } from '../support/until.js';
import { stuckCounts } from './replicas.js';
import {
  apiBench,
  command,
  expectOneTruth,
  logOf,
  metric,
  readyz,
  recover,
  RETRY_MAX_MS,
  shownRecovered,
  type ApiBench,
} from './api.js';

/** How long each fault lasts at least: the backoff reaches its cap after 3.5 s (0.5 + 1 + 2). */
const OUTAGE_MS = 3 * RETRY_MAX_MS;
/** Ready again within this long of the fault's end: the cap, a list timeout (a blackhole's hung page), the relist. */
const READY_WITHIN_MS = 5 * RETRY_MAX_MS;
let b: ApiBench | undefined;
afterEach(async () => {
  await b?.close();
  b = undefined;
});

const faults: [string, (sim: Simulator) => void][] = [
  ['connection refused', (sim) => sim.faults.down('refused')],
  ['503 storm', (sim) => sim.faults.down('unavailable')],
  ['blackhole', (sim) => sim.faults.down('blackhole')],
];

describe('the Kubernetes API down', () => {
  it.each(faults)(
    '%s: not ready naming the API, drain UNKNOWN, nothing resolved, ready within seconds of the end',
    async (what, down) => {
      b = await apiBench();
      // The control: with the cluster in view, node-05 (revision 1, nothing stuck) may be drained.
      expect(await command(b, 'drain node-05')).toMatch(/\*OK\*/);
      expect(await command(b, 'status')).not.toMatch(/UNKNOWN/);
      const t0 = Date.now();
      down(b.sim);
      recover(b, 'platform', 'postgres-2'); // while the bot cannot see it
      await readyz(b, 503, 'not ready naming the API', 20_000, /^kubernetes: API server unreachable/m);
      const blind = Date.now() - t0;
      expect(await command(b, 'drain node-05')).toMatch(/\*UNKNOWN\*/);
      // The open incident as last recorded, under an UNKNOWN that says the bot cannot see the cluster.
      expect(await command(b, 'status')).toMatch(/\*UNKNOWN\*: the bot cannot see the cluster now.*1 open incident/);
      expect(await metric(b, 'rwx_kube_api_reachable')).toBe(0);
      await until(() => Date.now() - t0 >= OUTAGE_MS, 'the end of the outage', OUTAGE_MS + 1_000);
      const outage = Date.now() - t0;
      b.sim.faults.up();
      await readyz(b, 200, 'ready again after the outage', 30_000);
      const back = Date.now() - t0 - outage;
      await until(() => shownRecovered(b!, 'platform/postgres-2'), 'the change made during the outage', 20_000);
      const shown = Date.now() - t0 - outage;
      console.log(
        `API ${what} (${outage} ms): not ready naming the API after ${blind} ms; ready ${back} ms after the fault ended; the change made during it shown ${shown} ms after`,
      );
      expect(back).toBeLessThan(READY_WITHIN_MS);
      expect(await metric(b, 'rwx_kube_api_reachable')).toBe(1);
      expect(logOf(b)).toMatch(/Kubernetes API unreachable; retrying with backoff/);
      expect(logOf(b)).toMatch(/Kubernetes API reachable again/);
      // Still open, with the three pods that are still stuck: blindness resolved nothing.
      expect(stuckCounts(b.slack, b.root).at(-1)).toBe(3);
      expectOneTruth(b);
    },
    120_000,
  );
});
