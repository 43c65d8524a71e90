// Watch fault knobs over raw HTTP: half-open streams (for all clients or one), a cut inside a chunk, 410 as an
// ERROR event and as HTTP 410, and bookmarks at the configured interval only for watches that ask for them.
import { connect } from 'node:net';
import { describe, expect, test } from 'vitest';
import type { Simulator } from '@rwx/kube-sim';
import { api, inline, testSim } from '../support/sim.js';
import { until } from '../support/until.js';
import { smallScenario } from './fixtures.js';
import { settle, summary, watch, type Stream } from './stream.js';

const currentRv = async (sim: Simulator, path = '/api/v1/pods') =>
  (await api(sim, path)).body.metadata.resourceVersion as string;

// A pod on a node is first marked (MODIFIED, deletionTimestamp), then removed (DELETED).
const deletePod = (sim: Simulator, name: string) => sim.apply({ delete: [{ kind: 'Pod', namespace: 'shop', name }] });
const deleted = (s: Stream) => summary(s).filter((e) => e.startsWith('DELETED'));

describe('half-open watches', () => {
  test('stay connected and send no byte: no events, no bookmarks, no end at timeoutSeconds, even after the fault', async () => {
    const { sim } = await testSim(smallScenario());
    const rv = await currentRv(sim);
    const s = await watch(
      sim,
      `/api/v1/pods?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=90`,
    );
    sim.faults.halfOpenWatches();
    deletePod(sim, 'web-1');
    await sim.advance(3 * 60_000); // past two bookmark intervals and the timeout
    await settle();
    expect({ bytes: s.bytes, ended: s.ended, error: s.error }).toEqual({ bytes: 0, ended: false, error: undefined });
    sim.faults.clear('halfOpenWatches');
    deletePod(sim, 'web-0');
    await sim.advance(60_000);
    await settle();
    expect(s.bytes).toBe(0); // a half-open connection does not recover
    const fresh = await watch(sim, `/api/v1/pods?watch=true&resourceVersion=${rv}`);
    await until(() => fresh.events.some((e) => e.object.metadata?.name === 'web-0'), 'a new watch to work');
    expect(summary(fresh)).toContain('DELETED web-1');
    s.close();
    fresh.close();
  });

  test('for one client only: its watch freezes while another client sees every change', async () => {
    const { sim } = await testSim(smallScenario());
    const b = await sim.addClient('replica-b');
    const rv = await currentRv(sim);
    const path = `/api/v1/pods?watch=true&resourceVersion=${rv}`;
    const a = await watch(sim, path);
    const frozen = await watch(sim, path, b.token);
    sim.faults.halfOpenWatches({ client: 'replica-b' });
    deletePod(sim, 'web-1');
    deletePod(sim, 'web-2');
    await until(() => deleted(a).length === 2, 'client default to see both deletions');
    await settle();
    expect(deleted(a)).toEqual(['DELETED web-1', 'DELETED web-2']);
    expect(frozen.bytes).toBe(0);
    // the frozen client re-watching while the fault lasts gets the 200 and then nothing
    const again = await watch(sim, path, b.token);
    await settle();
    expect(again.status).toBe(200);
    expect(again.bytes).toBe(0);
    expect(sim.audit.filter((e) => e.client === 'replica-b' && e.verb === 'watch')).toHaveLength(2);
    for (const s of [a, frozen, again]) s.close();
  });

  test('stalled watches hold what they would send for one client and deliver it when the stall ends', async () => {
    const { sim } = await testSim(smallScenario());
    const b = await sim.addClient('b');
    const rv = await currentRv(sim);
    const path = `/api/v1/pods?watch=true&resourceVersion=${rv}`;
    const a = await watch(sim, path);
    const held = await watch(sim, path, b.token);
    sim.faults.stallWatches(true, { client: 'b' });
    deletePod(sim, 'web-1');
    await until(() => deleted(a).length === 1, 'the unstalled client');
    await settle();
    expect(held.bytes).toBe(0);
    sim.faults.stallWatches(false);
    await until(() => deleted(held).length === 1, 'the held events');
    expect(summary(held)).toEqual(summary(a));
    a.close();
    held.close();
  });
});

