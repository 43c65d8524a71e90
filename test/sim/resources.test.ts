// The simulator's own resource table: what a real API server serves (not only what the bot reads), discovery that
// kubectl uses, the API server's defaults for the kinds it adds, and custom resources a scenario declares.
/* eslint-disable @typescript-eslint/no-explicit-any -- API responses here are untyped JSON, read field by field */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { BUILT_IN } from '@rwx/kube-sim';
import { api, inline, testSim } from '../support/sim.js';

const run = promisify(execFile);

const cluster = () =>
  inline({
    name: 'kinds',
    resources: [
      {
        kind: 'VolumeSnapshot',
        group: 'snapshot.storage.k8s.io',
        version: 'v1',
        resource: 'volumesnapshots',
        namespaced: true,
      },
    ],
    objects: [
      { kind: 'Secret', metadata: { name: 'db-creds', namespace: 'shop' }, stringData: { password: 'hunter2' } },
      { kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' }, data: { mode: 'fast' } },
      { kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { ports: [{ port: 80 }] } },
      { kind: 'ServiceAccount', metadata: { name: 'rwx', namespace: 'shop' } },
      { kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } },
      { kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: 'shop' }, spec: { minAvailable: 1 } },
      { kind: 'VolumeSnapshot', metadata: { name: 'snap-1', namespace: 'shop' }, spec: { source: {} } },
    ],
  });

describe('resources', () => {
  test('the built-in table covers the core, apps, batch, policy, storage and coordination kinds', () => {
    const names = BUILT_IN.map((r) => `${r.group || 'core'}/${r.resource}`);
    for (const r of ['core/secrets', 'core/configmaps', 'core/services', 'apps/deployments', 'apps/statefulsets'])
      expect(names).toContain(r);
    expect(names).toContain('coordination.k8s.io/leases');
    expect(names).toContain('policy/poddisruptionbudgets');
    expect(new Set(names).size).toBe(names.length);
  });

  test('kinds the bot never reads are served with the API server defaults', async () => {
    const { sim } = await testSim(cluster());
    const secret = (await api(sim, '/api/v1/namespaces/shop/secrets/db-creds')).body;
    expect(secret).toMatchObject({
      kind: 'Secret',
      apiVersion: 'v1',
      type: 'Opaque',
      data: { password: 'aHVudGVyMg==' },
    });
    expect(secret.stringData).toBeUndefined();
    const svc = (await api(sim, '/api/v1/namespaces/shop/services/web')).body;
    expect(svc.spec).toMatchObject({ type: 'ClusterIP', clusterIP: expect.stringMatching(/^10\.96\./) });
    expect(svc.spec.ports[0]).toEqual({ port: 80, protocol: 'TCP', targetPort: 80 });
    const lists = await Promise.all(
      [
        '/api/v1/configmaps',
        '/api/v1/serviceaccounts',
        '/apis/apps/v1/deployments',
        '/apis/policy/v1/poddisruptionbudgets',
      ].map((p) => api(sim, p)),
    );
    expect(lists.map((l) => [l.status, l.body.kind, l.body.items.length])).toEqual([
      [200, 'ConfigMapList', 1],
      [200, 'ServiceAccountList', 1],
      [200, 'DeploymentList', 1],
      [200, 'PodDisruptionBudgetList', 1],
    ]);
  });

  test('a declared custom resource is served and discovered', async () => {
    const { sim } = await testSim(cluster());
    const list = await api(sim, '/apis/snapshot.storage.k8s.io/v1/namespaces/shop/volumesnapshots');
    expect(list.body).toMatchObject({ kind: 'VolumeSnapshotList', apiVersion: 'snapshot.storage.k8s.io/v1' });
    expect(list.body.items.map((o: any) => o.metadata.name)).toEqual(['snap-1']);
    const groups = (await api(sim, '/apis')).body.groups.map((g: any) => g.name);
    expect(groups).toContain('snapshot.storage.k8s.io');
    expect(sim.objects('VolumeSnapshot')).toHaveLength(1);
    expect(() => sim.objects('Nope')).toThrow(expect.objectContaining({ code: 'KIND' }));
  });

  test('kubectl reads them through discovery: get secrets,svc, api-resources, get all', async () => {
    const { sim } = await testSim(cluster());
    const kubectl = async (...args: string[]) =>
      (await run('kubectl', ['--kubeconfig', sim.kubeconfigPath, ...args], { timeout: 20_000 })).stdout;
    expect((await kubectl('get', 'secrets,svc', '-n', 'shop', '-o', 'name')).trim().split('\n')).toEqual([
      'secret/db-creds',
      'service/web',
    ]);
    const resources = await kubectl('api-resources', '--no-headers', '-o', 'name');
    for (const r of [
      'configmaps',
      'secrets',
      'deployments.apps',
      'leases.coordination.k8s.io',
      'volumesnapshots.snapshot.storage.k8s.io',
    ])
      expect(resources.split('\n')).toContain(r);
    const all = await kubectl('get', 'all', '-n', 'shop', '-o', 'name');
    expect(all.trim().split('\n').sort()).toEqual(['deployment.apps/web', 'service/web']);
  });
});
