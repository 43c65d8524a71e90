// Watch semantics over raw HTTP: initial state, changes, selectors, bookmarks, 410, timeouts, stall and drop.
import { describe, expect, test } from 'vitest';
import { api, testSim } from '../support/sim.js';
import { until } from '../support/until.js';
import { smallScenario } from './fixtures.js';
import { summary, watch } from './stream.js';

describe('watch', () => {
  test('without resourceVersion: current objects as ADDED, then changes as they happen', async () => {
    const { sim } = await testSim(smallScenario());
    const s = await watch(sim, '/api/v1/namespaces/shop/pods?watch=true');
    await until(() => s.events.length === 4, 'initial ADDED events');
    expect(summary(s)).toEqual(['ADDED db-0', 'ADDED web-0', 'ADDED web-1', 'ADDED web-2']);
    await sim.advance(3 * 60_000);
    await until(() => s.events.length === 8, 'timeline events');
    expect(summary(s).slice(4)).toEqual(['MODIFIED db-0', 'MODIFIED web-2', 'DELETED web-2', 'ADDED web-3']);
    const rvs = s.events.slice(4).map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
    s.close();
  });

  test('from a resourceVersion: replays only what changed after it', async () => {
    const { sim } = await testSim(smallScenario());
    const rv = (await api(sim, '/api/v1/pods')).body.metadata.resourceVersion;
    await sim.advance(60_000);
    const s = await watch(sim, `/api/v1/pods?watch=1&resourceVersion=${rv}`);
    await until(() => s.events.length === 1, 'replayed change');
    expect(summary(s)).toEqual(['MODIFIED db-0']);
    s.close();
  });

  test('a resourceVersion older than the retained history gets an ERROR event with a 410 Status, then the end', async () => {
    const { sim } = await testSim(smallScenario());
    const rv = (await api(sim, '/api/v1/pods')).body.metadata.resourceVersion;
    await sim.advance(60_000);
    sim.compact();
    const s = await watch(sim, `/api/v1/pods?watch=true&resourceVersion=${rv}`);
    await until(() => s.ended, 'the stream to end');
    expect(s.events).toHaveLength(1);
    expect(s.events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  });

  test('a selector watch sees an object leave the selection as DELETED and enter it as ADDED', async () => {
    const { sim } = await testSim(smallScenario());
    const rv = (await api(sim, '/api/v1/pods')).body.metadata.resourceVersion;
    const s = await watch(sim, `/api/v1/pods?watch=true&resourceVersion=${rv}&fieldSelector=status.phase%3DPending`);
    await sim.advance(60_000);
    await until(() => s.events.length === 1, 'db-0 leaving Pending');
    expect(summary(s)).toEqual(['DELETED db-0']);
    sim.apply({ set: [{ kind: 'Pod', namespace: 'shop', name: 'db-0', fields: { 'status.phase': 'Pending' } }] });
    await until(() => s.events.length === 2, 'db-0 back');
    expect(summary(s)[1]).toBe('ADDED db-0');
    s.close();
  });

  test('BOOKMARK every minute of sim time with allowWatchBookmarks, and the stream ends at timeoutSeconds', async () => {
    const { sim } = await testSim(smallScenario());
    const rv = (await api(sim, '/api/v1/nodes')).body.metadata.resourceVersion;
    const s = await watch(
      sim,
      `/api/v1/nodes?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=150`,
    );
    await sim.advance(60_000);
    await until(() => s.events.length === 1, 'first bookmark');
    expect(s.events[0]).toMatchObject({ type: 'BOOKMARK', object: { kind: 'Node', apiVersion: 'v1' } });
    expect(Number(s.events[0]?.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv));
    expect(s.ended).toBe(false);
    await sim.advance(90_000);
    await until(() => s.ended, 'timeout');
    expect(summary(s)).toEqual(['BOOKMARK', 'BOOKMARK', 'BOOKMARK']);
  });

  test('stalled watches stay open and silent, then deliver; dropped watches break mid-stream', async () => {
    const { sim } = await testSim(smallScenario());
    const rv = (await api(sim, '/api/v1/pods')).body.metadata.resourceVersion;
    const s = await watch(sim, `/api/v1/pods?watch=true&resourceVersion=${rv}&timeoutSeconds=30`);
    sim.faults.stallWatches();
    await sim.advance(60_000);
    await api(sim, '/api/v1/pods');
    expect(s.events).toHaveLength(0);
    expect(s.ended).toBe(false);
    sim.faults.stallWatches(false);
    await until(() => s.events.length === 1, 'held event');
    const t = await watch(sim, `/api/v1/pods?watch=true&resourceVersion=${rv}`);
    await until(() => t.events.length === 1, 'second watch replay');
    sim.faults.dropWatches();
    await until(() => t.error !== undefined || t.ended, 'dropped stream');
    expect(t.error?.message ?? 'ended cleanly').toMatch(/aborted|socket hang up|ECONNRESET|premature/i);
  });
});
