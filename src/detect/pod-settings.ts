// Mount waits the pod's own settings cause, with no driver fault: a volume already mounted on the node with another
// pod's SELinux label, and the kubelet changing the ownership of every file on a volume to the pod's fsGroup. Pure:
// reads event reasons and messages as Kubernetes writes them (cited in test/detect/pod-settings.test.ts).
import type { ConfigWait, StuckPodFinding } from '../domain/findings.js';
import type { KubeEvent, Pod } from '../domain/objects.js';
import { claimOfVolume, volumesNamedIn } from './storage-path.js';

/** The kubelet's volume manager refusing a second SELinux context for a volume on the node (desired_state_of_world.go). */
const SELINUX_CONFLICT = /conflicting SELinux labels of volume ([^\s:]+)/;
/**
 * The SELinux warning controller's event on each of two pods that share a volume with different labels
 * (kube-controller-manager, selinuxwarning/cache/conflict.go EventMessage). It names the other pod when both are in
 * one namespace. Only a hint: the pods may never meet on one node, so it never decides the cause on its own.
 */
const SELINUX_WARNING = /^SELinuxLabel "[^"]*" conflicts with pod (\S+) that uses the same volume/;
/** The kubelet's event while a recursive fsGroup ownership change runs (pkg/volume/volume_linux.go). */
const PERMISSION_CHANGE = 'VolumePermissionChangeInProgress';
/** The volume directory in "Setting volume ownership for <uid>/volumes/kubernetes.io~csi/pvc-.../mount ...". */
const OWNERSHIP_DIR = /volume ownership for \S*?volumes\/[^/\s]+\/([^/\s,]+)/;
/**
 * The volume manager's plain wait timeout, nothing attached or unprocessed and no error of its own
 * (volume_manager.go WaitForAttachAndMount): a slow SetUp, which is what a long ownership change looks like.
 */
const PLAIN_TIMEOUT =
  /unattached volumes=\[\](, failed to process volumes=\[\])?[:,] (timed out waiting for the condition|context deadline exceeded)$/;

/** The pod setting the kubelet says a mount waits on, if any. */
export function settingWaitOf(e: KubeEvent): ConfigWait['kind'] | undefined {
  if (SELINUX_CONFLICT.test(e.message ?? '')) return 'selinux';
  if (e.reason === PERMISSION_CHANGE) return 'fsgroup';
  return undefined;
}

/** Whether a mount failure is only the volume manager's wait running out (PLAIN_TIMEOUT). */
export function isPlainTimeout(e: KubeEvent): boolean {
  return PLAIN_TIMEOUT.test((e.message ?? '').trim());
}

/** The names an event gives the volume it waits on: the pod volume, the PV, or the directory of the chown. */
function namesIn(message: string): string[] {
  const own = SELINUX_CONFLICT.exec(message)?.[1] ?? OWNERSHIP_DIR.exec(message)?.[1];
  return [...(own ? [own] : []), ...volumesNamedIn(message)];
}

/** What settingWait needs to know of the cluster. */
export interface SettingLookup {
  /** The PV bound to a claim of the pod's namespace. */
  pvOf: (claim: string) => string | undefined;
  /** The node of a pod of the pod's namespace. */
  nodeOf: (pod: string) => string | undefined;
}

/**
 * What the pod waits on among `events` (an SELinux conflict before an ownership change: a pod meets it first), with
 * the pod volume and claim they name, by its pod name or its PV's, and for SELinux the other pod the warning
 * controller names when it runs on the same node. Undefined when no event is about a pod setting.
 */
export function settingWait(pod: Pod, events: readonly KubeEvent[], look: SettingLookup): ConfigWait | undefined {
  const kinds = new Set(events.map(settingWaitOf));
  const kind = kinds.has('selinux') ? 'selinux' : kinds.has('fsgroup') ? 'fsgroup' : undefined;
  if (!kind) return undefined;
  const names = new Set(events.filter((e) => settingWaitOf(e) === kind).flatMap((e) => namesIn(e.message ?? '')));
  const wait: ConfigWait = { kind };
  for (const v of pod.spec?.volumes ?? []) {
    const claim = v ? claimOfVolume(pod, v) : undefined;
    if (!v?.name || !(names.has(v.name) || (claim && names.has(look.pvOf(claim) ?? '')))) continue;
    wait.volume = v.name;
    if (claim) wait.claim = claim;
    break;
  }
  const other = events
    .map((e) => SELINUX_WARNING.exec(e.message ?? '')?.[1])
    .find((p) => p && look.nodeOf(p) === pod.spec?.nodeName);
  if (kind === 'selinux' && other) wait.otherPod = other;
  return wait;
}

/** The volume a pod-setting wait is about, as the texts name it: "claim ns/media", "volume cache", "the volume". */
export function waitedVolume(f: StuckPodFinding): string {
  const w = f.configWait;
  return w?.claim ? `claim ${f.pod.namespace}/${w.claim}` : w?.volume ? `volume ${w.volume}` : 'the volume';
}
