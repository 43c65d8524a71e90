// The admin endpoint: the same knobs over HTTP on a port of its own (answering while the API port refuses), named
// clients, the audit log, sim time and timeline steps for a simulator in another process.
/* eslint-disable @typescript-eslint/no-explicit-any -- admin answers here are untyped JSON, read field by field */
import { describe, expect, test } from 'vitest';
import type { Simulator } from '@rwx/kube-sim';
import { api, testSim } from '../support/sim.js';
import { until } from '../support/until.js';
import { smallScenario } from './fixtures.js';

async function admin(sim: Simulator, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sim.adminUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('admin endpoint', () => {
  test('POST, GET and DELETE /faults switch knobs; it still answers while the API port refuses', async () => {
    const { sim } = await testSim(smallScenario());
    expect(sim.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const on = await admin(sim, 'POST', '/faults', [
      { fault: 'down', mode: 'refused' },
      { fault: 'latency', ms: 5 },
    ]);
    expect(on).toEqual({
      status: 200,
      body: {
        faults: [
          { fault: 'down', mode: 'refused' },
          { fault: 'latency', ms: 5 },
        ],
      },
    });
    await until(async () => {
      try {
        await fetch(`${sim.url}/api`);
        return false;
      } catch {
        return true;
      }
    }, 'the API port to refuse');
    expect((await admin(sim, 'GET', '/faults')).body.faults).toHaveLength(2);
    expect(await admin(sim, 'DELETE', '/faults')).toEqual({ status: 200, body: { faults: [] } });
    await until(async () => (await api(sim, '/api/v1/pods').catch(() => ({ status: 0 }))).status === 200, 'the API');
  });

  test('a malformed knob, bad JSON or an unknown route is a 400 / 404 with a message', async () => {
    const { sim } = await testSim(smallScenario());
    const bad = await admin(sim, 'POST', '/faults', { fault: 'down', mode: 'sideways' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^faults\[0\]\.mode/);
    expect((await admin(sim, 'POST', '/faults', '{nope')).status).toBe(400);
    expect((await admin(sim, 'GET', '/nothing')).status).toBe(404);
    expect(sim.faults.describe()).toEqual([]);
  });

  test('POST /clients makes a named client whose kubeconfig works and whose requests the audit names', async () => {
    const { sim } = await testSim(smallScenario());
    const made = await admin(sim, 'POST', '/clients', { name: 'replica-b' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'replica-b', token: expect.stringMatching(/^sim-/) });
    expect((await api(sim, '/api/v1/nodes', { token: made.body.token })).status).toBe(200);
    expect((await admin(sim, 'POST', '/clients', { name: 'replica-b' })).status).toBe(400); // names are unique
    const audit = await admin(sim, 'GET', '/audit?since=0');
    expect(audit.body.entries.at(-1)).toMatchObject({ client: 'replica-b', verb: 'list', resource: 'nodes' });
    expect(audit.body.next).toBe(sim.audit.length);
  });

  test('POST /apply and /advance change the cluster; GET /objects reads it', async () => {
    const { sim } = await testSim(smallScenario());
    const gone = await admin(sim, 'POST', '/apply', { delete: [{ kind: 'Pod', namespace: 'jobs', name: 'batch-0' }] });
    expect(gone.status).toBe(200);
    const t = sim.now();
    expect((await admin(sim, 'POST', '/advance', { ms: 60_000 })).body.now).toBe(t + 60_000);
    const pods = await admin(sim, 'GET', '/objects?kind=Pod');
    expect(pods.body.items.map((p: any) => p.metadata.name)).not.toContain('batch-0');
    // the timeline step at 1m ran: db-0 is Running
    expect(pods.body.items.find((p: any) => p.metadata.name === 'db-0').status.phase).toBe('Running');
    expect((await admin(sim, 'POST', '/apply', { add: [{ kind: 'Nope', metadata: { name: 'x' } }] })).status).toBe(400);
    expect((await admin(sim, 'GET', '/objects?kind=Nope')).status).toBe(400);
  });

  test('adminPort: false starts none', async () => {
    const { sim } = await testSim(smallScenario(), { adminPort: false });
    expect(sim.adminUrl).toBeUndefined();
  });
});
