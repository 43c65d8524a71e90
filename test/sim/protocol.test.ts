// The REST surface: discovery, get/list for every kind the bot reads, pagination, selectors, errors, audit.
/* eslint-disable @typescript-eslint/no-explicit-any -- API responses here are untyped JSON, read field by field */
import { describe, expect, test } from 'vitest';
import { KINDS, KIND_KEYS, apiVersionOf } from '../../src/domain/kinds.js';
import { api, testSim } from '../support/sim.js';
import { smallScenario } from './fixtures.js';

function collection(k: (typeof KINDS)[keyof typeof KINDS], ns?: string): string {
  const base = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
  return ns ? `${base}/namespaces/${ns}/${k.resource}` : `${base}/${k.resource}`;
}

describe('discovery', () => {
  test('advertises every kind the bot reads, with its scope', async () => {
    const { sim } = await testSim(smallScenario());
    expect((await api(sim, '/version')).body.gitVersion).toMatch(/^v1\./);
    expect((await api(sim, '/api')).body.versions).toEqual(['v1']);
    const groups = (await api(sim, '/apis')).body.groups.map((g: any) => g.name);
    for (const k of KIND_KEYS) {
      const info = KINDS[k];
      if (info.group) expect(groups).toContain(info.group);
      const list = (await api(sim, info.group ? `/apis/${apiVersionOf(info)}` : '/api/v1')).body;
      const r = list.resources.find((x: any) => x.name === info.resource);
      expect(r, info.resource).toMatchObject({ kind: info.kind, namespaced: info.namespaced });
      expect(r.verbs).toEqual(expect.arrayContaining(['get', 'list', 'watch']));
    }
  });
});

describe('list and get', () => {
  test('every kind lists cluster-wide (200, a typed List, items without kind)', async () => {
    const { sim } = await testSim('scenarios/propagation-loss.yaml');
    for (const k of KIND_KEYS) {
      const { status, body } = await api(sim, collection(KINDS[k]));
      expect(status, k).toBe(200);
      expect(body.kind).toBe(`${KINDS[k].kind}List`);
      expect(body.items.length, k).toBeGreaterThan(0);
      // The API server omits TypeMeta on list items; readers must not rely on it.
      expect(body.items[0].kind).toBeUndefined();
    }
  });

  test('namespaced list, get by name, 404 for a missing object, 404 for a namespaced path on a cluster kind', async () => {
    const { sim } = await testSim(smallScenario());
    const shop = await api(sim, '/api/v1/namespaces/shop/pods');
    expect(shop.body.items.map((p: any) => p.metadata.name)).toEqual(['db-0', 'web-0', 'web-1', 'web-2']);
    const one = await api(sim, '/api/v1/namespaces/shop/pods/web-1');
    expect(one.body).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'web-1', namespace: 'shop' } });
    const missing = await api(sim, '/api/v1/namespaces/shop/pods/nope');
    expect(missing).toMatchObject({
      status: 404,
      body: { kind: 'Status', reason: 'NotFound', message: 'pods "nope" not found' },
    });
    expect((await api(sim, '/api/v1/namespaces/shop/nodes')).status).toBe(404);
  });

  test('objects look like kubectl output: uid, creationTimestamp, resourceVersion, PodScheduled, null fields', async () => {
    const { sim } = await testSim(smallScenario());
    const pod = (await api(sim, '/api/v1/namespaces/shop/pods/db-0')).body;
    expect(pod.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pod.metadata.creationTimestamp).toBe('2026-11-30T07:15:00Z');
    expect(Number(pod.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(pod.status.conditions.find((c: any) => c.type === 'PodScheduled')).toMatchObject({
      status: 'True',
      lastProbeTime: null,
    });
    const ev = (await api(sim, '/api/v1/namespaces/shop/events')).body.items[0];
    expect(ev).toMatchObject({
      involvedObject: { kind: 'Pod', name: 'db-0', uid: pod.metadata.uid },
      eventTime: null,
      count: 3,
    });
  });

  test('resourceVersion increases on every change', async () => {
    const { sim } = await testSim(smallScenario());
    const rv = async () => Number((await api(sim, '/api/v1/pods')).body.metadata.resourceVersion);
    const versions = [await rv()];
    for (let i = 0; i < 3; i++) {
      await sim.advance(60_000);
      versions.push(await rv());
    }
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(4);
  });
});

