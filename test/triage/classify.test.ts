import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Snapshot } from '../../src/domain/snapshot.js';
import { triage } from '../../src/triage/triage.js';
import type { ClaimReport, Phase } from '../../src/triage/types.js';
import {
  DRIVER,
  NOW,
  baseCluster,
  csiDriver,
  csiNode,
  event,
  healthyClaim,
  lease,
  pod,
  pv,
  pvc,
  storageClass,
  va,
} from './fixtures.js';

interface Case {
  name: string;
  build: (s: Snapshot) => void;
  phase: Phase;
  detail: RegExp;
  check?: (c: ClaimReport) => void;
}

const NS = 'shop';

const CASES: Case[] = [
  // WaitForFirstConsumer and no pod: Pending is correct, said so.
  {
    name: 'wffc pending, no pod',
    phase: 'PENDING_NO_CONSUMER',
    detail: /correct behaviour.*WaitForFirstConsumer/,
    build: (s) => s.pvcs.push(pvc(NS, 'data', { volume: null, sc: 'vmstore-rwx-wffc' })),
    check: (c) => expect(c.needsAttention).toBe(false),
  },
  // A consumer that has finished (Succeeded) does not count: still no consumer.
  {
    name: 'wffc pending, only a completed pod',
    phase: 'PENDING_NO_CONSUMER',
    detail: /correct behaviour/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data', { volume: null, sc: 'vmstore-rwx-wffc' }));
      s.pods.push(pod(NS, 'job-1', { claim: 'data', state: 'succeeded' }));
    },
  },
  // Immediate binding and still Pending with no pod: the provisioner failed (correct only with WaitForFirstConsumer).
  {
    name: 'immediate pending, no pod',
    phase: 'PROVISION_FAILED',
    detail: /Immediate-binding class vmstore-rwx.*ProvisioningFailed: rpc error/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data', { volume: null }));
      s.events.push(
        event(
          NS,
          'PersistentVolumeClaim',
          'data',
          'ProvisioningFailed',
          'rpc error: code = InvalidArgument desc = unknown pool "gold"',
          { count: 12, lastAgo: 30 },
        ),
      );
    },
    check: (c) => {
      expect(c.needsAttention).toBe(true);
      expect(c.evidence.events[0]).toMatchObject({
        reason: 'ProvisioningFailed',
        count: 12,
        ageSeconds: 30,
        object: 'PersistentVolumeClaim/shop/data',
      });
      expect(c.advice.join(' ')).toMatch(/leader Lease/);
    },
  },
  // The newest Warning explains the failure, not the newer Normal "waiting for the external provisioner" event;
  // and a driver without a leader is named in the detail.
  {
    name: 'provision failed without a leader',
    phase: 'PROVISION_FAILED',
    detail:
      /ProvisioningFailed: pool not found; the csi.vmstore.tintri.com controller has no leader \(see preflight\)$/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data', { volume: null }));
      s.events.push(
        event(NS, 'PersistentVolumeClaim', 'data', 'ProvisioningFailed', 'pool not found', { lastAgo: 300 }),
      );
      s.events.push(
        event(NS, 'PersistentVolumeClaim', 'data', 'ExternalProvisioning', 'Waiting for a volume to be created', {
          lastAgo: 5,
          type: 'Normal',
        }),
      );
      s.leases = [lease('csi-vmstore-tintri-com', { renewedAgo: 3600 })];
    },
  },
  // A StorageClass with no volumeBindingMode field defaults to Immediate.
  {
    name: 'class without volumeBindingMode',
    phase: 'PROVISION_FAILED',
    detail: /Immediate-binding class legacy/,
    build: (s) => {
      const sc = { ...s.storageClasses[0]!, metadata: { name: 'legacy' } };
      delete sc.volumeBindingMode;
      s.storageClasses.push(sc);
      s.pvcs.push(pvc(NS, 'data', { volume: null, sc: 'legacy' }));
    },
  },
  // WaitForFirstConsumer, its only pod not scheduled and no node selected: the provisioner was never asked, the
  // scheduling layer holds it (UNSCHEDULABLE, never PROVISION_FAILED).
  {
    name: 'wffc pending with an unscheduled pod',
    phase: 'UNSCHEDULABLE',
    detail: /WaitForFirstConsumer and 1 pod\(s\) using it are not scheduled.*the provisioner has not been asked/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data', { volume: null, sc: 'vmstore-rwx-wffc' }));
      s.pods.push(pod(NS, 'web-0', { claim: 'data', node: null, state: 'pending-unscheduled' }));
    },
    check: (c) => {
      expect(c.evidence.pods.map((p) => p.name)).toEqual(['web-0']);
      expect(c.advice.join(' ')).not.toMatch(/StorageClass parameters/);
    },
  },
  // WaitForFirstConsumer with a node selected (the scheduler annotated the claim): provisioning was asked and failed.
  {
    name: 'wffc pending with a node selected',
    phase: 'PROVISION_FAILED',
    detail: /unbound but 1 pod\(s\) waiting/,
    build: (s) => {
      const c = pvc(NS, 'data', { volume: null, sc: 'vmstore-rwx-wffc' });
      c.metadata!.annotations = { 'volume.kubernetes.io/selected-node': 'node-1' };
      s.pvcs.push(c);
      s.pods.push(pod(NS, 'web-0', { claim: 'data', node: null, state: 'pending-unscheduled' }));
    },
  },
  // The claim names a StorageClass that does not exist.
  {
    name: 'missing storage class',
    phase: 'PROVISION_FAILED',
    detail: /StorageClass gold does not exist/,
    build: (s) => s.pvcs.push(pvc(NS, 'data', { volume: null, sc: 'gold' })),
  },
  // storageClassName "" means static binding only; nothing will provision it.
  {
    name: 'static binding, no PV',
    phase: 'PROVISION_FAILED',
    detail: /static binding/,
    build: (s) => s.pvcs.push(pvc(NS, 'data', { volume: null, sc: '' })),
  },
  // Bound to a PV that does not exist.
  {
    name: 'bound, PV missing',
    phase: 'BOUND_NO_PV',
    detail: /PV pvc-data is missing/,
    build: (s) => s.pvcs.push(pvc(NS, 'data')),
    check: (c) => expect(c.advice[0]).toMatch(/pvc-data/),
  },
  // phase Lost has its own phase.
  {
    name: 'lost',
    phase: 'LOST',
    detail: /lost its volume pvc-data/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data', { phase: 'Lost' }));
      s.pods.push(pod(NS, 'web-0', { claim: 'data' }));
    },
    check: (c) => expect(c.evidence.pods).toHaveLength(1),
  },
  // Stuck ContainerCreating with FailedMount events; the driver is not registered on that node (CSINode).
  {
    name: 'mount failed, driver not on node',
    phase: 'MOUNT_FAILED',
    detail: /1 pod\(s\) stuck ContainerCreating on node-02; driver csi.vmstore.tintri.com not registered on node-02/,
    build: (s) => {
      healthyClaim(s, NS, 'data');
      s.pods.push(pod(NS, 'data-web-1', { claim: 'data', node: 'node-02', state: 'creating', startedAgo: 900 }));
      s.csiNodes[1] = csiNode('node-02', null);
      s.events.push(
        event(
          NS,
          'Pod',
          'data-web-1',
          'FailedMount',
          'MountVolume.MountDevice failed for volume "pvc-data" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name csi.vmstore.tintri.com not found in the list of registered CSI drivers',
          { count: 9, lastAgo: 45 },
        ),
      );
      s.events.push(event(NS, 'Pod', 'data-web-1', 'Scheduled', 'Successfully assigned', { type: 'Normal' }));
    },
    check: (c) => {
      expect(c.evidence.nodes).toEqual([{ name: 'node-02', driverRegistered: false, exists: true }]);
      expect(c.evidence.events.map((e) => e.reason)).toEqual(['FailedMount']);
      expect(c.advice[0]).toMatch(/node plugin on node-02/);
    },
  },
  // Stuck ContainerCreating long enough, no events (events expire after an hour): still MOUNT_FAILED, driver registered.
  {
    name: 'mount failed, old ContainerCreating without events',
    phase: 'MOUNT_FAILED',
    detail: /stuck ContainerCreating on node-01$/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data'));
      s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
      s.pods.push(pod(NS, 'web-0', { claim: 'data', state: 'creating', startedAgo: 7200 }));
    },
    check: (c) => expect(c.evidence.nodes[0]?.driverRegistered).toBe(true),
  },
  // A pod just created is still starting: not a failure yet.
  {
    name: 'fresh ContainerCreating is OK',
    phase: 'OK',
    detail: /1 pod\(s\) across 1 node\(s\)/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data'));
      s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
      s.pods.push(pod(NS, 'web-0', { claim: 'data', state: 'creating', startedAgo: 10 }));
    },
  },
  // Terminating past its deadline with a finalizer: how long, and which finalizers.
  {
    name: 'unpublish stuck',
    phase: 'UNPUBLISH_STUCK',
    detail: /terminating: data-web-0 20m past grace, finalizers \[example.com\/drain-guard\]/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data'));
      s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
      s.pods.push(pod(NS, 'data-web-0', { claim: 'data', state: 'terminating', deletedAgo: 1200 }));
      s.events.push(
        event(NS, 'Pod', 'data-web-0', 'FailedUnmount', 'UnmountVolume.TearDown failed: device or resource busy'),
      );
    },
    check: (c) => {
      expect(c.evidence.events.map((e) => e.reason)).toEqual(['FailedUnmount']);
      expect(c.evidence.pods[0]).toMatchObject({
        overdueSeconds: 1200,
        finalizers: ['example.com/drain-guard'],
        gracePeriodSeconds: 30,
        node: 'node-01',
      });
      expect(c.advice.join(' ')).toMatch(/Never remove the finalizers by hand and never force-delete/);
    },
  },
  // finalizers: null (as the API omits/nulls it) is an empty list, not a crash.
  {
    name: 'unpublish stuck, finalizers null',
    phase: 'UNPUBLISH_STUCK',
    detail: /finalizers \[\]/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data'));
      s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
      s.pods.push(pod(NS, 'data-web-0', { claim: 'data', state: 'terminating', deletedAgo: 60, finalizers: null }));
    },
  },
  // Still inside its grace period (deletionTimestamp in the future): terminating normally, not stuck.
  {
    name: 'terminating within grace is OK',
    phase: 'OK',
    detail: /1 pod\(s\)/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data'));
      s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
      s.pods.push(pod(NS, 'data-web-0', { claim: 'data', state: 'terminating', deletedAgo: -20 }));
    },
  },
  // Kubernetes 1.27+: a deleted pod in a terminal phase still holds its volume while the kubelet tears it down. Its
  // claim is UNPUBLISH_STUCK, and the attachment on its node is in use, not stale.
  {
    name: 'terminal phase, terminating, still holds the volume',
    phase: 'UNPUBLISH_STUCK',
    detail: /terminating: job-0 20m past grace/,
    build: (s) => {
      healthyClaim(s, NS, 'data');
      s.pods.length = 0;
      const p = pod(NS, 'job-0', { claim: 'data', state: 'terminating', deletedAgo: 1200, finalizers: null });
      p.status = { phase: 'Failed', containerStatuses: null };
      s.pods.push(p);
      s.volumeAttachments.push(va('csi-fff', 'pvc-data', 'node-01'));
    },
    check: (c) => expect(c.alsoPhases).toEqual([]),
  },
  // Only storage is storage: the claim's pod is stuck on a missing Secret; the claim itself mounts fine.
  {
    name: 'a missing secret is not the claim mount failing',
    phase: 'OK',
    detail: /1 pod\(s\)/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data'));
      s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
      const p = pod(NS, 'web-0', { claim: 'data', state: 'creating', startedAgo: 3600 });
      p.spec!.volumes!.push({ name: 'tls', secret: { secretName: 'payments-tls' } });
      s.pods.push(p);
      s.events.push(
        event(
          NS,
          'Pod',
          'web-0',
          'FailedMount',
          'MountVolume.SetUp failed for volume "tls" : secret "payments-tls" not found',
        ),
      );
    },
  },
  // Attached on a node that runs no consumer: the orphaned stage reference; ordered recovery.
  {
    name: 'stale attachment',
    phase: 'STALE_ATTACHMENT',
    detail: /attached on node\(s\) with no consumer: node-02$/,
    build: (s) => {
      healthyClaim(s, NS, 'data');
      s.volumeAttachments.push(
        va('csi-aaa', 'pvc-data', 'node-01'),
        va('csi-bbb', 'pvc-data', 'node-02', true, { detachError: 'rpc error: device busy' }),
        va('csi-ccc', 'pvc-data', 'node-03', false),
      );
    },
    check: (c) => {
      expect(c.evidence.attachments).toEqual([
        { name: 'csi-bbb', node: 'node-02', attached: true, deleting: false, detachError: 'rpc error: device busy' },
      ]);
      expect(c.advice.map((a) => a.slice(0, 2))).toEqual(['1.', '2.', '3.', '4.', '5.']);
      expect(c.advice[1]).toBe('2. Cordon node-02.');
    },
  },
  // Attached on a node that no longer exists.
  {
    name: 'stale attachment on a gone node',
    phase: 'STALE_ATTACHMENT',
    detail: /node-09 \(node gone: node-09\)/,
    build: (s) => {
      healthyClaim(s, NS, 'data');
      s.volumeAttachments.push(va('csi-ddd', 'pvc-data', 'node-09'));
    },
  },
  // Several strands at once: the first by precedence is the phase, the others are listed.
  {
    name: 'mount failed and stale attachment',
    phase: 'MOUNT_FAILED',
    detail: /node-02/,
    build: (s) => {
      s.pvcs.push(pvc(NS, 'data'));
      s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
      s.pods.push(pod(NS, 'web-0', { claim: 'data', node: 'node-02', state: 'creating', startedAgo: 3600 }));
      s.volumeAttachments.push(va('csi-eee', 'pvc-data', 'node-01'));
    },
    check: (c) => expect(c.alsoPhases).toEqual(['STALE_ATTACHMENT']),
  },
  // Healthy: the OK detail counts pods and nodes.
  {
    name: 'ok',
    phase: 'OK',
    detail: /^2 pod\(s\) across 2 node\(s\)$/,
    build: (s) => {
      healthyClaim(s, NS, 'data');
      s.pods.push(pod(NS, 'data-web-1', { claim: 'data', node: 'node-02' }));
      s.volumeAttachments.push(va('csi-fff', 'pvc-data', 'node-02'));
    },
    check: (c) => {
      expect(c.advice).toEqual([]);
      expect(c.driver).toBe(DRIVER);
    },
  },
];

