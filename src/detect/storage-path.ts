// The storage behind a pod's volumes: volume -> claim -> PV -> CSI driver, and which volumes the events blame.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StoragePath } from '../domain/findings.js';
import type { KubeEvent, PersistentVolumeClaim, Pod, Volume } from '../domain/objects.js';
import { nsKey } from '../domain/refs.js';
import { inTreePlugin, isStorageSource, missingObjectsIn, volumeSource } from './volume-source.js';

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

/**
 * What kind of storage serves a claim, so advice fits it:
 * - `nfs`: an NFS export: the built-in nfs volume, or a CSI driver whose name says NFS (nfs.csi.k8s.io,
 *   efs.csi.aws.com) or whose StorageClass parameters do (`server`, a key naming nfs such as `nfsVers`);
 * - `block`: a volume the node must attach first: a claim of volumeMode Block, a built-in block volume (iscsi, rbd,
 *   cloud disks), or a CSI driver whose CSIDriver object does not say attachRequired: false;
 * - `in-tree`: any other built-in volume (the kubelet mounts it, there is no node plugin);
 * - `unknown`: none of these could be told (no CSIDriver object readable, no NFS sign): no storage-specific steps.
 * NFS is checked first: an NFS driver that also attaches still needs its export reachable. `inTree` names the
 * built-in plugin, `server` the NFS server when the PV or StorageClass names it. The one rule the advice uses.
 */
export type StorageKind =
  | { kind: 'nfs'; inTree?: string; server?: string }
  | { kind: 'block'; inTree?: string }
  | { kind: 'in-tree'; inTree: string }
  | { kind: 'unknown' };

const NFS_DRIVER = /(^|[.-])(nfs|efs)([.-]|$)/i;
/** Built-in volume plugins that attach a device to the node before mounting it. */
const BLOCK_IN_TREE = new Set([
  'iscsi',
  'rbd',
  'fc',
  'awsElasticBlockStore',
  'gcePersistentDisk',
  'azureDisk',
  'cinder',
  'vsphereVolume',
  'portworxVolume',
]);

/** The storage kind of a claim (see StorageKind). */
export function claimStorageKind(index: ClusterIndex, pvc: PersistentVolumeClaim): StorageKind {
  const pvName = pvc.spec?.volumeName;
  const pv = pvName ? index.get('pvs', pvName) : undefined;
  const inTree = pv && !pv.spec?.csi ? inTreePlugin(pv.spec as Volume) : undefined;
  if (inTree === 'nfs') return withServer({ kind: 'nfs', inTree }, pv?.spec?.nfs?.server);
  if (inTree) return BLOCK_IN_TREE.has(inTree) ? { kind: 'block', inTree } : { kind: 'in-tree', inTree };
  const driver = claimDriver(index, pvc);
  const scName = pvc.spec?.storageClassName;
  const sc = scName ? index.get('storageClasses', scName) : undefined;
  const params = sc && sc.provisioner === driver ? (sc.parameters ?? {}) : {};
  const nfsParam = Object.keys(params).some((k) => k === 'server' || /nfs/i.test(k));
  if ((driver && NFS_DRIVER.test(driver)) || nfsParam) return withServer({ kind: 'nfs' }, params['server']);
  const csiDriver = driver ? index.get('csiDrivers', driver) : undefined;
  if (pvc.spec?.volumeMode === 'Block' || (csiDriver && csiDriver.spec?.attachRequired !== false))
    return { kind: 'block' };
  return { kind: 'unknown' };
}

/** An NFS kind with its server, when one is named. */
function withServer(kind: { kind: 'nfs'; inTree?: string }, server: string | undefined): StorageKind {
  return server ? { ...kind, server } : kind;
}

/**
 * Follows one pod volume to its claim, PV and CSI driver; later links stay undefined when unknown. An inline CSI
 * volume names its driver; an in-tree volume (inline, or a PV without `csi`) names its in-tree plugin instead.
 */
