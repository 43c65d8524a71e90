// Faults on demand and authorization: 403 per resource (and in SSAR answers), 401, 500 on the nth request, latency.
import { describe, expect, test } from 'vitest';
import { api, inline, testSim } from '../support/sim.js';
import { smallScenario } from './fixtures.js';

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
