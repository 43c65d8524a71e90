// ClusterIndex: the cluster cache with every lookup the detectors need in O(1).
//
// Contract:
// - The same class serves the CLI (filled once from a Snapshot) and `rwx serve` (kept current by watch events
//   through upsert/remove), so detectors read one API whatever the source.
// - Objects handed in are owned by the index afterwards and must never be mutated by readers
//   ("NEVER modify objects from the store", sample-controller).
// - Every index is maintained on upsert/remove: cost per change is proportional to that object, never to the
//   cluster, and there is no scan of all pods per claim anywhere.
import { KIND_KEYS, type KindKey } from './kinds.js';
import type { ObjectsByKind, Snapshot, UnreadableKind } from './snapshot.js';
import type { CSINode, KubeEvent, Pod } from './objects.js';
import { controllerOf, deploymentKeyOf, nsKey, objectKey } from './refs.js';
import { Holds } from './holds.js';

type Store = { [K in KindKey]: Map<string, ObjectsByKind[K]> };
type AnyObject = ObjectsByKind[KindKey];

/**
 * A multimap from a string to an ordered set of objects (held by reference, so a query needs no second lookup
 * in the store). Most index keys hold one object (events per object, attachments per PV) or a handful (pods per
 * claim), so values are stored as the bare object, then a small array, and only past SMALL entries as a Set: at
 * 150k pods a Set per key was the largest share of index build time (allocation and GC). Order is insertion
 * order and a removed-then-added object moves last, as with a Set. Store objects are plain objects, never
 * arrays or Sets, which is what tells the three shapes apart.
 */
class MultiIndex<T extends object> {
  private readonly map = new Map<string, T | T[] | Set<T>>();
  add(k: string, v: T): void {
    const cur = this.map.get(k);
    if (cur === undefined) this.map.set(k, v);
    else if (Array.isArray(cur)) {
      if (cur.includes(v)) return;
      if (cur.length < SMALL) cur.push(v);
      else this.map.set(k, new Set(cur).add(v));
    } else if (cur instanceof Set) cur.add(v);
    else if (cur !== v) this.map.set(k, [cur, v]);
  }
  delete(k: string, v: T): void {
    const cur = this.map.get(k);
    if (cur === undefined) return;
    if (Array.isArray(cur)) {
      const i = cur.indexOf(v);
      if (i < 0) return;
      cur.splice(i, 1);
      if (cur.length === 0) this.map.delete(k);
    } else if (cur instanceof Set) {
      cur.delete(v);
      if (cur.size === 0) this.map.delete(k);
    } else if (cur === v) this.map.delete(k);
  }
  /** The objects under `k`, in order, as a new array (empty when none). */
  get(k: string): T[] {
    const cur = this.map.get(k);
    if (cur === undefined) return [];
    if (Array.isArray(cur)) return cur.slice();
    if (cur instanceof Set) return [...cur];
    return [cur];
  }
}
/** Past this many values an index key's values move from an array (linear includes/indexOf) to a Set. */
const SMALL = 16;

/** Key for an event's involved object: "Kind/namespace/name". */
export function involvedKey(
  kind: string | undefined,
  namespace: string | undefined | null,
  name: string | undefined,
): string {
  return `${kind ?? ''}/${namespace ?? ''}/${name ?? ''}`;
}

/** Secondary indexes the triage never reads: built on first use (see `lazy` in ClusterIndex), one key per object. */
type LazyName =
  'podsByNode' | 'podsByOwner' | 'podsByDeployment' | 'jobsByOwner' | 'attachmentsByNode' | 'revisionsByOwner';
const LAZY: Record<LazyName, { kind: KindKey; key: (o: ObjectsByKind[KindKey]) => string | undefined }> = {
  podsByNode: { kind: 'pods', key: (o) => (o as Pod).spec?.nodeName || undefined },
  podsByOwner: { kind: 'pods', key: (o) => controllerOf(o)?.uid || undefined },
  podsByDeployment: { kind: 'pods', key: (o) => deploymentKeyOf(o as Pod) },
  jobsByOwner: { kind: 'jobs', key: (o) => controllerOf(o)?.uid || undefined },
  attachmentsByNode: {
    kind: 'volumeAttachments',
    key: (o) => (o as ObjectsByKind['volumeAttachments']).spec?.nodeName || undefined,
  },
  revisionsByOwner: { kind: 'controllerRevisions', key: (o) => controllerOf(o)?.uid || undefined },
};
const LAZY_OF_KIND: Partial<Record<KindKey, LazyName[]>> = {};
for (const n of Object.keys(LAZY) as LazyName[]) (LAZY_OF_KIND[LAZY[n].kind] ??= []).push(n);