export function storagePathOf(index: ClusterIndex, pod: Pod, v: Volume): StoragePath {
  const path: StoragePath = { volume: v.name ?? '' };
  const inline = (v.csi as { driver?: unknown } | undefined)?.driver;
  if (typeof inline === 'string' && inline) path.driver = inline;
  const tree = inTreePlugin(v);
  if (tree) path.inTree = tree;
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
  const pvTree = pv && !pv.spec?.csi ? inTreePlugin(pv.spec as Volume) : undefined;
  if (pvTree) path.inTree = pvTree;
  const modes = pvc?.status?.accessModes ?? pvc?.spec?.accessModes ?? pv?.spec?.accessModes;
  if (modes && modes.length > 0) path.accessModes = [...modes];
  return path;
}

/** The pod's storage volumes (volume-source.ts): claims, generic ephemeral, inline CSI and in-tree volumes. */
export function storageVolumes(pod: Pod): Volume[] {
  return (pod.spec?.volumes ?? []).filter((v): v is Volume => !!v && isStorageSource(volumeSource(v)));
}

/**
 * Whether a mount or unmount event of `pod` is about its storage rather than its configuration. It is when it names
 * a storage volume, or a name that is no volume of the pod (a PV name: `MountDevice failed for volume "pvc-..."`);
 * it is not when every name it gives is a Secret, ConfigMap, projected, downward API, emptyDir or hostPath volume.
 * Naming nothing, it is storage unless it says a Secret or ConfigMap is missing or the pod has no storage volume.
 */
export function blamesStorage(pod: Pod, e: KubeEvent): boolean {
  const message = e.message ?? '';
  const volumes = pod.spec?.volumes ?? [];
  const names = volumesNamedIn(message);
  if (names.length > 0) {
    const byName = new Map(volumes.map((v) => [v?.name ?? '', v]));
    return names.some((n) => {
      const v = byName.get(n);
      return !v || isStorageSource(volumeSource(v));
    });
  }
  if (missingObjectsIn(message, volumes).length > 0) return false;
  return storageVolumes(pod).length > 0;
}

/**
 * The storage paths of the volumes the events blame. A name in an event may be the pod's volume name
 * ("unmounted volumes=[data]") or the PV name (`MountVolume.MountDevice failed for volume "pvc-..."`).
 * When the events name no storage volume the pod has, every storage volume is returned. Configuration volumes
 * (secrets, config maps...) never appear: they are not storage.
 */
export function blamedStorage(index: ClusterIndex, pod: Pod, events: readonly KubeEvent[]): StoragePath[] {
  const all = storageVolumes(pod).map((v) => storagePathOf(index, pod, v));
  const named = new Set<string>();
  for (const e of events) for (const n of volumesNamedIn(e.message ?? '')) named.add(n);
  const blamed = all.filter((p) => named.has(p.volume) || (p.pv !== undefined && named.has(p.pv)));
  return blamed.length > 0 ? blamed : all;
}

/**
 * Whether a pod still holds its volumes: it is not in a terminal phase, or it is but is being deleted (since
 * Kubernetes 1.27 the kubelet sets Failed/Succeeded before it tears the volumes down, and the pod object stays until
 * the teardown is done). A finished pod that is not being deleted has had its volumes unmounted.
 */
export function holdsVolumes(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return (phase !== 'Succeeded' && phase !== 'Failed') || !!pod.metadata?.deletionTimestamp;
}

/**
 * Whether a mount event of `pod` is about the volume of claim `claimName` (bound to PV `pv`): it names that volume
 * or PV, or names no volume at all and is about the pod's storage (blamesStorage).
 */
export function blamesClaim(pod: Pod, e: KubeEvent, claimName: string, pv?: string | null): boolean {
  const names = volumesNamedIn(e.message ?? '');
  if (names.length === 0) return blamesStorage(pod, e);
  const vol = (pod.spec?.volumes ?? []).find((v) => v && claimOfVolume(pod, v) === claimName)?.name;
  return names.some((n) => n === vol || (!!pv && n === pv));
}
