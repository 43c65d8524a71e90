// Bulk loading (packages/kube-sim/src/bulk.ts): a generated cluster's objects, already in served form, are stored
// as given (no defaults, copies or reference resolution) and served, listed and watched like scenario objects; the
// kubelet leaves a bulk pod at rest until something changes it; a malformed object is a SCENARIO error.
/* eslint-disable @typescript-eslint/no-explicit-any -- API responses here are untyped JSON, read field by field */
import { describe, expect, test } from 'vitest';
import { isSimError, type KubeObject } from '@rwx/kube-sim';
import { api, inline, testSim } from '../support/sim.js';
import { until } from '../support/until.js';
import { summary, watch } from './stream.js';

/** A pod waiting on its claim in ContainerCreating on node-1, as `kubectl get -o json` prints it. */
function creatingPod(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, creationTimestamp: '2026-11-30T08:00:00Z' },
    spec: {
      nodeName: 'node-1',
      restartPolicy: 'Always',
      containers: [{ name: 'app', image: 'app:1' }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
    },
    status: {
      phase: 'Pending',
      containerStatuses: [{ name: 'app', state: { waiting: { reason: 'ContainerCreating' } } }],
    },
  };
}

const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'uid-node-1' } };
const phase = async (sim: Parameters<typeof api>[0], name: string) =>
  (await api(sim, `/api/v1/namespaces/shop/pods/${name}`)).body.status.phase;

describe('bulk loading', () => {
  test('objects are served as given, with a resourceVersion, in key order, with their namespaces', async () => {
    const bulk = [creatingPod('b'), creatingPod('a'), node];
    const { sim } = await testSim(inline({ name: 'bulk', objects: [] }), { bulk });
    const pods = await api(sim, '/api/v1/pods');
    expect(pods.body.items.map((p: any) => p.metadata.name)).toEqual(['a', 'b']);
    const { resourceVersion, ...meta } = pods.body.items[0].metadata;
    expect(meta).toEqual(creatingPod('a').metadata);
    expect(Number(resourceVersion)).toBeGreaterThan(0);
    // No API-server defaults filled in: the scenario path would add dnsPolicy, tolerations, imagePullPolicy...
    expect(pods.body.items[0].spec).toEqual(creatingPod('a').spec);
    expect((await api(sim, '/api/v1/namespaces/shop')).status).toBe(200);
    expect((await api(sim, '/api/v1/nodes/node-1')).body.metadata.uid).toBe('uid-node-1');
  });

  test('a watch from the list resourceVersion sees changes to bulk objects', async () => {
    const { sim } = await testSim(inline({ name: 'bulk', objects: [] }), { bulk: [creatingPod('a'), node] });
    const rv = (await api(sim, '/api/v1/pods')).body.metadata.resourceVersion;
    const stream = await watch(sim, `/api/v1/pods?watch=1&resourceVersion=${rv}`);
    sim.apply({ delete: [{ kind: 'Pod', namespace: 'shop', name: 'a' }] });
    await until(() => summary(stream).includes('DELETED a'), 'the DELETED event');
    stream.close();
  });

  test('the kubelet leaves a bulk pod at rest until something changes it; a scenario pod it starts', async () => {
    const scenario = inline({ name: 'bulk', objects: [{ ...creatingPod('scripted'), status: { phase: 'Pending' } }] });
    const { sim } = await testSim(scenario, { bulk: [creatingPod('at-rest'), node] });
    await sim.advance(5_000);
    expect(await phase(sim, 'scripted')).toBe('Running');
    expect(await phase(sim, 'at-rest')).toBe('Pending');
    // A change makes it the kubelet's like any other pod: it starts about a second later.
    sim.apply({ set: [{ kind: 'Pod', namespace: 'shop', name: 'at-rest', fields: { 'metadata.labels.x': 'y' } }] });
    await sim.advance(2_000);
    expect(await phase(sim, 'at-rest')).toBe('Running');
  });

  test.each([
    // a kind the simulator does not serve
    [{ kind: 'Gadget', metadata: { name: 'g' } }, /kind Gadget is not served/],
    // no name
    [{ kind: 'Node', metadata: {} }, /metadata.name is required/],
    // a namespaced kind without its namespace
    [{ kind: 'Pod', metadata: { name: 'p' } }, /metadata.namespace is required/],
  ])('a malformed object is a SCENARIO error naming it: %j', async (bad, message) => {
    const err = await testSim(inline({ name: 'bulk', objects: [] }), { bulk: [node, bad] }).catch((e: unknown) => e);
    expect(isSimError(err, 'SCENARIO')).toBe(true);
    expect((err as Error).message).toMatch(/^bulk object 1/);
    expect((err as Error).message).toMatch(message);
  });
});
