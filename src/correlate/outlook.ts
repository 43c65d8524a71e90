// Whether an attachment held by a node is released without anyone acting, as the attach/detach controller decides
// it (pkg/controller/volume/attachdetach/reconciler/reconciler.go): it detaches a volume only once no pod scheduled
// to the node uses it; while the node reports it mounted it waits, and forces the detach after its maximum wait for
// the unmount (6 minutes by default) only when the node is not healthy (not Ready), or at once when the node has
// the out-of-service taint. And whether a wait the pod's own settings cause ends by itself (settingOutlook). Pure:
// one sentence, made once and carried on the incident's location.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { NodeHealth } from '../domain/location.js';
import { OUT_OF_SERVICE } from '../domain/node-health.js';
import { claimOfVolume, holdsVolumes } from '../detect/storage-path.js';
import { waitedVolume } from '../detect/pod-settings.js';
import { nameList } from '../domain/names.js';

/** The pods ("namespace/name") on `node` that still hold the claim bound to PV `pv`, as the API shows them. */
function usersOn(index: ClusterIndex, node: string, pv: string): string[] {
  const ref = index.get('pvs', pv)?.spec?.claimRef;
  if (!ref?.name) return [];
  return index
    .podsUsingClaim(ref.namespace ?? '', ref.name)
    .filter((p) => p.spec?.nodeName === node && holdsVolumes(p))
    .filter((p) => (p.spec?.volumes ?? []).some((v) => v && claimOfVolume(p, v) === ref.name))
    .map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
}

/**
 * What the controllers do by themselves about the volumes `pvs` attached to `holder` (health: undefined when it is
 * Ready): whether it heals, and when, in one sentence. Empty when there is no attached volume to speak of.
 */
export function detachOutlook(
  index: ClusterIndex,
  holder: string,
  health: NodeHealth | undefined,
  pvs: readonly string[],
): string {
  if (pvs.length === 0) return '';
  const what = pvs.length === 1 ? `${pvs[0]}` : `its ${pvs.length} attached volumes`;
  if (health?.taints.includes(OUT_OF_SERVICE))
    return `${holder} has the out-of-service taint: the attach/detach controller detaches ${what} without waiting for an unmount and its pods are deleted, so this heals by itself.`;
  const users = [...new Set(pvs.flatMap((pv) => usersOn(index, holder, pv)))].sort();
  const using = `${nameList(users, 5, ', ')} on ${holder} still ${users.length === 1 ? 'uses' : 'use'} ${what} as far as the API knows`;
  if (health && users.length > 0)
    return `${using} (never confirmed stopped: ${holder}'s kubelet is gone), so the attach/detach controller will not detach ${pvs.length === 1 ? 'it' : 'them'} by itself: this does not heal until ${holder} comes back or is marked out of service.`;
  if (health)
    return `No pod on ${holder} uses ${what} any more: because ${holder} is not Ready, the attach/detach controller forces the detach once its maximum wait for the unmount (6 minutes by default) has passed. An attachment still there long after that means the detach itself fails: read the VolumeAttachment's detachError and the external-attacher's log.`;
  if (users.length > 0)
    return `${using}: the attach/detach controller detaches it only after that pod is gone and ${holder}'s kubelet has unmounted it (${holder} is Ready, so there is no forced detach).`;
  return `No pod on ${holder} uses ${what}: the attach/detach controller detaches it once ${holder}'s kubelet reports it unmounted (${holder} is Ready, so there is no forced detach); a detach that does not come shows in the VolumeAttachment's detachError.`;
}

/**
 * Whether a wait the pod's own settings cause heals by itself (detect/pod-settings.ts): an fsGroup ownership change
 * ends when the kubelet has walked every file (pkg/volume/volume_linux.go), while a volume mounted with another
 * pod's SELinux label stays so as long as that pod keeps it on the node (the kubelet's desired state of world
 * refuses a second label). Empty for any other stuck pod.
 */
export function settingOutlook(f: StuckPodFinding): string {
  const w = f.configWait;
  if (!w) return '';
  const node = f.node ?? 'the node';
  const vol = waitedVolume(f);
  if (w.kind === 'fsgroup')
    return `This heals by itself: ${f.pod.name} is waiting, not broken. The kubelet on ${node} starts it once it has changed the ownership of every file on ${vol}; deleting or moving the pod starts that change again from the first file.`;
  const other = w.otherPod ? `pod ${w.otherPod}` : 'the pod that mounted it first';
  return `This does not heal by itself: ${vol} stays mounted on ${node} with the SELinux label of ${other} as long as that pod runs there; ${f.pod.name} starts once it is gone from ${node} or the labels agree.`;
}
