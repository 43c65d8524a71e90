// Small pure helpers for naming objects consistently across the code base.
import type { KubeObject, Pod } from './objects.js';

/** "namespace/name" for namespaced objects, "name" for cluster-scoped ones. */
export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** "namespace/name" from parts; the form used by every index keyed by namespaced object. */
export function nsKey(namespace: string | undefined | null, name: string | undefined | null): string {
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/**
 * The controller owner reference of an object (controller: true), else its first owner, else undefined. An
 * ownerReferences that is not a list, and entries that are not objects, are no owners (never thrown on).
 */
export function controllerOf(obj: KubeObject): { kind?: string; name?: string; uid?: string } | undefined {
  const refs: unknown = obj.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  let first: { kind?: string; name?: string; uid?: string; controller?: unknown } | undefined;
  for (const r of refs as unknown[]) {
    if (!r || typeof r !== 'object') continue;
    const ref = r as NonNullable<typeof first>;
    if (ref.controller) return ref;
    first ??= ref;
  }
  return first;
}

/** Parses an RFC 3339 timestamp to epoch milliseconds; undefined for missing or unparseable values. */
export function timeMs(ts: string | null | undefined): number | undefined {
  if (!ts) return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The Deployment a ReplicaSet name stands for, given the pod-template-hash: the Deployment controller names its
 * ReplicaSets `<deployment>-<pod-template-hash>` and stamps the hash on their pods. Undefined when it does not fit.
 */
export function deploymentFromReplicaSet(rsName: string, hash: string | undefined): string | undefined {
  if (!hash) return undefined;
  const suffix = `-${hash}`;
  return rsName.endsWith(suffix) && rsName.length > suffix.length ? rsName.slice(0, -suffix.length) : undefined;
}

/** "namespace/name" of the Deployment whose ReplicaSet controls this pod (by the name rule above), if any. */
export function deploymentKeyOf(pod: Pod): string | undefined {
  const owner = controllerOf(pod);
  if (owner?.kind !== 'ReplicaSet' || !owner.name) return undefined;
  const dep = deploymentFromReplicaSet(owner.name, pod.metadata?.labels?.['pod-template-hash']);
  return dep ? nsKey(pod.metadata?.namespace, dep) : undefined;
}
