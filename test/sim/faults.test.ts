// Faults on demand and authorization: 403 per resource (and in SSAR answers), 401, 500 on the nth request, latency;
// the API down (refused, 503, blackhole), counted and scoped answers, faults from the start, several simulators.
/* eslint-disable @typescript-eslint/no-explicit-any -- API responses here are untyped JSON, read field by field */
import { describe, expect, test } from 'vitest';
import { Faults, startSimulator, type FaultCommand } from '@rwx/kube-sim';
import { api, inline, testSim } from '../support/sim.js';
import { until } from '../support/until.js';
import { smallScenario } from './fixtures.js';
import { watch } from './stream.js';

const ssar = (resource: string, verb = 'list', namespace?: string) => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectAccessReview',
  spec: {
    resourceAttributes: {
      verb,
      resource,
      group: resource === 'volumeattachments' ? 'storage.k8s.io' : '',
      ...(namespace ? { namespace } : {}),
    },
  },
});

describe('faults', () => {
  test('forbid(resource): 403 with the API server message, SSAR says not allowed, other resources unaffected', async () => {
    const { sim } = await testSim(smallScenario());
    sim.faults.forbid('volumeattachments');
    const r = await api(sim, '/apis/storage.k8s.io/v1/volumeattachments');
    expect(r).toMatchObject({ status: 403, body: { kind: 'Status', reason: 'Forbidden', code: 403 } });
    expect(r.body.message).toBe(
      'volumeattachments.storage.k8s.io is forbidden: User "system:serviceaccount:rwx:rwx-bot" cannot list resource "volumeattachments" in API group "storage.k8s.io" at the cluster scope',
    );
    const review = await api(sim, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST',
      body: ssar('volumeattachments'),
    });
    expect(review).toMatchObject({
      status: 201,
      body: { kind: 'SelfSubjectAccessReview', status: { allowed: false } },
    });
    expect((await api(sim, '/api/v1/pods')).status).toBe(200);
  });

  test('forbid(resource, verb) only blocks that verb', async () => {
    const { sim } = await testSim(smallScenario());
    sim.faults.forbid('pods', 'watch');
    expect((await api(sim, '/api/v1/pods')).status).toBe(200);
    expect((await api(sim, '/api/v1/pods?watch=true')).status).toBe(403);
  });

  test('scenario permissions answer SSAR and guard requests: deny rules, and allow lists', async () => {
    const { sim } = await testSim(
      inline({
        name: 'perm',
        objects: [],
        permissions: {
          allow: [{ verb: 'list', resource: 'pods' }, { verb: 'get' }],
          deny: [{ resource: 'pods', namespace: 'secret-ns' }],
        },
      }),
    );
    const can = async (resource: string, verb: string, ns?: string) =>
      (
        await api(sim, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
          method: 'POST',
          body: ssar(resource, verb, ns),
        })
      ).body.status.allowed;
    expect(await can('pods', 'list')).toBe(true);
    expect(await can('pods', 'watch')).toBe(false);
    expect(await can('nodes', 'get')).toBe(true);
    expect(await can('pods', 'list', 'secret-ns')).toBe(false);
    expect((await api(sim, '/api/v1/nodes')).status).toBe(403);
    expect((await api(sim, '/api/v1/namespaces/secret-ns/pods')).status).toBe(403);
  });

  test('unauthorized(): 401 for everything; a wrong bearer token is always 401; no token is anonymous', async () => {
    const { sim } = await testSim(smallScenario());
    expect((await api(sim, '/api/v1/pods', { token: 'nope' })).status).toBe(401);
    expect((await api(sim, '/api/v1/pods', { token: null })).status).toBe(200);
    sim.faults.unauthorized();
    expect((await api(sim, '/api/v1/pods')).body).toMatchObject({ code: 401, reason: 'Unauthorized' });
    sim.faults.unauthorized(false);
    expect((await api(sim, '/api/v1/pods')).status).toBe(200);
  });

  test('failNth(n): exactly the nth request from now is a 500', async () => {
    const { sim } = await testSim(smallScenario());
    sim.faults.failNth(3);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await api(sim, '/api/v1/pods')).status);
    expect(statuses).toEqual([200, 200, 500, 200, 200]);
    expect(sim.audit[2]?.status).toBe(500);
  });

  test('latency(ms): responses wait at least that long; clear() turns every fault off', async () => {
    const { sim } = await testSim(smallScenario());
    sim.faults.latency(150).forbid('pods');
    const t0 = Date.now();
    expect((await api(sim, '/api/v1/pods')).status).toBe(403);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    sim.faults.clear();
    expect((await api(sim, '/api/v1/pods')).status).toBe(200);
  });
});

