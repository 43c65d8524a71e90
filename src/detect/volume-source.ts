// What backs a pod volume, and so whether a failure to mount it is a storage fault at all. Storage is what the CSI
// and in-tree volume plugins mount from somewhere else: a claim (CSI or in-tree PV), a generic ephemeral volume (a
// claim made for the pod), an inline CSI volume, an inline in-tree network or block volume. Secrets, ConfigMaps,
// projected and downward API volumes are the kubelet writing API data into a tmpfs, emptyDir is node scratch space,
// hostPath is the node's own directory: a FailedMount on any of them is a configuration fault, never a storage one.
import type { ConfigObject } from '../domain/findings.js';
import type { Volume } from '../domain/objects.js';

/** The source of one pod volume. */
export type VolumeSource = 'claim' | 'ephemeral' | 'csi' | 'in-tree' | 'config' | 'scratch' | 'host' | 'other';

/** Pod volume fields that are API data the kubelet writes into the pod. */
const CONFIG_FIELDS = ['secret', 'configMap', 'projected', 'downwardAPI'] as const;

/** Inline in-tree volume plugins that mount network or block storage (kubelet code, no node plugin pod). */
export const IN_TREE_FIELDS = [
  'nfs',
  'iscsi',
  'rbd',
  'cephfs',
  'glusterfs',
  'fc',
  'awsElasticBlockStore',
  'gcePersistentDisk',
  'azureDisk',
  'azureFile',
  'cinder',
  'vsphereVolume',
  'portworxVolume',
  'flexVolume',
] as const;

const present = (v: Volume, field: string): boolean => v[field] !== undefined && v[field] !== null;

/** What backs `v` (see the file comment). */
export function volumeSource(v: Volume): VolumeSource {
  if (v.persistentVolumeClaim) return 'claim';
  if (present(v, 'ephemeral')) return 'ephemeral';
  if (present(v, 'csi')) return 'csi';
  if (IN_TREE_FIELDS.some((f) => present(v, f))) return 'in-tree';
  if (CONFIG_FIELDS.some((f) => present(v, f))) return 'config';
  if (present(v, 'emptyDir')) return 'scratch';
  if (v.hostPath) return 'host';
  return 'other';
}

/** Whether a failure to mount a volume from `source` is a storage fault (claim, ephemeral, inline CSI or in-tree). */
export function isStorageSource(source: VolumeSource): boolean {
  return source === 'claim' || source === 'ephemeral' || source === 'csi' || source === 'in-tree';
}

/** The in-tree plugin of an inline volume ("nfs"), if it is one. */
export function inTreePlugin(v: Volume): string | undefined {
  return IN_TREE_FIELDS.find((f) => present(v, f));
}

/** The Secrets and ConfigMaps a configuration volume reads (projected volumes: each of their sources). */
export function configObjectsOf(v: Volume): ConfigObject[] {
  const out: ConfigObject[] = [];
  const secret = v.secret as { secretName?: unknown } | undefined;
  if (typeof secret?.secretName === 'string') out.push({ kind: 'secret', name: secret.secretName });
  const cm = v.configMap as { name?: unknown } | undefined;
  if (typeof cm?.name === 'string') out.push({ kind: 'configmap', name: cm.name });
  const sources = (v.projected as { sources?: unknown } | undefined)?.sources;
  for (const s of Array.isArray(sources) ? sources : []) {
    const src = s as { secret?: { name?: unknown }; configMap?: { name?: unknown } } | null;
    if (typeof src?.secret?.name === 'string') out.push({ kind: 'secret', name: src.secret.name });
    if (typeof src?.configMap?.name === 'string') out.push({ kind: 'configmap', name: src.configMap.name });
  }
  return out;
}

const MISSING = /\b(secret|configmap) "([^"]+)" not found/gi;
const NOT_REGISTERED = /object "[^"]*"\/"([^"]+)" not registered/g;

/**
 * The Secrets and ConfigMaps a kubelet message says are missing: `secret "payments-tls" not found`, or
 * `object "api"/"kube-root-ca.crt" not registered` (its kind from the pod's volumes when one of them reads it).
 */
export function missingObjectsIn(message: string, volumes: readonly Volume[] = []): ConfigObject[] {
  const out: ConfigObject[] = [];
  for (const m of message.matchAll(MISSING))
    out.push({ kind: (m[1] ?? '').toLowerCase() === 'secret' ? 'secret' : 'configmap', name: m[2] ?? '' });
  for (const m of message.matchAll(NOT_REGISTERED)) {
    const name = m[1] ?? '';
    const known = volumes.flatMap(configObjectsOf).find((o) => o.name === name);
    out.push({ kind: known?.kind ?? 'configmap', name });
  }
  return out;
}