/** In-memory cluster state with secondary indexes. See the file comment for the contract. */
export class ClusterIndex {
  private readonly store: Store = Object.fromEntries(KIND_KEYS.map((k) => [k, new Map()])) as unknown as Store;
  private readonly podsByClaim = new MultiIndex<Pod>();
  private readonly attachmentsByPv = new MultiIndex<ObjectsByKind['volumeAttachments']>();
  private readonly eventsByObject = new MultiIndex<KubeEvent>();
  /**
   * The LAZY indexes, each built from the store on its first query and kept current from then on, or before the
   * first replace/remove of its kind: while a kind has only seen fresh inserts, store order is exactly the order
   * an eager index would hold, so results (and their order) are the same as if built eagerly. `rwx triage` never
   * asks for them, which saves about half of the per-pod index work at 150k pods.
   */
  private readonly lazy: Partial<Record<LazyName, MultiIndex<AnyObject>>> = {};
  /** Built on the first keyOfUid() call, then kept current: most CLI runs never ask, and 150k uid inserts are not free. */
  private uidToKey: Map<string, string> | undefined;
  /** Kinds that could not be read, so "absent" must be reported as "unknown". */
  unreadable: UnreadableKind[] = [];
  /** Readers holding the cache across turns of the event loop: its writer defers changes meanwhile (holds.ts). */
  readonly holds = new Holds();

  /** Builds an index holding every object of a snapshot. Linear in the snapshot's size. */
  static fromSnapshot(s: Snapshot): ClusterIndex {
    const idx = new ClusterIndex();
    for (const k of KIND_KEYS) for (const o of s[k]) idx.upsert(k, o as never);
    idx.unreadable = [...s.unreadable];
    return idx;
  }

  /** Adds or replaces an object (keyed by namespace/name), keeping every secondary index current. */
  upsert<K extends KindKey>(kind: K, obj: ObjectsByKind[K]): void {
    const key = objectKey(obj);
    const old = this.store[kind].get(key);
    if (old) {
      this.materialize(kind);
      this.unindex(kind, key, old);
    }
    (this.store[kind] as Map<string, ObjectsByKind[K]>).set(key, obj);
    this.index(kind, key, obj);
  }

  /** Removes an object if present; returns whether it was. */
  remove<K extends KindKey>(kind: K, obj: ObjectsByKind[K]): boolean {
    const key = objectKey(obj);
    const old = this.store[kind].get(key);
    if (!old) return false;
    this.materialize(kind);
    this.unindex(kind, key, old);
    this.store[kind].delete(key);
    return true;
  }

  /** Drops every object of a kind (before a relist replaces them). */
  clearKind(kind: KindKey): void {
    for (const [key, obj] of this.store[kind]) this.unindex(kind, key, obj as never);
    this.store[kind].clear();
    // Empty now, so a later build from the store matches what eager indexing of the next inserts would hold.
    for (const n of LAZY_OF_KIND[kind] ?? []) delete this.lazy[n];
  }

  /** One object by "namespace/name" (or "name" when cluster-scoped). */
  get<K extends KindKey>(kind: K, key: string): ObjectsByKind[K] | undefined {
    return this.store[kind].get(key) as ObjectsByKind[K] | undefined;
  }

  /** All objects of a kind, in insertion order. */
  all<K extends KindKey>(kind: K): IterableIterator<ObjectsByKind[K]> {
    return (this.store[kind] as Map<string, ObjectsByKind[K]>).values();
  }

  /** Number of objects of a kind. */
  count(kind: KindKey): number {
    return this.store[kind].size;
  }

  /** Records that a kind cannot be read now (replacing an earlier reason); a cache keeps serving what it holds. */
  markUnreadable(kind: KindKey, reason: string): void {
    this.unreadable = [...this.unreadable.filter((u) => u.kind !== kind), { kind, reason }];
  }

  /** Records that a kind is readable again (its list completed). */
  markReadable(kind: KindKey): void {
    if (!this.readable(kind)) this.unreadable = this.unreadable.filter((u) => u.kind !== kind);
  }

  /** Whether a kind could be read (false means its absence proves nothing). */
  readable(kind: KindKey): boolean {
    return !this.unreadable.some((u) => u.kind === kind);
  }

  /** Key ("namespace/name") of the object with this uid, any kind. */
  keyOfUid(uid: string): string | undefined {
    if (!this.uidToKey) {
      this.uidToKey = new Map();
      for (const k of KIND_KEYS) {
        for (const [key, o] of this.store[k]) {
          const u = o.metadata?.uid;
          if (u) this.uidToKey.set(u, key);
        }
      }
    }
    return this.uidToKey.get(uid);
  }

  /** Pods that mount claim `namespace/name`. */
  podsUsingClaim(namespace: string, claim: string): Pod[] {
    return this.podsByClaim.get(nsKey(namespace, claim));
  }

  /** Pods bound to a node. */
  podsOnNode(node: string): Pod[] {
    return this.lazyIndex('podsByNode').get(node) as Pod[];
  }

  /** Pods whose controller owner has this uid (ReplicaSet, Job, DaemonSet, StatefulSet...). */
  podsOwnedBy(ownerUid: string): Pod[] {
    return this.lazyIndex('podsByOwner').get(ownerUid) as Pod[];
  }

  /** Pods of every ReplicaSet of Deployment `namespace/name` (ReplicaSets are not read: by their name rule, refs.ts). */
  podsOfDeployment(namespace: string, name: string): Pod[] {
    return this.lazyIndex('podsByDeployment').get(nsKey(namespace, name)) as Pod[];
  }