/** A request that gives up after `ms` (a client timeout), resolving to its status or the error's cause code. */
async function probe(url: string, token: string, ms = 1000): Promise<number | string> {
  try {
    const r = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(ms) });
    await r.arrayBuffer();
    return r.status;
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    return err.name === 'TimeoutError' ? 'timeout' : (err.cause?.code ?? err.message);
  }
}

describe('the API down', () => {
  test("down('refused'): connection refused and every connection cut; up() listens again on the same port", async () => {
    const { sim } = await testSim(smallScenario());
    const s = await watch(sim, '/api/v1/pods?watch=true');
    await until(() => s.events.length > 0, 'the initial events');
    sim.faults.down('refused');
    await until(() => s.error !== undefined || s.ended, 'the open watch to be cut');
    await until(async () => (await probe(`${sim.url}/api/v1/pods`, sim.token)) === 'ECONNREFUSED', 'refused');
    expect(sim.faults.describe()).toEqual([{ fault: 'down', mode: 'refused' }]);
    sim.faults.up();
    await until(async () => (await probe(`${sim.url}/api/v1/pods`, sim.token)) === 200, 'the port back');
  });

  test("down('unavailable'): 503 ServiceUnavailable for every request, open watches end", async () => {
    const { sim } = await testSim(smallScenario());
    const s = await watch(sim, '/api/v1/pods?watch=true');
    sim.faults.down('unavailable');
    await until(() => s.ended, 'the watch to end');
    const r = await api(sim, '/api/v1/pods');
    expect(r).toMatchObject({ status: 503, body: { kind: 'Status', reason: 'ServiceUnavailable', code: 503 } });
    expect((await api(sim, '/api')).status).toBe(503);
    sim.faults.up();
    expect((await api(sim, '/api/v1/pods')).status).toBe(200);
  });

  test("down('blackhole', {client}): that client's requests are accepted and never answered; others are served", async () => {
    const { sim } = await testSim(smallScenario());
    const b = await sim.addClient('b');
    sim.faults.down('blackhole', { client: 'b' });
    expect(await probe(`${sim.url}/api/v1/pods`, b.token, 300)).toBe('timeout');
    expect(await probe(`${sim.url}/api/v1/pods`, sim.token)).toBe(200);
    expect(sim.audit.find((e) => e.client === 'b')).toMatchObject({ status: 0, fault: 'blackhole' });
    sim.faults.up();
    expect(await probe(`${sim.url}/api/v1/pods`, b.token)).toBe(200);
  });

  test('forMs: an outage of a given length ends by itself', async () => {
    const { sim } = await testSim(smallScenario());
    sim.faults.down('unavailable', { forMs: 150 });
    expect((await api(sim, '/api/v1/pods')).status).toBe(503);
    await until(async () => (await api(sim, '/api/v1/pods')).status === 200, 'the outage to end');
    expect(sim.faults.describe()).toEqual([]);
  });
});

