// Mount waits the pod's own settings cause (src/detect/pod-settings.ts). The wording is Kubernetes':
// - `conflicting SELinux labels of volume %s: %q and %q`: the kubelet's volume manager refusing a second SELinux
//   context for a volume on the node, pkg/kubelet/volumemanager/cache/desired_state_of_world.go (AddPodToVolume); the
//   populator keeps it as a pod error (populator/desired_state_of_world_populator.go), WaitForAttachAndMount returns
//   it as "unmounted volumes=%v, unattached volumes=%v, failed to process volumes=%v: %w"
//   (pkg/kubelet/volumemanager/volume_manager.go) and the kubelet records it as FailedMount "Unable to attach or
//   mount volumes: %v" (pkg/kubelet/kubelet.go);
// - Normal `SELinuxLabelConflict` (and `SELinuxChangePolicyConflict`) from component `selinux_warning`:
//   `SELinuxLabel "<label>" conflicts with pod <other> that uses the same volume as this pod with SELinuxLabel
//   "<label>". If both pods land on the same node, only one of them may access the volume.`, the SELinux warning
//   controller in kube-controller-manager, pkg/controller/volume/selinuxwarning/cache/conflict.go (EventMessage) and
//   cache/volumecache.go, recorded by selinux_warning_controller.go;
// - Warning `VolumePermissionChangeInProgress`: `Setting volume ownership for %s is taking longer than expected,
//   consider using OnRootMismatch - https://kubernetes.io/docs/...` then every minute `Setting volume ownership for
//   %s, processed %d files.`, the kubelet's recursive fsGroup ownership change, pkg/volume/volume_linux.go
//   (monitorProgress, logWarning), reason from pkg/kubelet/events/event.go;
// - the plain wait timeout `...unattached volumes=[], failed to process volumes=[]: timed out waiting for the
//   condition` (context deadline exceeded on newer kubelets), volume_manager.go again.
import { describe, expect, it } from 'vitest';
import type { KubeEvent, Pod } from '../../src/domain/objects.js';
import { isPlainTimeout, settingWait, settingWaitOf } from '../../src/detect/pod-settings.js';

const PV = 'pvc-5e6f7a8b';
const UID = '9c0d1e2f-3a4b';
const SELINUX = `Unable to attach or mount volumes: unmounted volumes=[media], unattached volumes=[], failed to process volumes=[media]: conflicting SELinux labels of volume ${PV}: "system_u:object_r:container_file_t:s0:c10,c20" and "system_u:object_r:container_file_t:s0:c30,c40"`;
const WARNED = (other: string) =>
  `SELinuxLabel ":::s0:c30,c40" conflicts with pod ${other} that uses the same volume as this pod with SELinuxLabel ":::s0:c10,c20". If both pods land on the same node, only one of them may access the volume.`;
const SLOW = `Setting volume ownership for ${UID}/volumes/kubernetes.io~csi/${PV}/mount is taking longer than expected, consider using OnRootMismatch - https://kubernetes.io/docs/tasks/configure-pod-container/security-context/#configure-volume-permission-and-ownership-change-policy-for-pods`;
const PROGRESS = `Setting volume ownership for ${UID}/volumes/kubernetes.io~csi/${PV}/mount, processed 2841163 files.`;
const TIMEOUT =
  'Unable to attach or mount volumes: unmounted volumes=[media], unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition';

const ev = (reason: string, message: string, type = 'Warning'): KubeEvent => ({ reason, message, type });

/** A pod on node-02 with claim `media` mounted as volume `media`. */
const thumbnailer: Pod = {
  metadata: { name: 'thumbnailer', namespace: 'studio' },
  spec: { nodeName: 'node-02', volumes: [{ name: 'media', persistentVolumeClaim: { claimName: 'media' } }] },
};
const look = {
  pvOf: (c: string) => (c === 'media' ? PV : undefined),
  nodeOf: (p: string) => ({ writer: 'node-02', elsewhere: 'node-04' })[p],
};

describe('settingWaitOf: the pod setting the kubelet says a mount waits on', () => {
  it.each<[string, KubeEvent, string | undefined]>([
    ['the SELinux conflict (FailedMount)', ev('FailedMount', SELINUX), 'selinux'],
    // The controller's warning alone decides nothing: the two pods may never share a node.
    ['the SELinux warning controller', ev('SELinuxLabelConflict', WARNED('writer'), 'Normal'), undefined],
    ['the first ownership event', ev('VolumePermissionChangeInProgress', SLOW), 'fsgroup'],
    ['the progress of the ownership change', ev('VolumePermissionChangeInProgress', PROGRESS), 'fsgroup'],
    ['a plain timeout', ev('FailedMount', TIMEOUT), undefined],
    ['a driver failure', ev('FailedMount', `MountVolume.MountDevice failed for volume "${PV}" : rpc error`), undefined],
  ])('%s', (_name, e, want) => {
    expect(settingWaitOf(e)).toBe(want);
  });
});

describe('isPlainTimeout: the wait ran out with no error of its own', () => {
  it.each<[string, string, boolean]>([
    ['timed out', TIMEOUT, true],
    [
      'context deadline exceeded',
      TIMEOUT.replace('timed out waiting for the condition', 'context deadline exceeded'),
      true,
    ],
    ['older wording, without failed to process', TIMEOUT.replace(', failed to process volumes=[]', ''), true],
    // Something unattached, unprocessed, or an error of its own: not a plain wait.
    ['an attach wait', TIMEOUT.replace('unattached volumes=[]', 'unattached volumes=[media]'), false],
    ['the SELinux conflict', SELINUX, false],
    ['a driver failure', `MountVolume.SetUp failed for volume "${PV}" : rpc error: code = Internal`, false],
  ])('%s', (_name, message, want) => {
    expect(isPlainTimeout(ev('FailedMount', message))).toBe(want);
  });
});

describe('settingWait: the kind, the volume and claim the events name, the other pod on the node', () => {
  it('names the claim from the PV in the SELinux conflict, and the other pod when it runs on the same node', () => {
    expect(
      settingWait(thumbnailer, [ev('FailedMount', SELINUX), ev('SELinuxLabelConflict', WARNED('writer'))], look),
    ).toEqual({
      kind: 'selinux',
      volume: 'media',
      claim: 'media',
      otherPod: 'writer',
    });
  });

  it('does not name a pod the controller warns about on another node', () => {
    const w = settingWait(
      thumbnailer,
      [ev('FailedMount', SELINUX), ev('SELinuxLabelConflict', WARNED('elsewhere'))],
      look,
    );
    expect(w?.otherPod).toBeUndefined();
  });

  it('names the claim from the directory of the ownership change', () => {
    expect(settingWait(thumbnailer, [ev('VolumePermissionChangeInProgress', PROGRESS)], look)).toEqual({
      kind: 'fsgroup',
      volume: 'media',
      claim: 'media',
    });
  });

  it('is undefined without a setting event', () => {
    expect(settingWait(thumbnailer, [ev('FailedMount', TIMEOUT)], look)).toBeUndefined();
  });
});
