// The locating rules (src/correlate/locate.ts), one case each, on a finding and the few objects it names. The event
// wording is Kubernetes': "Multi-Attach error for volume ..." from the attach/detach controller
// (pkg/controller/volume/attachdetach/reconciler/reconciler.go), "unmounted volumes=[...], unattached volumes=[...]"
// from the kubelet's volume manager (pkg/kubelet/volumemanager/volume_manager.go), "MountVolume.MountDevice failed"
// and "MountVolume.SetUp failed" from the operation generator (pkg/volume/util/operationexecutor/
// operation_generator.go), "driver name ... not found in the list of registered CSI drivers" from the kubelet's CSI
// client (pkg/volume/csi/csi_client.go, newCsiDriverClient; a CSINode lists the drivers the kubelet registered), Ready=Unknown "Kubelet stopped posting node status." from the node lifecycle
// controller (pkg/controller/nodelifecycle/node_lifecycle_controller.go), "conflicting SELinux labels of volume %s:
// %q and %q" from the kubelet's desired state of world (pkg/kubelet/volumemanager/cache/desired_state_of_world.go),
// VolumePermissionChangeInProgress "Setting volume ownership for %s, processed %d files." from the kubelet's fsGroup
// ownership change (pkg/volume/volume_linux.go); test/detect/pod-settings.test.ts cites the rest of that wording.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Cause, StuckPodFinding } from '../../src/domain/findings.js';
import type { Node, VolumeAttachment } from '../../src/domain/objects.js';
import { LOCATE_RULES, locate } from '../../src/correlate/locate.js';
import { csiNode, node, snapshotOf } from '../detect/builders.js';

const PV = 'pvc-0a1b2c3d';

/** A node whose kubelet stopped posting status, with the unreachable taint. */
function lost(name: string): Node {
  return {
    ...node(name),
    spec: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'Unknown',
          reason: 'NodeStatusUnknown',
          message: 'Kubelet stopped posting node status.',
        },
      ],
    },
  };
}

function va(nodeName: string, status: VolumeAttachment['status']): VolumeAttachment {
  return {
    kind: 'VolumeAttachment',
    metadata: { name: `csi-${nodeName}`, uid: `uid-va-${nodeName}` },
    spec: { attacher: 'ebs.csi.aws.com', nodeName, source: { persistentVolumeName: PV } },
    status,
  };
}

/** A stuck pod on `on` with one event of `reason` saying `message`. */
function stuck(on: string, cause: Cause, reason: string, message: string, terminating = false): StuckPodFinding {
  return {
    kind: terminating ? 'stuck-terminating' : 'stuck-creating',
    key: 'stuck-creating/db/postgres-0',
    pod: { namespace: 'db', name: 'postgres-0' },
    node: on,
    workload: { kind: 'StatefulSet', namespace: 'db', name: 'postgres' },
    since: '2026-11-30T09:00:00Z',
    stuckSeconds: 900,
    cause,
    storage: [{ volume: 'data', pv: PV, driver: 'ebs.csi.aws.com' }],
    events: reason ? [{ object: 'Pod/db/postgres-0', type: 'Warning', reason, message, count: 3 }] : [],
  };
}

const MULTI = `Multi-Attach error for volume "${PV}" Volume is already exclusively attached to one node and can't be attached to another`;
const TIMED_OUT =
  'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition';

const SELINUX = `Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: conflicting SELinux labels of volume ${PV}: "system_u:object_r:container_file_t:s0:c1,c2" and "system_u:object_r:container_file_t:s0:c3,c4"`;
const CHOWN = `Setting volume ownership for uid-0/volumes/kubernetes.io~csi/${PV}/mount, processed 2841163 files.`;

/** A pod waiting on its own settings (detect/pod-settings.ts): cause 'config', no storage blamed. */
function setting(kind: 'selinux' | 'fsgroup', reason: string, message: string): StuckPodFinding {
  return {
    ...stuck('b', 'config', reason, message),
    storage: [],
    configWait: { kind, volume: 'data', claim: 'data', ...(kind === 'selinux' ? { otherPod: 'writer-0' } : {}) },
  };
}

