// Big clusters: objects a program generated already in served form (what `kubectl get -o json` prints), stored as
// they are. The scenario path copies every object, resolves its relative times, fills the API server's defaults and
// resolves references: right for a hand-written scenario, but minutes of set-up for the 230k objects of a 150k-pod
// cluster. Here an object costs a map insert and a resourceVersion, and its pods are a cluster at rest: the kubelet
// leaves a bulk pod as it is until something changes it (a timeline step, a write through the API).
import { SimError } from './errors.js';
import type { KubeObject } from './objects.js';
import { resourceKey, type Resources } from './resources.js';
import type { ObjectStore } from './store.js';

/** Where bulk objects go: the store, what the simulator serves, and the set of objects the kubelet leaves alone. */
export interface BulkTarget {
  readonly store: ObjectStore;
  readonly resources: Resources;
  readonly atRest: WeakSet<KubeObject>;
}

/**
 * Stores `objects` without copying them (the simulator owns them afterwards and stamps their resourceVersion),
 * in one batch that records no watch history. Every object needs a kind the simulator serves and a name; a
 * namespaced one needs its namespace. Returns the namespaces they use (the caller adds missing Namespaces).
 */
export function storeBulk(target: BulkTarget, objects: readonly KubeObject[]): Set<string> {
  const namespaces = new Set<string>();
  const batch = new Map<string, KubeObject[]>();
  objects.forEach((o, i) => {
    const res = target.resources.ofKind(o.kind);
    if (!res) throw new SimError('SCENARIO', `bulk object ${i}: kind ${String(o.kind)} is not served`);
    const meta = o.metadata;
    if (!meta?.name) throw new SimError('SCENARIO', `bulk object ${i} (${res.kind}): metadata.name is required`);
    if (res.namespaced && !meta.namespace)
      throw new SimError('SCENARIO', `bulk object ${i} (${res.kind} ${meta.name}): metadata.namespace is required`);
    if (res.namespaced) namespaces.add(meta.namespace as string);
    const key = resourceKey(res);
    let list = batch.get(key);
    if (!list) batch.set(key, (list = []));
    list.push(o);
    if (res.kind === 'Pod') target.atRest.add(o);
  });
  for (const [key, list] of batch) target.store.load(key, list);
  return namespaces;
}
