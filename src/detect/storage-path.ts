// The storage behind a pod's volumes: volume -> claim -> PV -> CSI driver, and which volumes the events blame.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StoragePath } from '../domain/findings.js';
import type { KubeEvent, PersistentVolumeClaim, Pod, Volume } from '../domain/objects.js';
import { nsKey } from '../domain/refs.js';

const UNMOUNTED = /unmounted volumes=\[([^\]]*)\]/;
const FOR_VOLUME = /for volume "([^"]+)"/;

/** Volume names an event message names: the list in "unmounted volumes=[a b]" or `for volume "x"`. */
export function volumesNamedIn(message: string): string[] {
  const m = UNMOUNTED.exec(message);
  if (m) return (m[1] ?? '').split(/[\s,]+/).filter(Boolean);
  const v = FOR_VOLUME.exec(message);
  return v?.[1] ? [v[1]] : [];
}

/** The claim name behind a pod volume: a persistentVolumeClaim, or the `<pod>-<volume>` claim of an ephemeral volume. */
export function claimOfVolume(pod: Pod, v: Volume): string | undefined {
  if (v.persistentVolumeClaim?.claimName) return v.persistentVolumeClaim.claimName;
  if (v.ephemeral && v.name) return `${pod.metadata?.name ?? ''}-${v.name}`;
  return undefined;
}

/**
 * The CSI driver behind a claim: its PV's `spec.csi.driver`; a claim with no PV yet (or one not readable) is served
 * by its StorageClass's provisioner. A bound in-tree PV (nfs, hostPath...) has no CSI driver: undefined. The one
 * rule `rwx triage --driver`, the triage report and the detectors' storage paths share.
 */
export function claimDriver(index: ClusterIndex, pvc: PersistentVolumeClaim): string | undefined {
  const pvName = pvc.spec?.volumeName;
  const pv = pvName ? index.get('pvs', pvName) : undefined;
  if (pv) return pv.spec?.csi?.driver || undefined;
  const sc = pvc.spec?.storageClassName;
  return (sc ? index.get('storageClasses', sc)?.provisioner : undefined) || undefined;
}

/** Follows one pod volume to its claim, PV and CSI driver; later links stay undefined when unknown. */
export function storagePathOf(index: ClusterIndex, pod: Pod, v: Volume): StoragePath {
  const path: StoragePath = { volume: v.name ?? '' };
  const claimName = claimOfVolume(pod, v);
  if (!claimName) return path;
  const namespace = pod.metadata?.namespace ?? '';
  path.claim = { namespace, name: claimName };
  const pvc = index.get('pvcs', nsKey(namespace, claimName));
  const pvName = pvc?.spec?.volumeName ?? undefined;
  const pv = pvName ? index.get('pvs', pvName) : undefined;
  if (pvName) path.pv = pvName;
  const driver = pvc ? claimDriver(index, pvc) : undefined;
  if (driver) path.driver = driver;
  const modes = pvc?.status?.accessModes ?? pvc?.spec?.accessModes ?? pv?.spec?.accessModes;
  if (modes && modes.length > 0) path.accessModes = [...modes];
  return path;
}

/**
 * The storage paths of the volumes the events blame. A name in an event may be the pod's volume name
 * ("unmounted volumes=[data]") or the PV name (`MountVolume.MountDevice failed for volume "pvc-..."`).
 * When the events name nothing the pod has, every claim-backed volume is returned.
 */
export function blamedStorage(index: ClusterIndex, pod: Pod, events: readonly KubeEvent[]): StoragePath[] {
  const volumes = pod.spec?.volumes ?? [];
  const all = volumes.map((v) => storagePathOf(index, pod, v));
  const named = new Set<string>();
  for (const e of events) for (const n of volumesNamedIn(e.message ?? '')) named.add(n);
  const blamed = all.filter((p) => named.has(p.volume) || (p.pv !== undefined && named.has(p.pv)));
  return blamed.length > 0 ? blamed : all.filter((p) => p.claim !== undefined);
}