const CASES: { name: string; objects: { kind?: string }[]; f: StuckPodFinding; want: [string, string | undefined] }[] =
  [
    // The pod's node is not Ready: the node itself, whatever its events say.
    {
      name: 'node not ready',
      objects: [lost('a')],
      f: stuck('a', 'storage', 'FailedMount', TIMED_OUT),
      want: ['node', 'a'],
    },
    // Multi-Attach on b while the VolumeAttachment names a: the attach layer, held by a (not b).
    {
      name: 'multi-attach',
      objects: [node('a'), node('b'), va('a', { attached: true })],
      f: stuck('b', 'storage', 'FailedAttachVolume', MULTI),
      want: ['attach', 'a'],
    },
    // The attach to the pod's own node waits: "unattached volumes=[data]".
    {
      name: 'unattached',
      objects: [node('b')],
      f: stuck('b', 'storage', 'FailedMount', TIMED_OUT.replace('unattached volumes=[]', 'unattached volumes=[data]')),
      want: ['attach', 'b'],
    },
    // The VolumeAttachment on the pod's node carries an attachError.
    {
      name: 'attachError',
      objects: [node('b'), va('b', { attached: false, attachError: { message: 'rpc error: code = Internal' } })],
      f: stuck('b', 'storage', '', ''),
      want: ['attach', 'b'],
    },
    // The driver's node plugin is not registered with the kubelet on the node.
    {
      name: 'not registered',
      objects: [node('b')],
      f: stuck(
        'b',
        'storage',
        'FailedMount',
        'MountVolume.MountDevice failed for volume "pvc-0a1b2c3d" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name ebs.csi.aws.com not found in the list of registered CSI drivers',
      ),
      want: ['stage', 'b'],
    },
    // The node's CSINode lacks the pod's driver, whatever the kubelet says (here only its timeout): not registered.
    {
      name: 'CSINode without the driver',
      objects: [node('b'), csiNode('b', ['efs.csi.aws.com'])],
      f: stuck('b', 'storage', 'FailedMount', TIMED_OUT),
      want: ['stage', 'b'],
    },
    // Its CSINode lists the driver: the usual stage wait, not a registration problem.
    {
      name: 'CSINode with the driver',
      objects: [node('b'), csiNode('b', ['ebs.csi.aws.com'])],
      f: stuck('b', 'storage', 'FailedMount', TIMED_OUT),
      want: ['stage', 'b'],
    },
    // NodeStageVolume failed (MountDevice), NodePublishVolume failed (SetUp), a generic wait after attach.
    {
      name: 'stage',
      objects: [node('b')],
      f: stuck(
        'b',
        'storage',
        'FailedMount',
        'MountVolume.MountDevice failed for volume "pvc-0a1b2c3d" : rpc error: code = Internal',
      ),
      want: ['stage', 'b'],
    },
    {
      name: 'publish',
      objects: [node('b')],
      f: stuck(
        'b',
        'storage',
        'FailedMount',
        'MountVolume.SetUp failed for volume "pvc-0a1b2c3d" : rpc error: code = Internal',
      ),
      want: ['publish', 'b'],
    },
    {
      name: 'timed out after attach',
      objects: [node('b')],
      f: stuck('b', 'storage', 'FailedMount', TIMED_OUT),
      want: ['stage', 'b'],
    },
    // Unmount failures: UnmountDevice is unstage, the rest unpublish.
    {
      name: 'unstage',
      objects: [node('b')],
      f: stuck(
        'b',
        'storage',
        'FailedUnmount',
        'UnmountDevice failed for volume "pvc-0a1b2c3d": device or resource busy',
        true,
      ),
      want: ['unstage', 'b'],
    },
    {
      name: 'unpublish',
      objects: [node('b')],
      f: stuck(
        'b',
        'storage',
        'FailedUnmount',
        'UnmountVolume.TearDown failed for volume "data": device or resource busy',
        true,
      ),
      want: ['unpublish', 'b'],
    },
    // The pod's own settings make the mount wait: configuration, held by no node (not the driver's, not b's).
    {
      name: 'pod setting: SELinux labels',
      objects: [node('b')],
      f: setting('selinux', 'FailedMount', SELINUX),
      want: ['configuration', undefined],
    },
    {
      name: 'pod setting: fsGroup ownership change',
      objects: [node('b')],
      f: setting('fsgroup', 'VolumePermissionChangeInProgress', CHOWN),
      want: ['configuration', undefined],
    },
    // Not a volume's: configuration, image, sandbox (the sandbox is the node's runtime).
    {
      name: 'configuration',
      objects: [node('b')],
      f: stuck(
        'b',
        'config',
        'FailedMount',
        'MountVolume.SetUp failed for volume "tls" : secret "payments-tls" not found',
      ),
      want: ['configuration', undefined],
    },
    {
      name: 'image',
      objects: [node('b')],
      f: stuck('b', 'image', 'Pulling', 'Pulling image "postgres:16.4"'),
      want: ['image', undefined],
    },
    {
      name: 'sandbox',
      objects: [node('b')],
      f: stuck('b', 'network', 'FailedCreatePodSandBox', 'Failed to create pod sandbox'),
      want: ['sandbox', 'b'],
    },
    // No evidence at all: unknown, held by no node.
    { name: 'unknown', objects: [node('b')], f: stuck('b', 'unknown', '', ''), want: ['unknown', undefined] },
  ];