describe('pagination', () => {
  test('limit/continue walks every item once, with remainingItemCount', async () => {
    const { sim } = await testSim('scenarios/propagation-loss.yaml');
    const all = (await api(sim, '/api/v1/pods')).body.items.map((p: any) => p.metadata.uid);
    const seen: string[] = [];
    let cont = '';
    let pages = 0;
    do {
      const { body } = await api(sim, `/api/v1/pods?limit=25${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      seen.push(...body.items.map((p: any) => p.metadata.uid));
      cont = body.metadata.continue ?? '';
      if (cont) expect(body.metadata.remainingItemCount).toBe(all.length - seen.length);
      else expect(body.metadata.remainingItemCount).toBeUndefined();
      pages++;
    } while (cont);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 25));
  });

  test('a continue token from before a compaction is 410 Expired', async () => {
    const { sim } = await testSim(smallScenario());
    const first = (await api(sim, '/api/v1/pods?limit=2')).body;
    await sim.advance(60_000);
    sim.compact();
    const next = await api(sim, `/api/v1/pods?limit=2&continue=${first.metadata.continue}`);
    expect(next).toMatchObject({ status: 410, body: { reason: 'Expired' } });
  });
});

describe('selectors', () => {
  const cases: [string, string, string[]][] = [
    // equality
    ['labelSelector=app%3Dweb', 'shop', ['web-0', 'web-1', 'web-2']],
    // double equals and a second requirement (AND)
    ['labelSelector=app%3D%3Dweb,tier%3Dfront', 'shop', ['web-0', 'web-1', 'web-2']],
    // inequality matches objects without the label too
    ['labelSelector=tier!%3Dfront', 'shop', ['db-0']],
    // set membership
    ['labelSelector=app%20in%20(db,batch)', '', ['batch-0', 'db-0']],
    // set exclusion
    ['labelSelector=app%20notin%20(web)', '', ['batch-0', 'db-0']],
    // exists and does-not-exist
    ['labelSelector=tier', '', ['web-0', 'web-1', 'web-2']],
    ['labelSelector=!tier', '', ['batch-0', 'db-0']],
    // field selectors
    ['fieldSelector=spec.nodeName%3Dnode-2', '', ['batch-0', 'web-1']],
    ['fieldSelector=status.phase!%3DRunning', '', ['batch-0', 'db-0']],
    ['fieldSelector=metadata.name%3Dweb-1', '', ['web-1']],
    ['fieldSelector=metadata.namespace%3Djobs', '', ['batch-0']],
    // both kinds together
    ['labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dnode-3', '', ['web-2']],
  ];
  test.each(cases)('%s (ns %s)', async (query, ns, names) => {
    const { sim } = await testSim(smallScenario());
    const { status, body } = await api(sim, `/api/v1${ns ? `/namespaces/${ns}` : ''}/pods?${query}`);
    expect(status).toBe(200);
    expect(body.items.map((p: any) => p.metadata.name).sort()).toEqual(names);
  });

  test('involvedObject field selectors on events; unsupported fields and bad syntax are 400', async () => {
    const { sim } = await testSim(smallScenario());
    const ev = await api(sim, '/api/v1/events?fieldSelector=involvedObject.name%3Ddb-0,involvedObject.kind%3DPod');
    expect(ev.body.items).toHaveLength(1);
    expect((await api(sim, '/api/v1/pods?fieldSelector=spec.hostname%3Dx')).body).toMatchObject({
      code: 400,
      message: 'field label not supported: spec.hostname',
    });
    expect((await api(sim, '/api/v1/pods?labelSelector=a%20in%20b')).status).toBe(400);
  });
});

describe('audit', () => {
  test('records verb, method, path, query and status of every request', async () => {
    const { sim } = await testSim(smallScenario());
    await api(sim, '/api/v1/namespaces/shop/pods?limit=1');
    await api(sim, '/api/v1/namespaces/shop/pods/web-0');
    await api(sim, '/api/v1/namespaces/shop/pods/nope');
    await api(sim, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST',
      body: { spec: { resourceAttributes: { verb: 'list', resource: 'pods' } } },
    });
    expect(sim.audit.map((a) => [a.verb, a.method, a.path, a.status])).toEqual([
      ['list', 'GET', '/api/v1/namespaces/shop/pods', 200],
      ['get', 'GET', '/api/v1/namespaces/shop/pods/web-0', 200],
      ['get', 'GET', '/api/v1/namespaces/shop/pods/nope', 404],
      ['create', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', 201],
    ]);
    expect(sim.audit[0]?.query).toEqual({ limit: '1' });
    expect(sim.audit[1]).toMatchObject({ resource: 'pods', namespace: 'shop', name: 'web-0' });
  });
});