describe('triage classification', () => {
  it.each(CASES)('$name', (tc) => {
    const s = baseCluster();
    tc.build(s);
    const r = triage(ClusterIndex.fromSnapshot(s), { now: NOW });
    expect(r.claims).toHaveLength(1);
    const c = r.claims[0]!;
    expect(c.phase).toBe(tc.phase);
    expect(c.detail).toMatch(tc.detail);
    tc.check?.(c);
  });

  // A stale leader Lease: every Pending claim of that provisioner is linked to it, the leader first in its advice.
  it('links every Pending claim of a leaderless provisioner to the missing leader', () => {
    const s = baseCluster();
    for (const name of ['a', 'b', 'c']) s.pvcs.push(pvc(NS, name, { volume: null }));
    s.leases = [lease('csi-vmstore-tintri-com', { renewedAgo: 3600 })];
    const claims = triage(ClusterIndex.fromSnapshot(s), { now: NOW }).claims;
    expect(claims.map((c) => [c.name, c.phase])).toEqual([
      ['a', 'PROVISION_FAILED'],
      ['b', 'PROVISION_FAILED'],
      ['c', 'PROVISION_FAILED'],
    ]);
    for (const c of claims) {
      expect(c.detail).toMatch(/controller has no leader \(see preflight\)$/);
      expect(c.advice[0]).toMatch(/^The csi.vmstore.tintri.com controller has no live leader/);
    }
  });

  it('examines only ReadWriteMany claims, and filters by namespace and driver', () => {
    const s = baseCluster();
    healthyClaim(s, 'a', 'one');
    healthyClaim(s, 'b', 'two');
    s.pvcs.push(pvc('a', 'rwo', { modes: ['ReadWriteOnce'] }));
    s.pvcs.push(pvc('b', 'other', { volume: 'pv-nfs' }));
    s.pvs.push(pv('pv-nfs', { ns: 'b', name: 'other' }, 'nfs.csi.k8s.io'));
    const idx = ClusterIndex.fromSnapshot(s);
    expect(
      triage(idx, { now: NOW })
        .claims.map((c) => c.name)
        .sort(),
    ).toEqual(['one', 'other', 'two']);
    expect(triage(idx, { now: NOW, namespace: 'a' }).claims.map((c) => c.name)).toEqual(['one']);
    expect(triage(idx, { now: NOW, driver: 'nfs.csi.k8s.io' }).claims.map((c) => c.name)).toEqual(['other']);
    // a Pending claim's driver comes from its StorageClass, so --driver keeps it (it has no PV to name one)
    s.pvcs.push(pvc('c', 'pending', { volume: null }));
    expect(triage(ClusterIndex.fromSnapshot(s), { now: NOW, driver: DRIVER }).claims.map((c) => c.name)).toContain(
      'pending',
    );
  });

  it('groups by phase with OK last and counts what needs attention', () => {
    const s = baseCluster();
    healthyClaim(s, NS, 'a-ok');
    s.pvcs.push(pvc(NS, 'b-missing'));
    s.pvcs.push(pvc(NS, 'c-wait', { volume: null, sc: 'vmstore-rwx-wffc' }));
    const r = triage(ClusterIndex.fromSnapshot(s), { now: NOW });
    expect(r.claims.map((c) => c.phase)).toEqual(['BOUND_NO_PV', 'PENDING_NO_CONSUMER', 'OK']);
    // waiting for a first consumer by design is reported but does not need attention
    expect(r.claims.map((c) => c.needsAttention)).toEqual([true, false, false]);
    expect(r.summary).toMatchObject({ claimsExamined: 3, claimsNeedingAttention: 1, preflightProblems: 0 });
    expect(r.summary.byPhase.OK).toBe(1);
  });

  it('copes with claims and pods missing most fields', () => {
    const s = baseCluster();
    s.pvcs.push({ metadata: { name: 'bare', namespace: NS }, spec: { accessModes: ['ReadWriteMany'] } });
    s.pvcs.push({
      metadata: { name: 'nulls', namespace: NS },
      spec: { accessModes: ['ReadWriteMany'], storageClassName: null, volumeName: null },
      status: { phase: 'Pending', accessModes: null },
    });
    s.pods.push({
      metadata: { name: 'p', namespace: NS },
      spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'bare' } }], containers: null },
      status: { phase: 'Pending', containerStatuses: null },
    });
    s.events.push({
      metadata: { name: 'e', namespace: NS },
      involvedObject: { kind: 'PersistentVolumeClaim', namespace: NS, name: 'nulls' },
      reason: 'ProvisioningFailed',
      count: null,
      lastTimestamp: null,
    });
    const r = triage(ClusterIndex.fromSnapshot(s), { now: NOW });
    expect(r.claims.map((c) => [c.name, c.phase])).toEqual([
      ['bare', 'PROVISION_FAILED'],
      ['nulls', 'PROVISION_FAILED'],
    ]);
    expect(r.claims[1]!.evidence.events[0]).toMatchObject({ count: 1, reason: 'ProvisioningFailed' });
    expect(r.claims[1]!.evidence.events[0]!.ageSeconds).toBeUndefined();
  });

  it('uses the series count and last observed time of new-style events', () => {
    const s = baseCluster();
    s.pvcs.push(pvc(NS, 'data', { volume: null }));
    s.events.push(event(NS, 'PersistentVolumeClaim', 'data', 'ProvisioningFailed', 'old', { lastAgo: 500 }));
    s.events.push(
      event(NS, 'PersistentVolumeClaim', 'data', 'ProvisioningFailed', 'new', { lastAgo: 20, series: true }),
    );
    const c = triage(ClusterIndex.fromSnapshot(s), { now: NOW }).claims[0]!;
    expect(c.evidence.events.map((e) => [e.message, e.count, e.ageSeconds])).toEqual([
      ['new', 42, 20],
      ['old', 7, 500],
    ]);
  });
});