describe('locate: the layer a stuck pod is at and the node that holds it', () => {
  it.each(CASES)('$name', ({ objects, f, want }) => {
    const index = ClusterIndex.fromSnapshot(snapshotOf(objects));
    const l = locate(index, f);
    expect([l.layer, l.holder]).toEqual(want);
    expect(l.actor).not.toBe('');
  });

  it('every rule is met by a case (a rule without a case cannot be kept from coming back)', () => {
    const met = new Set<string>();
    for (const c of CASES) {
      const index = ClusterIndex.fromSnapshot(snapshotOf(c.objects));
      const r = LOCATE_RULES.find((x) => x.locate(index, c.f));
      if (r) met.add(r.name);
    }
    expect(LOCATE_RULES.filter((r) => !met.has(r.name)).map((r) => r.name)).toEqual([]);
  });

  it("says who owns a pod-setting wait, with the kubelet's words, and whether it heals by itself", () => {
    const index = ClusterIndex.fromSnapshot(snapshotOf([node('b')]));
    const selinux = locate(index, setting('selinux', 'FailedMount', SELINUX));
    expect(selinux.actor).toMatch(/SELinux labels .*the kubelet on b mounts a volume with one label at a time/);
    expect(selinux.evidence).toEqual([
      `FailedMount: ${SELINUX}`,
      'the SELinux warning controller names writer-0, on the same node, as the other user of the volume',
    ]);
    expect(selinux.outlook).toMatch(
      /^This does not heal by itself: claim db\/data stays mounted on b with the SELinux label of pod writer-0/,
    );
    // The chown's progress is the evidence even when a plain timeout is the latest event.
    const chown = setting('fsgroup', 'VolumePermissionChangeInProgress', CHOWN);
    chown.events.unshift({ ...chown.events[0]!, reason: 'FailedMount', message: TIMED_OUT });
    const fsgroup = locate(index, chown);
    expect(fsgroup.evidence).toEqual([`VolumePermissionChangeInProgress: ${CHOWN}`]);
    expect(fsgroup.outlook).toMatch(/^This heals by itself: postgres-0 is waiting, not broken/);
    expect(`${selinux.actor} ${fsgroup.actor}`).not.toMatch(/node plugin|driver/);
  });

  it('says which driver is not registered, and with which evidence', () => {
    const on = (objects: { kind?: string }[], message = TIMED_OUT) =>
      locate(ClusterIndex.fromSnapshot(snapshotOf(objects)), stuck('b', 'storage', 'FailedMount', message));
    // CSINode without the driver: the driver, and the CSINode's list as evidence.
    const lacking = on([node('b'), csiNode('b', ['efs.csi.aws.com'])]);
    expect(lacking.unregistered).toBe('ebs.csi.aws.com');
    expect(lacking.actor).toMatch(/node plugin of ebs\.csi\.aws\.com on b, which is not registered/);
    expect(lacking.evidence).toContain('CSINode b lists efs.csi.aws.com: ebs.csi.aws.com is not registered there');
    // A CSINode with no driver at all.
    expect(on([node('b'), csiNode('b', [])]).evidence).toContain(
      'CSINode b lists no driver: ebs.csi.aws.com is not registered there',
    );
    // The driver is listed: nothing said about registration.
    expect(on([node('b'), csiNode('b', ['ebs.csi.aws.com'])]).unregistered).toBeUndefined();
    // No CSINode for the node (its absence proves nothing): not located as a registration problem.
    expect(on([node('b')]).unregistered).toBeUndefined();
    // CSINodes unreadable: nothing said either, even when one was seen before.
    const blind = ClusterIndex.fromSnapshot(snapshotOf([node('b'), csiNode('b', [])]));
    blind.markUnreadable('csiNodes', 'forbidden');
    expect(locate(blind, stuck('b', 'storage', 'FailedMount', TIMED_OUT)).unregistered).toBeUndefined();
  });
});
