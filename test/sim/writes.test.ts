// Writes for the post-upgrade gate: claims bind to a fresh CSI volume, pods run to completion on healthy nodes
// and stick in ContainerCreating (FailedMount rising) on broken ones; delete honours finalizers; audit shows it all.
/* eslint-disable @typescript-eslint/no-explicit-any -- API responses here are untyped JSON, read field by field */
import { describe, expect, test } from 'vitest';
import { api, testSim, simSnapshot } from '../support/sim.js';
import { smallScenario } from './fixtures.js';

const claim = (name: string, storageClassName = 'fast') => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, labels: { 'rwx.dev/gate': 'run-1' } },
  spec: { accessModes: ['ReadWriteOnce'], storageClassName, resources: { requests: { storage: '1Gi' } } },
});
const pod = (name: string, node: string, claimName: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { 'rwx.dev/gate': 'run-1' } },
  spec: {
    nodeName: node,
    restartPolicy: 'Never',
    containers: [
      {
        name: 'probe',
        image: 'busybox:1.36',
        command: ['sh', '-c', 'echo ok > /data/probe'],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
    ],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
  },
});

describe('writes', () => {
  test('a created claim binds at once to a new PV of the class provisioner', async () => {
    const { sim } = await testSim(smallScenario());
    const r = await api(sim, '/api/v1/namespaces/shop/persistentvolumeclaims', {
      method: 'POST',
      body: claim('probe-1'),
    });
    expect(r.status).toBe(201);
    expect(r.body.status.phase).toBe('Bound');
    const pv = (await api(sim, `/api/v1/persistentvolumes/${r.body.spec.volumeName}`)).body;
    expect(pv).toMatchObject({
      spec: {
        csi: { driver: 'fast.csi.example.com' },
        claimRef: { name: 'probe-1', namespace: 'shop', uid: r.body.metadata.uid },
      },
      status: { phase: 'Bound' },
    });
  });

  test('a claim of a missing class stays Pending with a ProvisioningFailed event', async () => {
    const { sim } = await testSim(smallScenario());
    const r = await api(sim, '/api/v1/namespaces/shop/persistentvolumeclaims', {
      method: 'POST',
      body: claim('probe-x', 'nope'),
    });
    expect(r.body.status.phase).toBe('Pending');
    const ev = (await api(sim, '/api/v1/namespaces/shop/events?fieldSelector=involvedObject.name%3Dprobe-x')).body
      .items;
    expect(ev.map((e: any) => e.reason)).toEqual(['ProvisioningFailed']);
  });

  test('a pod on a healthy node goes Running then Succeeded within a second of sim time', async () => {
    const { sim } = await testSim(smallScenario());
    await api(sim, '/api/v1/namespaces/shop/persistentvolumeclaims', { method: 'POST', body: claim('probe-1') });
    const created = await api(sim, '/api/v1/namespaces/shop/pods', {
      method: 'POST',
      body: pod('probe-1', 'node-1', 'probe-1'),
    });
    expect(created.status).toBe(201);
    expect(created.body.status.containerStatuses[0].state.waiting.reason).toBe('ContainerCreating');
    await sim.advance(400);
    expect((await api(sim, '/api/v1/namespaces/shop/pods/probe-1')).body.status.phase).toBe('Running');
    await sim.advance(600);
    const done = (await api(sim, '/api/v1/namespaces/shop/pods/probe-1')).body;
    expect(done.status.phase).toBe('Succeeded');
    expect(done.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  });

  test('a pod on a broken node stays ContainerCreating and its FailedMount count rises', async () => {
    const { sim } = await testSim(smallScenario());
    await api(sim, '/api/v1/namespaces/shop/persistentvolumeclaims', { method: 'POST', body: claim('probe-3') });
    await api(sim, '/api/v1/namespaces/shop/pods', { method: 'POST', body: pod('probe-3', 'node-3', 'probe-3') });
    const events = async () =>
      (
        await api(
          sim,
          '/api/v1/namespaces/shop/events?fieldSelector=involvedObject.name%3Dprobe-3,reason%3DFailedMount',
        )
      ).body.items;
    await sim.advance(2 * 60_000);
    expect((await events())[0]).toMatchObject({
      count: 1,
      type: 'Warning',
      source: { component: 'kubelet', host: 'node-3' },
    });
    await sim.advance(4 * 60_000);
    expect((await events())[0].count).toBe(3);
    const p = (await api(sim, '/api/v1/namespaces/shop/pods/probe-3')).body;
    expect(p.status.phase).toBe('Pending');
    expect(p.status.containerStatuses[0].state.waiting.reason).toBe('ContainerCreating');
  });

  test('delete: without finalizers the pod goes; with finalizers it stays Terminating', async () => {
    const { sim } = await testSim(smallScenario());
    const gone = await api(sim, '/api/v1/namespaces/shop/pods/web-0', { method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect(gone.body.metadata.deletionTimestamp).toBeTruthy();
    expect((await api(sim, '/api/v1/namespaces/shop/pods/web-0')).status).toBe(404);
    sim.apply({
      set: [{ kind: 'Pod', namespace: 'shop', name: 'web-1', fields: { 'metadata.finalizers': ['example.com/hold'] } }],
    });
    await api(sim, '/api/v1/namespaces/shop/pods/web-1', { method: 'DELETE' });
    const held = (await api(sim, '/api/v1/namespaces/shop/pods/web-1')).body;
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    expect((await api(sim, '/api/v1/namespaces/shop/pods/nope', { method: 'DELETE' })).status).toBe(404);
  });

  test('deletecollection with a labelSelector removes only the matching pods; audit shows every write', async () => {
    const { sim } = await testSim(smallScenario());
    await api(sim, '/api/v1/namespaces/shop/persistentvolumeclaims', { method: 'POST', body: claim('probe-1') });
    await api(sim, '/api/v1/namespaces/shop/pods', { method: 'POST', body: pod('probe-1', 'node-1', 'probe-1') });
    const r = await api(sim, '/api/v1/namespaces/shop/pods?labelSelector=rwx.dev%2Fgate%3Drun-1', { method: 'DELETE' });
    expect(r.body.items.map((p: any) => p.metadata.name)).toEqual(['probe-1']);
    await api(sim, '/api/v1/namespaces/shop/persistentvolumeclaims/probe-1', { method: 'DELETE' });
    expect((await api(sim, '/api/v1/namespaces/shop/pods')).body.items).toHaveLength(4);
    // The provisioned volume goes with its claim (reclaim policy Delete).
    expect(simSnapshot(sim).pvs).toHaveLength(0);
    expect(
      sim.audit.filter((a) => !['get', 'list', 'watch'].includes(a.verb)).map((a) => `${a.verb} ${a.resource}`),
    ).toEqual([
      'create persistentvolumeclaims',
      'create pods',
      'deletecollection pods',
      'delete persistentvolumeclaims',
    ]);
  });

  test('conflicts and bad bodies are API errors', async () => {
    const { sim } = await testSim(smallScenario());
    const dup = await api(sim, '/api/v1/namespaces/shop/pods', { method: 'POST', body: pod('web-0', 'node-1', 'x') });
    expect(dup).toMatchObject({ status: 409, body: { reason: 'AlreadyExists' } });
    const noName = await api(sim, '/api/v1/namespaces/shop/pods', {
      method: 'POST',
      body: { kind: 'Pod', metadata: {} },
    });
    expect(noName.status).toBe(422);
    const generated = await api(sim, '/api/v1/namespaces/shop/pods', {
      method: 'POST',
      body: { kind: 'Pod', metadata: { generateName: 'gate-' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    });
    expect(generated.body.metadata.name).toMatch(/^gate-[a-z0-9]{5}$/);
  });
});
