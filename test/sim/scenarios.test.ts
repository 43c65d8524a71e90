// The scenario library: each file loads, carries the facts its header describes, and its timeline plays out.
import { describe, expect, test } from 'vitest';
import type { Pod } from '../../src/domain/objects.js';
import type { Snapshot } from '../../src/domain/snapshot.js';
import { loadScenario } from '@rwx/kube-sim';
import { formatAge } from '../../src/domain/duration.js';
import { testSim, SIM_START, simSnapshot } from '../support/sim.js';

const pod = (s: Snapshot, ns: string, name: string) =>
  s.pods.find((p) => p.metadata?.namespace === ns && p.metadata?.name === name);
const waiting = (p: Pod | undefined) => p?.status?.containerStatuses?.[0]?.state?.waiting?.reason;
const age = (ts: string | null | undefined) => formatAge(SIM_START - Date.parse(ts ?? ''));
const events = (s: Snapshot, name: string, reason: string) =>
  s.events.filter((e) => e.involvedObject?.name === name && e.reason === reason);
const pluginPods = (s: Snapshot) => s.pods.filter((p) => p.metadata?.labels?.app === 'ebs-csi-node');

describe('propagation-loss', () => {
  test('the incident at 09:15 as its header describes it', async () => {
    const { sim } = await testSim('scenarios/propagation-loss.yaml');
    const s = simSnapshot(sim);
    expect(s.nodes).toHaveLength(40);
    const ds = s.daemonSets.find((d) => d.metadata?.name === 'ebs-csi-node');
    expect(ds?.status).toMatchObject({ desiredNumberScheduled: 40, numberReady: 40, updatedNumberScheduled: 28 });
    // Revision 2 lost the propagation line and carries the change-cause.
    const revs = s.controllerRevisions
      .filter((r) => r.metadata?.name?.startsWith('ebs-csi-node-'))
      .sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
    expect(revs.map((r) => r.revision)).toEqual([1, 2]);
    const kubeletMount = (i: number) =>
      revs[i]?.data?.spec?.template?.spec?.containers?.[0]?.volumeMounts?.find((m) => m.name === 'kubelet-dir');
    expect(kubeletMount(0)?.mountPropagation).toBe('Bidirectional');
    expect(kubeletMount(1)?.mountPropagation).toBeUndefined();
    expect(revs[1]?.metadata?.annotations?.['kubernetes.io/change-cause']).toBe('driver upgrade v1.30.0 -> v1.31.0');
    expect(age(revs[1]?.metadata?.creationTimestamp)).toBe('3h1m');
    expect(ds?.spec?.template?.spec?.containers?.[0]?.image).toMatch(/v1\.31\.0$/);
    // Plugin pods sorted by age, every sixth row: the revision-1 pods, then the rollout's order from node-19.
    const byNode = new Map(pluginPods(s).map((p) => [p.spec?.nodeName, p]));
    const sorted = pluginPods(s).sort(
      (a, b) => Date.parse(a.metadata?.creationTimestamp ?? '') - Date.parse(b.metadata?.creationTimestamp ?? ''),
    );
    expect(
      sorted
        .filter((_, i) => i % 6 === 0)
        .slice(0, 6)
        .map((p) => `${p.metadata?.name} ${age(p.metadata?.creationTimestamp)} ${p.spec?.nodeName}`),
    ).toEqual([
      'ebs-csi-node-x4k2p 26d node-02',
      'ebs-csi-node-r7wqm 26d node-14',
      'ebs-csi-node-9tzvb 3h1m node-19',
      'ebs-csi-node-c5mdh 2h48m node-27',
      'ebs-csi-node-k8plf 2h11m node-33',
      expect.stringMatching(/ 1h37m node-39$/),
    ]);
    // postgres-2: stuck on node-19, scheduled 24m ago, FailedMount x9 over 22m, its volume attached there.
    const pg = pod(s, 'platform', 'postgres-2');
    expect([pg?.spec?.nodeName, waiting(pg), age(pg?.metadata?.creationTimestamp)]).toEqual([
      'node-19',
      'ContainerCreating',
      '24m',
    ]);
    const fm = events(s, 'postgres-2', 'FailedMount')[0];
    expect(fm).toMatchObject({
      count: 9,
      message:
        'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], timed out waiting for the condition',
    });
    expect(age(fm?.firstTimestamp)).toBe('22m');
    const va = s.volumeAttachments.find((v) => v.metadata?.name === 'csi-3f81a4c9');
    expect(va).toMatchObject({
      spec: { nodeName: 'node-19', source: { persistentVolumeName: 'pvc-a17c5b2e-9d44-4c1a-b6f2-71e0c8d3a952' } },
      status: { attached: true },
    });
    // search: 3 of 5, running pods on node-02/08/14 (revision 1), stuck ones on updated nodes.
    const search = s.pods.filter((p) => p.metadata?.namespace === 'search');
    expect(
      search
        .filter((p) => p.status?.phase === 'Running')
        .map((p) => p.spec?.nodeName)
        .sort(),
    ).toEqual(['node-02', 'node-08', 'node-14']);
    expect(search.filter((p) => waiting(p) === 'ContainerCreating')).toHaveLength(2);
    // The backup: no success for two nights, today's job pod stuck on an updated node.
    const cron = s.cronJobs[0];
    expect(cron?.spec?.schedule).toBe('0 2 * * *');
    expect(SIM_START - Date.parse(cron?.status?.lastSuccessfulTime ?? '')).toBe((54 * 60 + 52) * 60_000);
    const backup = s.pods.find((p) => p.metadata?.name?.startsWith('nightly-backup-'));
    expect(waiting(backup)).toBe('ContainerCreating');
    expect(byNode.get(backup?.spec?.nodeName)?.metadata?.labels?.['controller-revision-hash']).toBe('57d4b9c6f8');
    // Owner chains with uids: Pod -> ReplicaSet -> Deployment, Pod -> Job -> CronJob, plugin Pod -> DaemonSet.
    const rsRef = search[0]?.metadata?.ownerReferences?.[0];
    expect(rsRef?.uid).toBeTruthy();
    expect(byNode.get('node-19')?.metadata?.ownerReferences?.[0]?.uid).toBe(ds?.metadata?.uid);
    expect(backup?.metadata?.ownerReferences?.[0]?.uid).toBe(
      s.jobs.find((j) => j.metadata?.name === 'nightly-backup-29411640')?.metadata?.uid,
    );
  });

  test('the timeline: the rollout spreads, the rollback heals in the same order, the backup completes', async () => {
    const { sim } = await testSim('scenarios/propagation-loss.yaml');
    await sim.advance(6 * 60_000);
    let s = simSnapshot(sim);
    expect(s.daemonSets.find((d) => d.metadata?.name === 'ebs-csi-node')?.status?.updatedNumberScheduled).toBe(29);
    expect(waiting(pod(s, 'data', 'clickhouse-1'))).toBe('ContainerCreating');
    await sim.advance(6 * 60_000);
    s = simSnapshot(sim);
    // Rolled back: revision 1's object is renumbered 3 and the DaemonSet's template follows it.
    expect(
      s.controllerRevisions
        .filter((r) => r.metadata?.name?.startsWith('ebs-csi-node-'))
        .map((r) => r.revision)
        .sort(),
    ).toEqual([2, 3]);
    const fmBefore = events(s, 'postgres-2', 'FailedMount')[0]?.count ?? 0;
    expect(fmBefore).toBeGreaterThan(9);
    await sim.advance(11 * 60_000);
    s = simSnapshot(sim);
    expect(s.daemonSets.find((d) => d.metadata?.name === 'ebs-csi-node')?.status).toMatchObject({
      updatedNumberScheduled: 40,
      numberReady: 40,
    });
    expect(pluginPods(s).every((p) => p.metadata?.labels?.['controller-revision-hash'] === '6f7c9d8b4')).toBe(true);
    for (const [ns, name] of [
      ['platform', 'postgres-2'],
      ['data', 'clickhouse-1'],
    ] as const)
      expect(pod(s, ns, name)?.status?.phase, name).toBe('Running');
    expect(s.pods.filter((p) => p.metadata?.namespace === 'search' && p.status?.phase === 'Running')).toHaveLength(5);
    const fmAfter = events(s, 'postgres-2', 'FailedMount')[0]?.count;
    await sim.advance(10 * 60_000);
    s = simSnapshot(sim);
    expect(events(s, 'postgres-2', 'FailedMount')[0]?.count).toBe(fmAfter);
    const job = s.jobs.find((j) => j.metadata?.name === 'nightly-backup-29411640');
    expect(job?.status?.conditions?.map((c) => c.type)).toContain('Complete');
    expect(Date.parse(s.cronJobs[0]?.status?.lastSuccessfulTime ?? '')).toBeGreaterThan(SIM_START);
  });
});