  /** Jobs whose controller owner (a CronJob) has this uid. */
  jobsOwnedBy(ownerUid: string): ObjectsByKind['jobs'][] {
    return this.lazyIndex('jobsByOwner').get(ownerUid) as ObjectsByKind['jobs'][];
  }

  /** VolumeAttachments for a PersistentVolume name. */
  attachmentsForPv(pv: string): ObjectsByKind['volumeAttachments'][] {
    return this.attachmentsByPv.get(pv);
  }

  /** VolumeAttachments naming a node. */
  attachmentsOnNode(node: string): ObjectsByKind['volumeAttachments'][] {
    return this.lazyIndex('attachmentsByNode').get(node) as ObjectsByKind['volumeAttachments'][];
  }

  /** Events whose involvedObject is this Kind/namespace/name (namespace '' for cluster-scoped objects). */
  eventsFor(kind: string, namespace: string | undefined | null, name: string): KubeEvent[] {
    return this.eventsByObject.get(involvedKey(kind, namespace, name));
  }

  /** ControllerRevisions owned by the object with this uid (a DaemonSet), unsorted. */
  revisionsOwnedBy(ownerUid: string): ObjectsByKind['controllerRevisions'][] {
    return this.lazyIndex('revisionsByOwner').get(ownerUid) as ObjectsByKind['controllerRevisions'][];
  }

  /** Drivers registered on a node according to its CSINode, or undefined when the node has no CSINode. */
  driversOnNode(node: string): Set<string> | undefined {
    const csiNode: CSINode | undefined = this.store.csiNodes.get(node);
    if (!csiNode) return undefined;
    return new Set((csiNode.spec?.drivers ?? []).map((d) => d.name ?? '').filter(Boolean));
  }

  /**
   * Builds every LAZY index now, to be kept current from here on: for a cache that changes (rwx serve), whose first
   * update of a pod would otherwise build them over every pod in one go (about 0.3 s at 150k pods) while probes
   * wait. Free on an empty index, where the watcher calls it.
   */
  indexEverything(): this {
    for (const n of Object.keys(LAZY) as LazyName[]) this.lazyIndex(n);
    return this;
  }

  /** A LAZY index, built from the store if this is its first use. */
  private lazyIndex(name: LazyName): MultiIndex<AnyObject> {
    let idx = this.lazy[name];
    if (!idx) {
      idx = new MultiIndex<AnyObject>();
      const spec = LAZY[name];
      for (const o of this.store[spec.kind].values()) {
        const k = spec.key(o);
        if (k) idx.add(k, o);
      }
      this.lazy[name] = idx;
    }
    return idx;
  }

  /** Builds the LAZY indexes of a kind before its first replace or remove (see `lazy`). */
  private materialize(kind: KindKey): void {
    const names = LAZY_OF_KIND[kind];
    if (names) for (const n of names) this.lazyIndex(n);
  }

  private index(kind: KindKey, key: string, obj: ObjectsByKind[KindKey]): void {
    this.visit(kind, obj, true);
    const uid = obj.metadata?.uid;
    if (uid && this.uidToKey) this.uidToKey.set(uid, key);
  }

  private unindex(kind: KindKey, key: string, obj: ObjectsByKind[KindKey]): void {
    this.visit(kind, obj, false);
    const uid = obj.metadata?.uid;
    if (uid && this.uidToKey?.get(uid) === key) this.uidToKey.delete(uid);
  }

  /** Adds (or removes) `obj` under every (secondary index, index key) pair it belongs to. */
  private visit(kind: KindKey, obj: AnyObject, add: boolean): void {
    switch (kind) {
      case 'pods': {
        const pod = obj as Pod;
        const volumes = pod.spec?.volumes;
        if (volumes) {
          const ns = pod.metadata?.namespace;
          for (const v of volumes) {
            const claim = v?.persistentVolumeClaim?.claimName;
            if (claim) this.apply(this.podsByClaim, nsKey(ns, claim), pod, add);
          }
        }
        break;
      }
      case 'volumeAttachments': {
        const pv = (obj as ObjectsByKind['volumeAttachments']).spec?.source?.persistentVolumeName;
        if (pv) this.apply(this.attachmentsByPv, pv, obj as ObjectsByKind['volumeAttachments'], add);
        break;
      }
      case 'events': {
        const io = (obj as KubeEvent).involvedObject;
        if (io?.name)
          this.apply(this.eventsByObject, involvedKey(io.kind, io.namespace, io.name), obj as KubeEvent, add);
        break;
      }
      default:
        break;
    }
    const names = LAZY_OF_KIND[kind];
    if (!names) return;
    for (const n of names) {
      const idx = this.lazy[n];
      if (!idx) continue;
      const k = LAZY[n].key(obj);
      if (k) this.apply(idx, k, obj, add);
    }
  }

  /** add or delete, without a closure per visited object (allocated 230k times per 150k-pod build). */
  private apply<T extends object>(idx: MultiIndex<T>, k: string, obj: T, add: boolean): void {
    if (add) idx.add(k, obj);
    else idx.delete(k, obj);
  }
}
