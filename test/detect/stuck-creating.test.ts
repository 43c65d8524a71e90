// Detector: pods stuck in ContainerCreating, their cause and blamed storage.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Pod, StorageClass } from '../../src/domain/objects.js';
import { detectContext } from '../../src/detect/config.js';
import { detectStuckCreating, stuckCreatingFinding } from '../../src/detect/stuck-creating.js';
import {
  ago,
  claim,
  cronJob,
  cronJobJob,
  event,
  failedMount,
  HOUR,
  MIN,
  NOW,
  pod,
  runPod,
  snapshotOf,
} from './builders.js';

const ctx = detectContext(NOW);
const ebs = 'ebs.csi.aws.com';

function indexWith(...objects: { kind?: string }[]): ClusterIndex {
  return ClusterIndex.fromSnapshot(snapshotOf([...claim('ns', 'data-claim', ebs, ['ReadWriteMany']), ...objects]));
}

describe('events of an earlier pod with the same name', () => {
  // A StatefulSet pod recreated under the same name: the old pod's FailedMount (another uid) is not evidence.
  it('are not attached to the new pod', () => {
    const p = pod('p', { ns: 'ns', node: 'n1', scheduled: ago(10 * MIN), claims: { data: 'data-claim' } });
    const old = event('ns', 'p', 'FailedMount', failedMount(['data']), ago(MIN), 4);
    old.involvedObject = { ...old.involvedObject, uid: 'uid-of-the-previous-pod' };
    const mine = event('ns', 'p', 'FailedCreatePodSandBox', 'Failed to create pod sandbox', ago(2 * MIN));
    mine.involvedObject = { ...mine.involvedObject, uid: p.metadata?.uid };
    const f = stuckCreatingFinding(indexWith(p, old, mine), p, ctx);
    expect([f?.cause, f?.events.map((e) => e.reason)]).toEqual(['network', ['FailedCreatePodSandBox']]);
  });
});

describe('stuckCreatingFinding', () => {
  const stuck = (o: Parameters<typeof pod>[1] = {}) =>
    pod('p', { ns: 'ns', node: 'n1', scheduled: ago(10 * MIN), claims: { data: 'data-claim' }, ...o });

  it.each<[string, Pod, { kind?: string }[], { cause: string; volumes: string[]; driver?: string } | undefined]>([
    // FailedMount naming the volume: storage, volume -> claim -> PV -> driver
    [
      'failed mount',
      stuck(),
      [event('ns', 'p', 'FailedMount', failedMount(['data']), ago(MIN), 4)],
      { cause: 'storage', volumes: ['data'], driver: ebs },
    ],
    // scheduled 4 minutes ago: not stuck yet
    ['under stuckAfter', stuck({ scheduled: ago(4 * MIN) }), [], undefined],
    // init container waiting PodInitializing, main waiting PodInitializing: included
    [
      'init container',
      stuck({ init: 'PodInitializing' }),
      [event('ns', 'p', 'FailedMount', failedMount(['data']), ago(MIN))],
      { cause: 'storage', volumes: ['data'], driver: ebs },
    ],
    // sandbox failure: network, no storage blamed
    [
      'sandbox',
      stuck(),
      [
        event(
          'ns',
          'p',
          'FailedCreatePodSandBox',
          'failed to setup network for sandbox: plugin type="calico" failed',
          ago(MIN),
        ),
      ],
      { cause: 'network', volumes: [] },
    ],
    // no events: unknown, every claim listed
    ['no events', stuck(), [], { cause: 'unknown', volumes: ['data'], driver: ebs }],
    // MountDevice failure naming the PV rather than the pod volume
    [
      'pv named',
      stuck(),
      [
        event(
          'ns',
          'p',
          'FailedMount',
          'MountVolume.MountDevice failed for volume "pv-ns-data-claim" : rpc error',
          ago(MIN),
        ),
      ],
      { cause: 'storage', volumes: ['data'], driver: ebs },
    ],
    // AttachVolume failure is storage too
    [
      'attach',
      stuck(),
      [event('ns', 'p', 'FailedAttachVolume', 'AttachVolume.Attach failed for volume "pv-ns-data-claim"', ago(MIN))],
      { cause: 'storage', volumes: ['data'], driver: ebs },
    ],
    // running pod: not stuck
    ['running', pod('p', { ns: 'ns', node: 'n1', scheduled: ago(HOUR), started: ago(HOUR) }), [], undefined],
    // pod with no PodScheduled condition: not counted
    ['unscheduled', pod('p', { ns: 'ns', node: 'n1' }), [], undefined],
    // terminating pod: the terminating detector's business
    ['terminating', stuck({ deleted: ago(MIN) }), [], undefined],
    // an init container that runs means volumes are mounted
    [
      'init running',
      (() => {
        const p = stuck({ init: 'PodInitializing' });
        p.status!.initContainerStatuses = [{ name: 'init', state: { running: { startedAt: ago(MIN) } } }];
        return p;
      })(),
      [],
      undefined,
    ],
  ])('%s', (_name, p, objects, want) => {
    const f = stuckCreatingFinding(indexWith(p, ...objects), p, ctx);
    if (!want) return expect(f).toBeUndefined();
    expect(f?.cause).toBe(want.cause);
    expect(f?.storage.map((s) => s.volume)).toEqual(want.volumes);
    if (want.driver) expect(f?.storage[0]?.driver).toBe(want.driver);
    expect(f?.stuckSeconds).toBe(10 * 60);
    expect(f?.since).toBe(ago(10 * MIN));
  });
});