describe('connections cut', () => {
  test('dropWatches({client}) cuts only that client between two events', async () => {
    const { sim } = await testSim(smallScenario());
    const b = await sim.addClient('b');
    const rv = await currentRv(sim);
    const path = `/api/v1/pods?watch=true&resourceVersion=${rv}`;
    const a = await watch(sim, path);
    const cut = await watch(sim, path, b.token);
    sim.faults.dropWatches({ client: 'b' });
    await until(() => cut.error !== undefined || cut.ended, 'the dropped stream');
    deletePod(sim, 'web-1');
    await until(() => deleted(a).length === 1, 'the other client');
    expect(a.error).toBeUndefined();
    a.close();
  });

  test('cutWatches: the next event stops inside its HTTP chunk, then the connection closes', async () => {
    const { sim } = await testSim(smallScenario());
    const rv = await currentRv(sim);
    // Raw HTTP/1.1, to see the chunk framing itself.
    const socket = connect(Number(new URL(sim.url).port), '127.0.0.1');
    let raw = '';
    let closed = false;
    socket.on('data', (d) => (raw += String(d)));
    socket.on('close', () => (closed = true));
    socket.write(
      `GET /api/v1/pods?watch=true&resourceVersion=${rv} HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer ${sim.token}\r\n\r\n`,
    );
    await until(() => raw.includes('\r\n\r\n'), 'the response headers');
    sim.faults.cutWatches();
    deletePod(sim, 'web-1');
    await until(() => closed, 'the connection to close');
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
    const m = /^([0-9a-f]+)\r\n([\s\S]*)$/.exec(body);
    expect(m, body).not.toBeNull();
    const promised = parseInt(m![1]!, 16);
    const got = Buffer.byteLength(m![2]!);
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThan(promised);
    expect(m![2]).toMatch(/^\{"type":"MODIFIED","object":\{"kind":"Pod"/);
  });

  test('expireWatches: an ERROR event with a 410 Expired Status, then the end of the stream', async () => {
    const { sim } = await testSim(smallScenario());
    const s = await watch(sim, `/api/v1/pods?watch=true&resourceVersion=${await currentRv(sim)}`);
    sim.faults.expireWatches({ resource: 'pods' });
    await until(() => s.ended, 'the stream to end');
    expect(s.events).toEqual([
      { type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) },
    ]);
  });

  test('respond(410, {verb: watch}): the watch request itself gets HTTP 410; lists are unaffected', async () => {
    const { sim } = await testSim(smallScenario());
    sim.faults.respond(410, { verb: 'watch', times: 1 });
    const rv = await currentRv(sim);
    const first = await api(sim, `/api/v1/pods?watch=true&resourceVersion=${rv}`);
    expect(first).toMatchObject({ status: 410, body: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(sim.audit.at(-1)).toMatchObject({ verb: 'watch', status: 410, fault: 'respond' });
    const s = await watch(sim, `/api/v1/pods?watch=true&resourceVersion=${rv}`);
    expect(s.status).toBe(200); // times: 1 is spent
    s.close();
  });
});

describe('bookmarks', () => {
  test('about every minute by default, only for watches that ask for them', async () => {
    const { sim } = await testSim(smallScenario());
    const rv = await currentRv(sim, '/api/v1/nodes');
    const asks = await watch(sim, `/api/v1/nodes?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
    const plain = await watch(sim, `/api/v1/nodes?watch=true&resourceVersion=${rv}`);
    await sim.advance(59_000);
    await settle();
    expect(asks.events).toHaveLength(0);
    await sim.advance(1_000);
    await until(() => asks.events.length === 1, 'the first bookmark');
    await sim.advance(60_000);
    await until(() => asks.events.length === 2, 'the second bookmark');
    expect(summary(asks)).toEqual(['BOOKMARK', 'BOOKMARK']);
    expect(plain.bytes).toBe(0);
    asks.close();
    plain.close();
  });

  test.each([
    ['the scenario', { scenario: { bookmarkInterval: '10s' }, option: {} }],
    ['startSimulator', { scenario: {}, option: { bookmarkIntervalMs: 10_000 } }],
  ])('the interval is configurable from %s', async (_, c) => {
    const { sim } = await testSim(inline({ name: 'b', ...c.scenario, objects: [] }), c.option);
    const rv = await currentRv(sim, '/api/v1/nodes');
    const s = await watch(sim, `/api/v1/nodes?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
    await sim.advance(10_000);
    await until(() => s.events.length === 1, 'a bookmark after 10 s');
    await sim.advance(10_000);
    await until(() => s.events.length === 2, 'the next one 10 s later');
    s.close();
  });
});