describe('scoped and counted faults', () => {
  test('respond(429, {times, retryAfter}): Retry-After and retryAfterSeconds, for that many requests', async () => {
    const { sim } = await testSim(smallScenario());
    sim.faults.respond(429, { times: 2, retryAfter: 3, resource: 'pods' });
    const r = await fetch(`${sim.url}/api/v1/pods`, { headers: { authorization: `Bearer ${sim.token}` } });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('3');
    expect(await r.json()).toMatchObject({ reason: 'TooManyRequests', details: { retryAfterSeconds: 3 } });
    expect((await api(sim, '/api/v1/nodes')).status).toBe(200); // another resource
    expect((await api(sim, '/api/v1/pods')).status).toBe(429);
    expect((await api(sim, '/api/v1/pods')).status).toBe(200);
  });

  test('forbid and latency for one client only', async () => {
    const { sim } = await testSim(smallScenario());
    const b = await sim.addClient('b');
    sim.faults.forbid('pods', undefined, { client: 'b' }).latency(150, { client: 'b' });
    expect((await api(sim, '/api/v1/pods')).status).toBe(200);
    const t0 = Date.now();
    expect((await api(sim, '/api/v1/pods', { token: b.token })).status).toBe(403);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  test('a scenario and startSimulator switch faults on from the start', async () => {
    const scenario = inline({ name: 'f', objects: [], faults: [{ fault: 'forbid', resource: 'nodes' }] });
    const { sim } = await testSim(scenario, {
      faults: [{ fault: 'respond', status: 500, resource: 'pods', times: 1 }],
    });
    expect((await api(sim, '/api/v1/nodes')).status).toBe(403);
    expect((await api(sim, '/api/v1/pods')).status).toBe(500);
    expect((await api(sim, '/api/v1/pods')).status).toBe(200);
  });

  test('apply() takes the JSON form; a malformed knob is one FAULT error naming the field', () => {
    const faults = new Faults();
    faults.apply([
      { fault: 'latency', ms: 10 },
      { fault: 'halfOpenWatches', client: 'x' },
    ]);
    expect(faults.describe()).toEqual([
      { fault: 'latency', ms: 10 },
      { fault: 'halfOpenWatches', client: 'x' },
    ]);
    expect(() => faults.apply({ fault: 'down', mode: 'sideways' })).toThrow(
      expect.objectContaining({ code: 'FAULT', message: expect.stringMatching(/^faults\[0\]\.mode/) }),
    );
    expect(() => faults.down('refused', { client: 'x' })).toThrow(/takes no client/);
  });
});

test('several simulators side by side: separate ports, objects, clients and faults', async () => {
  const { sim: one } = await testSim(smallScenario());
  const { sim: two } = await testSim(inline({ name: 'two', objects: [{ kind: 'Node', metadata: { name: 'solo' } }] }));
  expect(one.url).not.toBe(two.url);
  one.faults.down('unavailable');
  expect((await api(two, '/api/v1/nodes')).body.items.map((n: any) => n.metadata.name)).toEqual(['solo']);
  expect((await api(one, '/api/v1/nodes')).status).toBe(503);
  expect((await api(two, '/api/v1/nodes', { token: one.token })).status).toBe(401);
  one.faults.up();
  expect((await api(one, '/api/v1/nodes')).body.items).toHaveLength(3);
});

describe('starting with faults', () => {
  test('a malformed knob fails the start with a FAULT error; an admin port in use with PORT_IN_USE', async () => {
    const scenario = smallScenario();
    const bad = [{ fault: 'latency', ms: -1 }] as unknown as FaultCommand[];
    await expect(startSimulator({ scenario, realtime: false, faults: bad })).rejects.toMatchObject({ code: 'FAULT' });
    const { sim } = await testSim(scenario);
    const busy = Number(new URL(sim.adminUrl ?? '').port);
    const again = startSimulator({ scenario, realtime: false, adminPort: busy });
    await expect(again).rejects.toMatchObject({ code: 'PORT_IN_USE' });
  });

  test('a scenario can start with the port closed (down: refused) until up()', async () => {
    const { sim } = await testSim(inline({ name: 'r', objects: [], faults: [{ fault: 'down', mode: 'refused' }] }));
    await until(async () => (await probe(`${sim.url}/api`, sim.token)) === 'ECONNREFUSED', 'refused from the start');
    sim.faults.up();
    await until(async () => (await probe(`${sim.url}/api`, sim.token)) === 200, 'the port to open');
  });
});

test('cutResponses: a list stops inside its body (fewer bytes than Content-Length), then the connection closes', async () => {
  const { sim } = await testSim(smallScenario());
  sim.faults.cutResponses({ verb: 'list', times: 1 });
  const { connect } = await import('node:net');
  const socket = connect(Number(new URL(sim.url).port), '127.0.0.1');
  let raw = '';
  let closed = false;
  socket.on('data', (d) => (raw += String(d)));
  socket.on('close', () => (closed = true));
  socket.write(`GET /api/v1/pods HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer ${sim.token}\r\n\r\n`);
  await until(() => closed, 'the connection to close');
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const promised = Number(/content-length: (\d+)/i.exec(head)?.[1]);
  expect(head).toMatch(/^HTTP\/1\.1 200/);
  expect(Buffer.byteLength(body)).toBeGreaterThan(0);
  expect(Buffer.byteLength(body)).toBeLessThan(promised);
  expect(sim.audit.at(-1)).toMatchObject({ verb: 'list', fault: 'cutResponses' });
  expect((await api(sim, '/api/v1/pods')).status).toBe(200); // times: 1 is spent
});