// Only storage is storage: a FailedMount of a Secret, ConfigMap, projected, downward API or emptyDir volume is a
// configuration fault (its own cause, the missing object named), and a slow image pull is not storage either.
describe('configuration volumes and image pulls are not storage', () => {
  const withVolumes = (): Pod => {
    const p = pod('api-0', { ns: 'api', node: 'n1', scheduled: ago(10 * MIN), claims: { data: 'data-claim' } });
    p.metadata!.namespace = 'api';
    p.spec!.volumes = [
      { name: 'data', persistentVolumeClaim: { claimName: 'data-claim' } },
      { name: 'tls', secret: { secretName: 'payments-tls' } },
      { name: 'cfg', configMap: { name: 'app-config' } },
      { name: 'kube-api-access', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }] } },
      { name: 'podinfo', downwardAPI: { items: [] } },
      { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
    ];
    return p;
  };
  const mount = (message: string, minutesAgo = 1) =>
    event('api', 'api-0', 'FailedMount', message, ago(minutesAgo * MIN), 3);
  it.each<[string, { kind?: string }[], string, string[], string[]]>([
    // the example: the secret is missing
    [
      'missing secret',
      [mount('MountVolume.SetUp failed for volume "tls" : secret "payments-tls" not found')],
      'config',
      ['secret/payments-tls'],
      [],
    ],
    [
      'missing config map',
      [mount('MountVolume.SetUp failed for volume "cfg" : configmap "app-config" not found')],
      'config',
      ['configmap/app-config'],
      [],
    ],
    // the kubelet's wording for a projected source it has not registered
    [
      'projected, not registered',
      [mount('MountVolume.SetUp failed for volume "kube-api-access" : object "api"/"kube-root-ca.crt" not registered')],
      'config',
      ['configmap/kube-root-ca.crt'],
      [],
    ],
    // the timeout lists only configuration volumes
    [
      'timeout on config volumes only',
      [
        mount(
          'Unable to attach or mount volumes: unmounted volumes=[tls podinfo], unattached volumes=[], timed out waiting for the condition',
        ),
      ],
      'config',
      [],
      [],
    ],
    [
      'emptyDir',
      [mount('MountVolume.SetUp failed for volume "scratch" : mkdir /var/lib/kubelet/pods/x: no space left on device')],
      'config',
      [],
      [],
    ],
    // a claim and a secret both unmounted: the claim makes it storage, and only the claim is blamed
    ['claim and secret', [mount(failedMount(['data', 'tls']))], 'storage', [], ['data']],
    // the volume names a PV: storage
    [
      'PV named',
      [mount('MountVolume.MountDevice failed for volume "pv-ns-data-claim" : rpc error: code = Internal')],
      'storage',
      [],
      ['data'],
    ],
    // the mount went through and the image is being pulled: not storage
    [
      'slow image pull',
      [event('api', 'api-0', 'Pulling', 'Pulling image "registry/big:1"', ago(4 * MIN), 1, 'Normal')],
      'image',
      [],
      [],
    ],
    // a mount failure after the pull started (the pod restarted its attempt): storage again
    [
      'mount failure after a pull',
      [
        event('api', 'api-0', 'Pulling', 'Pulling image "registry/big:1"', ago(8 * MIN), 1, 'Normal'),
        mount(failedMount(['data'])),
      ],
      'storage',
      [],
      ['data'],
    ],
  ])('%s', (_name, objects, cause, missing, volumes) => {
    const p = withVolumes();
    const f = stuckCreatingFinding(indexWith(p, ...objects), p, ctx);
    expect(f?.cause).toBe(cause);
    expect((f?.configObjects ?? []).map((o) => `${o.kind}/${o.name}`)).toEqual(missing);
    expect(f?.storage.map((s) => s.volume)).toEqual(volumes);
  });

  it('names the configuration volumes that failed', () => {
    const p = withVolumes();
    const e = mount('Unable to attach or mount volumes: unmounted volumes=[tls podinfo], unattached volumes=[]');
    expect(stuckCreatingFinding(indexWith(p, e), p, ctx)?.configVolumes).toEqual(['tls', 'podinfo']);
  });
});

