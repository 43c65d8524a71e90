// The mountPropagation rule, as a pure function over one manifest object. The rule (docs/policy.md):
//   A CSI node plugin is a DaemonSet or StatefulSet whose pod template runs a node-driver-registrar image or
//   mounts the kubelet plugin registration directory (…/kubelet/plugins_registry). Windows ones are skipped.
//   In it, every container that is not a known CSI sidecar must mount each kubelet-directory hostPath it mounts
//   (KUBELET_DIR_PATTERN) with `mountPropagation: Bidirectional`                        -> NOT_BIDIRECTIONAL
//   and at least one such container must mount the pods directory (or the whole kubelet root) that way,
//   otherwise published volumes can never reach the host                                 -> NO_PODS_MOUNT
// Only mounted hostPath volumes count: a volume declared but not mounted (linode's duplicate) is irrelevant.
import type { Container, KubeObject, PodSpec, Volume } from '../domain/objects.js';
import {
  BIDIRECTIONAL,
  KUBELET_DIR_PATTERN,
  OS_SELECTOR_KEYS,
  PLUGIN_KINDS,
  PODS_DIR_PATTERN,
  REGISTRAR_IMAGE_PATTERN,
  REGISTRATION_DIR_PATTERN,
  SIDECAR_IMAGE_PATTERN,
  SIDECAR_NAME_PATTERN,
  matches,
} from './patterns.js';

/** Why a node plugin fails the policy. */
export type ViolationRule = 'NOT_BIDIRECTIONAL' | 'NO_PODS_MOUNT';

/** One kubelet-directory mount of a plugin container, good or bad. */
export interface KubeletMount {
  container: string;
  volumeMount: string;
  hostPath: string;
  mountPath: string;
  /** The mountPropagation as written; 'None' when absent (the API default). */
  propagation: string;
}

/** One failure of the rule; `container`/`volumeMount` are absent for NO_PODS_MOUNT, which concerns the whole object. */
export interface Violation {
  rule: ViolationRule;
  container?: string;
  volumeMount?: string;
  hostPath?: string;
  mountPath?: string;
  propagation?: string;
  /** What to change, in one line. */
  fix: string;
}

/** The verdict for one object: not a node plugin (ignored), a skipped Windows plugin, or checked. */
export type ObjectVerdict =
  | { status: 'ignored' }
  | { status: 'skipped'; reason: string }
  | { status: 'checked'; mounts: KubeletMount[]; violations: Violation[] };

/** The pod spec of a workload's template, if it has one. */
export function templateSpec(obj: KubeObject): PodSpec | undefined {
  const spec = obj.spec as { template?: { spec?: PodSpec | null } | null } | undefined | null;
  return spec?.template?.spec ?? undefined;
}

/** Whether a pod spec belongs to a CSI node plugin: a registrar image, or a hostPath on the registration dir. */
export function isNodePluginSpec(spec: PodSpec): boolean {
  const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  if (containers.some((c) => matches(c?.image, REGISTRAR_IMAGE_PATTERN))) return true;
  return (spec.volumes ?? []).some((v) => matches(v?.hostPath?.path, REGISTRATION_DIR_PATTERN));
}

/** Whether a container is a known CSI sidecar (by image, or by its conventional name). */
export function isSidecar(c: Container): boolean {
  return matches(c.image, SIDECAR_IMAGE_PATTERN) || matches(c.name, SIDECAR_NAME_PATTERN);
}

function isWindows(spec: PodSpec): boolean {
  return OS_SELECTOR_KEYS.some((k) => spec.nodeSelector?.[k] === 'windows');
}

/** Checks one manifest object against the rule. Pure; copes with missing and null fields. */
export function checkObject(obj: KubeObject): ObjectVerdict {
  if (!PLUGIN_KINDS.includes(obj.kind ?? '')) return { status: 'ignored' };
  const spec = templateSpec(obj);
  if (!spec || !isNodePluginSpec(spec)) return { status: 'ignored' };
  if (isWindows(spec)) return { status: 'skipped', reason: 'Windows node plugin: Windows has no mount propagation' };

  const hostPaths = hostPathVolumes(spec.volumes);

  const mounts: KubeletMount[] = [];
  const violations: Violation[] = [];
  let podsMounted = false;
  for (const c of spec.containers ?? []) {
    if (!c || isSidecar(c)) continue;
    for (const m of c.volumeMounts ?? []) {
      const hostPath = hostPaths.get(m?.name ?? '');
      if (!m || hostPath === undefined || !matches(hostPath, KUBELET_DIR_PATTERN)) continue;
      const km: KubeletMount = {
        container: c.name ?? '',
        volumeMount: m.name ?? '',
        hostPath,
        mountPath: m.mountPath ?? '',
        propagation: m.mountPropagation ?? 'None',
      };
      mounts.push(km);
      if (km.propagation === BIDIRECTIONAL) {
        if (matches(hostPath, PODS_DIR_PATTERN)) podsMounted = true;
        continue;
      }
      violations.push({
        rule: 'NOT_BIDIRECTIONAL',
        ...km,
        fix: `set mountPropagation: Bidirectional on volumeMount "${km.volumeMount}" of container "${km.container}"`,
      });
    }
  }
  // Reported only when nothing more specific was: a NOT_BIDIRECTIONAL mount already explains the missing pods mount.
  if (!podsMounted && violations.length === 0) {
    violations.push({
      rule: 'NO_PODS_MOUNT',
      fix: 'mount the host kubelet directory (or its pods/ subdirectory) into the plugin container with mountPropagation: Bidirectional',
    });
  }
  return { status: 'checked', mounts, violations };
}

/** The hostPath volumes of a pod spec: volume name -> host path. */
export function hostPathVolumes(volumes: readonly (Volume | null)[] | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of volumes ?? []) if (v?.name && v.hostPath?.path) out.set(v.name, v.hostPath.path);
  return out;
}