describe('the other scenarios', () => {
  test('rwx-strands: every triage case is present', async () => {
    const { sim } = await testSim('scenarios/rwx-strands.yaml');
    const s = simSnapshot(sim);
    const claim = (ns: string, n: string) => s.pvcs.find((c) => c.metadata?.namespace === ns && c.metadata?.name === n);
    expect(claim('analytics', 'scratch')?.status?.phase).toBe('Pending');
    expect(
      s.storageClasses.find((c) => c.metadata?.name === claim('analytics', 'scratch')?.spec?.storageClassName)
        ?.volumeBindingMode,
    ).toBe('WaitForFirstConsumer');
    expect(events(s, 'build-cache', 'ProvisioningFailed')).toHaveLength(1);
    expect(s.pvs.find((v) => v.metadata?.name === claim('legacy', 'reports')?.spec?.volumeName)).toBeUndefined();
    expect(claim('archive', 'old-logs')?.status?.phase).toBe('Lost');
    const stuck = s.pods
      .filter((p) => waiting(p) === 'ContainerCreating')
      .map((p) => p.spec?.nodeName)
      .sort();
    expect(stuck).toEqual(['node-03', 'node-06']);
    expect(s.csiNodes.find((n) => n.metadata?.name === 'node-06')?.spec?.drivers ?? []).toHaveLength(0);
    const trainer = pod(s, 'ml', 'trainer-0');
    expect(trainer?.metadata?.deletionTimestamp).toBeTruthy();
    expect(trainer?.metadata?.finalizers).toHaveLength(1);
    expect(events(s, 'trainer-0', 'FailedUnmount')[0]?.message).toContain('device or resource busy');
    expect(s.volumeAttachments.filter((v) => v.spec?.nodeName === 'node-04')).toHaveLength(1);
    expect(s.pods.filter((p) => p.spec?.nodeName === 'node-04' && p.metadata?.namespace === 'shared')).toHaveLength(0);
    const lease = s.leases.find((l) => l.metadata?.name === 'vmstore-csi-tintri-com');
    expect(SIM_START - Date.parse(lease?.spec?.renewTime ?? '')).toBeGreaterThan(
      (lease?.spec?.leaseDurationSeconds ?? 0) * 1000,
    );
    expect(claim('db', 'pg-data')?.spec?.accessModes).toEqual(['ReadWriteOnce']);
    // The stuck mounts stay stuck (their nodes are broken) and keep reporting.
    await sim.advance(5 * 60_000);
    expect(simSnapshot(sim).pods.filter((p) => waiting(p) === 'ContainerCreating')).toHaveLength(2);
  });

  test('node-fault: stuck pods only on node-07, two drivers, no rollout in progress', async () => {
    const { sim } = await testSim('scenarios/node-fault.yaml');
    const s = simSnapshot(sim);
    const stuck = s.pods.filter((p) => waiting(p) === 'ContainerCreating');
    expect(new Set(stuck.map((p) => p.spec?.nodeName))).toEqual(new Set(['node-07']));
    const drivers = new Set(
      stuck.map(
        (p) =>
          s.pvs.find((v) => v.spec?.claimRef?.name === p.spec?.volumes?.[0]?.persistentVolumeClaim?.claimName)?.spec
            ?.csi?.driver,
      ),
    );
    expect(drivers).toEqual(new Set(['rbd.csi.ceph.com', 'nfs.csi.k8s.io']));
    for (const ds of s.daemonSets)
      expect(ds.status?.updatedNumberScheduled, ds.metadata?.name).toBe(ds.status?.desiredNumberScheduled);
    await sim.advance(10 * 60_000);
    expect(simSnapshot(sim).pods.filter((p) => waiting(p) === 'ContainerCreating')).toHaveLength(3);
  });

  test('cni-sandbox: ContainerCreating with FailedCreatePodSandBox, no FailedMount, storage healthy; recovers at 10m', async () => {
    const { sim } = await testSim('scenarios/cni-sandbox.yaml');
    let s = simSnapshot(sim);
    expect(s.pods.filter((p) => waiting(p) === 'ContainerCreating')).toHaveLength(4);
    expect(s.events.filter((e) => e.reason === 'FailedCreatePodSandBox')).toHaveLength(4);
    expect(s.events.filter((e) => e.reason === 'FailedMount')).toHaveLength(0);
    expect(s.pvcs.every((c) => c.status?.phase === 'Bound')).toBe(true);
    await sim.advance(5 * 60_000);
    expect(simSnapshot(sim).events.filter((e) => e.reason === 'FailedMount')).toHaveLength(0);
    await sim.advance(5 * 60_000);
    s = simSnapshot(sim);
    expect(s.pods.filter((p) => waiting(p) === 'ContainerCreating')).toHaveLength(0);
  });
});