// The pod's own settings make the mount wait (wording cited in test/detect/pod-settings.test.ts): configuration,
// no storage blamed, with the setting, the claim and, for SELinux, the other pod on the node.
describe('a mount waiting on the pod settings is configuration, not storage', () => {
  const p = (): Pod => pod('p', { ns: 'ns', node: 'n1', scheduled: ago(10 * MIN), claims: { data: 'data-claim' } });
  const selinux = `Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: conflicting SELinux labels of volume pv-ns-data-claim: "system_u:object_r:container_file_t:s0:c1,c2" and "system_u:object_r:container_file_t:s0:c3,c4"`;
  const warned = (other: string) =>
    `SELinuxLabel ":::s0:c3,c4" conflicts with pod ${other} that uses the same volume as this pod with SELinuxLabel ":::s0:c1,c2". If both pods land on the same node, only one of them may access the volume.`;
  const chown =
    'Setting volume ownership for uid-p/volumes/kubernetes.io~csi/pv-ns-data-claim/mount, processed 812 files.';

  it('an SELinux label conflict names the claim and the pod holding the volume on the node', () => {
    const holder = pod('writer', { ns: 'ns', node: 'n1', scheduled: ago(HOUR), claims: { data: 'data-claim' } });
    const me = p();
    const events = [
      event('ns', 'p', 'FailedMount', selinux, ago(MIN), 4),
      event('ns', 'p', 'SELinuxLabelConflict', warned('writer'), ago(9 * MIN), 1, 'Normal'),
    ];
    const f = stuckCreatingFinding(indexWith(me, holder, ...events), me, ctx);
    expect([f?.cause, f?.storage, f?.configWait]).toEqual([
      'config',
      [],
      { kind: 'selinux', volume: 'data', claim: 'data-claim', otherPod: 'writer' },
    ]);
  });

  it('a long fsGroup ownership change, its plain timeouts included', () => {
    const me = p();
    const events = [
      event('ns', 'p', 'VolumePermissionChangeInProgress', chown, ago(MIN), 8),
      event('ns', 'p', 'FailedMount', failedMount(['data']), ago(2 * MIN), 3),
    ];
    const f = stuckCreatingFinding(indexWith(me, ...events), me, ctx);
    expect([f?.cause, f?.storage, f?.configWait]).toEqual([
      'config',
      [],
      { kind: 'fsgroup', volume: 'data', claim: 'data-claim' },
    ]);
  });

  it('a driver failure next to the ownership change is storage', () => {
    const me = p();
    const events = [
      event('ns', 'p', 'VolumePermissionChangeInProgress', chown, ago(MIN), 8),
      event(
        'ns',
        'p',
        'FailedMount',
        'MountVolume.SetUp failed for volume "pv-ns-data-claim" : rpc error',
        ago(2 * MIN),
      ),
    ];
    const f = stuckCreatingFinding(indexWith(me, ...events), me, ctx);
    expect([f?.cause, f?.configWait, f?.storage.map((s) => s.volume)]).toEqual(['storage', undefined, ['data']]);
  });
});

describe('detectStuckCreating', () => {
  it('includes Job-owned pods and resolves them to their CronJob', () => {
    const cj = cronJob('ns', 'backup', '0 2 * * *');
    const job = cronJobJob(cj, '2026-11-30T02:00:00Z', { active: 1 });
    const p = runPod(job, 'backup-x', {
      scheduled: ago(20 * MIN),
      claims: { data: 'data-claim' },
    });
    const fs = detectStuckCreating(indexWith(cj, job, p), ctx);
    expect(fs.map((f) => [f.key, f.workload])).toEqual([
      ['stuck-creating/ns/backup-x', { kind: 'CronJob', namespace: 'ns', name: 'backup' }],
    ]);
  });

  it('reports the access modes and the node', () => {
    const p = pod('p', { ns: 'ns', node: 'n1', scheduled: ago(10 * MIN), claims: { data: 'data-claim' } });
    const [f] = detectStuckCreating(indexWith(p), ctx);
    expect(f?.node).toBe('n1');
    expect(f?.storage[0]?.accessModes).toEqual(['ReadWriteMany']);
  });

  it('takes the driver of an unbound claim from its StorageClass', () => {
    const sc: StorageClass = { kind: 'StorageClass', metadata: { name: 'efs' }, provisioner: 'efs.csi.aws.com' };
    const pvc = {
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'pending', namespace: 'ns' },
      spec: { storageClassName: 'efs' },
    };
    const p = pod('p', { ns: 'ns', node: 'n1', scheduled: ago(10 * MIN), claims: { data: 'pending' } });
    const [f] = detectStuckCreating(indexWith(sc, pvc, p), ctx);
    expect(f?.storage).toEqual([
      { volume: 'data', claim: { namespace: 'ns', name: 'pending' }, driver: 'efs.csi.aws.com' },
    ]);
  });

  it('honours a configured stuckAfter', () => {
    const p = pod('p', { ns: 'ns', node: 'n1', scheduled: ago(10 * MIN), claims: { data: 'data-claim' } });
    expect(detectStuckCreating(indexWith(p), detectContext(NOW, { stuckAfterMs: 15 * MIN }))).toEqual([]);
  });
});
