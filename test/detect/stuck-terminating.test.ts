// Detector: pods stuck Terminating past deletionTimestamp + stuckAfter (the API server's deletionTimestamp already
// includes the grace period).
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { detectContext } from '../../src/detect/config.js';
import { detectStuckTerminating } from '../../src/detect/stuck-terminating.js';
import { ago, claim, event, MIN, NOW, pod, snapshotOf } from './builders.js';

const ctx = detectContext(NOW);
const busy =
  'UnmountVolume.TearDown failed for volume "shared" : unmount failed: exit status 32: umount: /var/lib/kubelet/pods/x/volumes/kubernetes.io~csi/pv/mount: target is busy (device or resource busy)';

describe('detectStuckTerminating', () => {
  it.each<
    [
      string,
      Parameters<typeof pod>[1],
      { kind?: string }[],
      { cause: string; finalizers: string[]; stuckSeconds: number } | undefined,
    ]
  >([
    // grace ran out 20m ago (deletionTimestamp = request + grace): stuck 20m, unmount busy evidence -> storage
    [
      'unmount busy',
      { deleted: ago(20 * MIN), grace: 30 },
      [event('ns', 'p', 'FailedUnmount', busy, ago(MIN), 6)],
      { cause: 'storage', finalizers: [], stuckSeconds: 20 * 60 },
    ],
    // grace ran out exactly 5m ago: stuckAfter not exceeded
    ['too recent', { deleted: ago(5 * MIN), grace: 30 }, [], undefined],
    // grace ran out 5m10s ago: stuck, the 30s grace is not added a second time; no event, but the pod has a
    // claim and nothing else holds it: an unmount suspect (real kubelets often log teardown failures only)
    [
      'grace not added twice',
      { deleted: ago(5 * MIN + 10_000), grace: 30 },
      [],
      { cause: 'storage', finalizers: [], stuckSeconds: 5 * 60 + 10 },
    ],
    // Kubernetes 1.27+: the kubelet sets a terminal phase before it tears volumes down; the pod still holds them
    [
      'terminal phase, still terminating',
      { deleted: ago(20 * MIN), grace: 30, phase: 'Failed' },
      [],
      { cause: 'storage', finalizers: [], stuckSeconds: 20 * 60 },
    ],
    [
      'succeeded, still terminating',
      { deleted: ago(20 * MIN), grace: 30, phase: 'Succeeded' },
      [event('ns', 'p', 'FailedUnmount', busy, ago(MIN), 2)],
      { cause: 'storage', finalizers: [], stuckSeconds: 20 * 60 },
    ],
    // held by a finalizer, no unmount events -> unknown cause (the finalizer explains it), finalizers listed
    [
      'finalizer',
      { deleted: ago(30 * MIN), grace: 0, finalizers: ['example.com/protect'] },
      [],
      { cause: 'unknown', finalizers: ['example.com/protect'], stuckSeconds: 30 * 60 },
    ],
    // not deleted at all
    ['alive', {}, [], undefined],
  ])('%s', (_name, o, objects, want) => {
    const p = pod('p', {
      ns: 'ns',
      node: 'n1',
      scheduled: ago(60 * MIN),
      started: ago(59 * MIN),
      claims: { shared: 'shared' },
      ...o,
    });
    const idx = ClusterIndex.fromSnapshot(
      snapshotOf([...claim('ns', 'shared', 'efs.csi.aws.com', ['ReadWriteMany']), p, ...objects]),
    );
    const [f, ...rest] = detectStuckTerminating(idx, ctx);
    expect(rest).toEqual([]);
    if (!want) return expect(f).toBeUndefined();
    expect({ cause: f?.cause, finalizers: f?.finalizers, stuckSeconds: f?.stuckSeconds }).toEqual(want);
    expect(f?.kind).toBe('stuck-terminating');
    expect(f?.storage.map((s) => [s.volume, s.accessModes])).toEqual([['shared', ['ReadWriteMany']]]);
  });

  // Only storage is storage: configuration volumes never make an unmount suspect nor a storage path.
  it.each<[string, { kind?: string }[], string, string[]]>([
    ['config volumes only, no event', [], 'unknown', []],
    [
      'a secret volume fails to unmount',
      [event('ns', 'c', 'FailedUnmount', 'UnmountVolume.TearDown failed for volume "tls" : remove busy', ago(MIN))],
      'config',
      [],
    ],
  ])('%s', (_name, objects, cause, storage) => {
    const p = pod('c', { ns: 'ns', node: 'n1', started: ago(59 * MIN), deleted: ago(20 * MIN) });
    p.spec!.volumes = [
      { name: 'tls', secret: { secretName: 'payments-tls' } },
      { name: 'cfg', configMap: { name: 'app' } },
      { name: 'scratch', emptyDir: {} },
    ];
    const [f] = detectStuckTerminating(ClusterIndex.fromSnapshot(snapshotOf([p, ...objects])), ctx);
    expect(f?.cause).toBe(cause);
    expect(f?.storage.map((s) => s.volume)).toEqual(storage);
  });

  it('keeps the unmount events as evidence', () => {
    const p = pod('p', {
      ns: 'ns',
      node: 'n1',
      scheduled: ago(60 * MIN),
      started: ago(59 * MIN),
      claims: { shared: 'shared' },
      deleted: ago(20 * MIN),
    });
    const idx = ClusterIndex.fromSnapshot(
      snapshotOf([
        ...claim('ns', 'shared', 'efs.csi.aws.com'),
        p,
        event('ns', 'p', 'FailedUnmount', busy, ago(MIN), 6),
      ]),
    );
    const [f] = detectStuckTerminating(idx, ctx);
    expect(f?.events).toEqual([
      {
        object: 'Pod/ns/p',
        type: 'Warning',
        reason: 'FailedUnmount',
        message: busy,
        count: 6,
        lastSeen: ago(MIN),
        ageSeconds: 60,
      },
    ]);
  });
});