describe('scenario files', () => {
  const bad: [string, string, RegExp][] = [
    // malformed YAML
    ['bad.yaml', 'name: x\nobjects: [', /invalid YAML/],
    // a kind that is neither built in nor declared under resources:
    [
      'kind.yaml',
      'name: x\nobjects:\n  - {kind: VolumeSnapshot, metadata: {name: s}}',
      /"VolumeSnapshot" is not a built-in/,
    ],
    // a custom resource that reuses a built-in kind
    [
      'dup.yaml',
      'name: x\nresources:\n  - {kind: Pod, group: x.io, version: v1, resource: pods, namespaced: true}',
      /declared twice/,
    ],
    // a fault knob with a typo
    ['fault.yaml', 'name: x\nfaults:\n  - {fault: down, mode: sideways}', /faults\[0\]/],
    // a missing name
    ['noname.yaml', 'name: x\nobjects:\n  - {kind: Pod, metadata: {}}', /metadata\.name/],
    // an unknown template variable
    ['var.yaml', 'name: x\nobjects:\n  - {kind: Node, metadata: {name: "n-${nope}"}}', /unknown variable "nope"/],
    // a bad forEach range
    [
      'range.yaml',
      'name: x\nobjects:\n  - {forEach: {n: "a..b"}, kind: Node, metadata: {name: n}}',
      /forEach wants a range/,
    ],
    // a bad timeline offset
    ['at.yaml', 'name: x\ntimeline:\n  - {at: soon}', /timeline\[0\]\.at/],
  ];
  test.each(bad)('%s is one clear SCENARIO error', async (file, text, message) => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'rwx-scn-'));
    await writeFile(join(dir, file), text);
    await expect(loadScenario(join(dir, file))).rejects.toMatchObject({
      code: 'SCENARIO',
      message: expect.stringMatching(message),
    });
  });

  test('a missing file is a SCENARIO error naming it', async () => {
    await expect(loadScenario('/nonexistent/x.yaml')).rejects.toMatchObject({
      code: 'SCENARIO',
      message: expect.stringContaining('/nonexistent/x.yaml'),
    });
  });
});

test('scenarioPath finds the bundled scenarios', async () => {
  const { scenarioPath } = await import('../support/sim.js');
  await expect(loadScenario(scenarioPath('node-fault'))).resolves.toMatchObject({ name: 'node-fault' });
});