// The mount steps fit the storage (detect/storage-path.ts claimStorageKind) and name every node the mount fails on.
describe('mount-failure steps by kind of storage', () => {
  const failing = (s: Snapshot, nodes: string[]): void => {
    s.pvcs.push(pvc(NS, 'data'));
    nodes.forEach((n, i) =>
      s.pods.push(pod(NS, `data-web-${i}`, { claim: 'data', node: n, state: 'creating', startedAgo: 900 })),
    );
  };
  const withDriver = (s: Snapshot, driver: string, attachRequired: boolean | null, params?: Record<string, string>) => {
    s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }, driver));
    s.storageClasses.push({ ...storageClass('files', 'Immediate', driver), parameters: params ?? {} });
    s.pvcs[0]!.spec!.storageClassName = 'files';
    if (attachRequired !== null) s.csiDrivers.push(csiDriver(driver, { attachRequired }));
  };
  const ROWS: {
    name: string;
    build: (s: Snapshot) => void;
    has: RegExp[];
    hasNot: RegExp[];
  }[] = [
    {
      name: 'NFS CSI driver: export checks with the server of its class, no attach step',
      build: (s) => withDriver(s, 'nfs.csi.k8s.io', false, { server: 'nfs.storage.internal', share: '/k8s' }),
      has: [/node plugin on node-01/, /showmount -e nfs\.storage\.internal/, /rpcinfo -t nfs\.storage\.internal nfs/],
      hasNot: [/volumeattachment/i, /kubelet mounts it itself/],
    },
    {
      name: 'NFS told by a class parameter (nfsVers), server unknown: a placeholder',
      build: (s) => withDriver(s, 'files.example.com', false, { nfsVers: '4.1' }),
      has: [/showmount -e <server>/],
      hasNot: [/volumeattachment/i],
    },
    {
      name: 'block CSI driver (attachRequired true): attach steps, no NFS checks',
      build: (s) => withDriver(s, 'ebs.csi.aws.com', true),
      has: [/node plugin on node-01/, /pvc-data is attached to node-01: kubectl get volumeattachment/, /csi-attacher/],
      hasNot: [/showmount|rpcinfo|ping -M/],
    },
    {
      name: 'block CSI driver (attachRequired defaulted)',
      build: (s) => {
        withDriver(s, 'ebs.csi.aws.com', null);
        s.csiDrivers.push(csiDriver('ebs.csi.aws.com', {}));
      },
      has: [/kubectl get volumeattachment/],
      hasNot: [/showmount|rpcinfo|ping -M/],
    },
    {
      name: 'CSI driver of unknown kind (no attach, no NFS sign): node plugin steps only',
      build: (s) => withDriver(s, 'files.example.com', false, { pool: 'a' }),
      has: [/node plugin on node-01/],
      hasNot: [/showmount|rpcinfo|ping -M/, /volumeattachment/i],
    },
    {
      name: 'CSIDriver object missing: unknown, no guessed steps',
      build: (s) => withDriver(s, 'files.example.com', null),
      has: [/node plugin on node-01/],
      hasNot: [/showmount|rpcinfo|ping -M/, /volumeattachment/i],
    },
    {
      name: 'built-in nfs volume: the kubelet mounts it, no node plugin; export checks with its server',
      build: (s) => s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }, null)),
      has: [
        /built-in nfs volume type: the kubelet mounts it itself/,
        /journalctl -u kubelet/,
        /showmount -e 10\.0\.0\.9/,
      ],
      hasNot: [/node plugin on|node plugin's log|CSINode/, /volumeattachment/i],
    },
    {
      name: 'built-in glusterfs volume: kubelet steps only',
      build: (s) => {
        const v = pv('pvc-data', { ns: NS, name: 'data' }, null);
        delete v.spec!.nfs;
        (v.spec as Record<string, unknown>)['glusterfs'] = { endpoints: 'gluster', path: 'vol' };
        s.pvs.push(v);
      },
      has: [/built-in glusterfs volume type/],
      hasNot: [/node plugin on|CSINode/, /showmount|rpcinfo|ping -M/, /volumeattachment/i],
    },
  ];

  it.each(ROWS)('$name', (row) => {
    const s = baseCluster();
    failing(s, ['node-01']);
    row.build(s);
    const c = triage(ClusterIndex.fromSnapshot(s), { now: NOW }).claims[0]!;
    expect(c.phase).toBe('MOUNT_FAILED');
    const text = c.advice.join('\n');
    for (const re of row.has) expect(text).toMatch(re);
    for (const re of row.hasNot) expect(text).not.toMatch(re);
  });

  it('a claim failing on two nodes names both', () => {
    const s = baseCluster();
    failing(s, ['node-02', 'node-01']);
    s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }, 'nfs.csi.k8s.io'));
    const c = triage(ClusterIndex.fromSnapshot(s), { now: NOW }).claims[0]!;
    expect(c.phase).toBe('MOUNT_FAILED');
    expect(c.advice[0]).toMatch(/node plugin on node-01 and node-02, not the controller/);
    expect(c.advice.at(-1)).toMatch(/^On node-01 and node-02, check the NFS export/);
  });
});
