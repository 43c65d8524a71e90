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
import { controllerOf, nsKey, objectKey } from './refs.js';

type Store = { [K in KindKey]: Map<string, ObjectsByKind[K]> };

/** A multimap from a string to a set of object keys. */
class MultiIndex {
  private readonly map = new Map<string, Set<string>>();
  add(k: string, v: string): void {
    let s = this.map.get(k);
    if (!s) this.map.set(k, (s = new Set()));
    s.add(v);
  }
  delete(k: string, v: string): void {
    const s = this.map.get(k);
    if (!s) return;
    s.delete(v);
    if (s.size === 0) this.map.delete(k);
  }
  get(k: string): ReadonlySet<string> {
    return this.map.get(k) ?? EMPTY;
  }
}
const EMPTY: ReadonlySet<string> = new Set();

/** Key for an event's involved object: "Kind/namespace/name". */
export function involvedKey(kind: string | undefined, namespace: string | undefined | null, name: string | undefined): string {
  return `${kind ?? ''}/${namespace ?? ''}/${name ?? ''}`;
}

/** In-memory cluster state with secondary indexes. See the file comment for the contract. */
export class ClusterIndex {
  private readonly store: Store = Object.fromEntries(KIND_KEYS.map((k) => [k, new Map()])) as unknown as Store;
  private readonly podsByClaim = new MultiIndex();
  private readonly podsByNode = new MultiIndex();
  private readonly podsByOwner = new MultiIndex();
  private readonly jobsByOwner = new MultiIndex();
  private readonly attachmentsByPv = new MultiIndex();
  private readonly attachmentsByNode = new MultiIndex();
  private readonly eventsByObject = new MultiIndex();
  private readonly revisionsByOwner = new MultiIndex();
  /** Built on the first keyOfUid() call, then kept current: most CLI runs never ask, and 150k uid inserts are not free. */
  private uidToKey: Map<string, string> | undefined;
  /** Kinds that could not be read, so "absent" must be reported as "unknown". */
  unreadable: UnreadableKind[] = [];

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
    if (old) this.unindex(kind, key, old);
    (this.store[kind] as Map<string, ObjectsByKind[K]>).set(key, obj);
    this.index(kind, key, obj);
  }

  /** Removes an object if present; returns whether it was. */
  remove<K extends KindKey>(kind: K, obj: ObjectsByKind[K]): boolean {
    const key = objectKey(obj);
    const old = this.store[kind].get(key);
    if (!old) return false;
    this.unindex(kind, key, old);
    this.store[kind].delete(key);
    return true;
  }

  /** Drops every object of a kind (before a relist replaces them). */
  clearKind(kind: KindKey): void {
    for (const [key, obj] of this.store[kind]) this.unindex(kind, key, obj as never);
    this.store[kind].clear();
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
    return this.resolve('pods', this.podsByClaim.get(nsKey(namespace, claim)));
  }

  /** Pods bound to a node. */
  podsOnNode(node: string): Pod[] {
    return this.resolve('pods', this.podsByNode.get(node));
  }

  /** Pods whose controller owner has this uid (ReplicaSet, Job, DaemonSet, StatefulSet...). */
  podsOwnedBy(ownerUid: string): Pod[] {
    return this.resolve('pods', this.podsByOwner.get(ownerUid));
  }

  /** Jobs whose controller owner (a CronJob) has this uid. */
  jobsOwnedBy(ownerUid: string): ObjectsByKind['jobs'][] {
    return this.resolve('jobs', this.jobsByOwner.get(ownerUid));
  }

  /** VolumeAttachments for a PersistentVolume name. */
  attachmentsForPv(pv: string): ObjectsByKind['volumeAttachments'][] {
    return this.resolve('volumeAttachments', this.attachmentsByPv.get(pv));
  }

  /** VolumeAttachments naming a node. */
  attachmentsOnNode(node: string): ObjectsByKind['volumeAttachments'][] {
    return this.resolve('volumeAttachments', this.attachmentsByNode.get(node));
  }

  /** Events whose involvedObject is this Kind/namespace/name (namespace '' for cluster-scoped objects). */
  eventsFor(kind: string, namespace: string | undefined | null, name: string): KubeEvent[] {
    return this.resolve('events', this.eventsByObject.get(involvedKey(kind, namespace, name)));
  }

  /** ControllerRevisions owned by the object with this uid (a DaemonSet), unsorted. */
  revisionsOwnedBy(ownerUid: string): ObjectsByKind['controllerRevisions'][] {
    return this.resolve('controllerRevisions', this.revisionsByOwner.get(ownerUid));
  }

  /** Drivers registered on a node according to its CSINode, or undefined when the node has no CSINode. */
  driversOnNode(node: string): Set<string> | undefined {
    const csiNode: CSINode | undefined = this.store.csiNodes.get(node);
    if (!csiNode) return undefined;
    return new Set((csiNode.spec?.drivers ?? []).map((d) => d.name ?? '').filter(Boolean));
  }

  private resolve<K extends KindKey>(kind: K, keys: ReadonlySet<string>): ObjectsByKind[K][] {
    const out: ObjectsByKind[K][] = [];
    const m = this.store[kind] as Map<string, ObjectsByKind[K]>;
    for (const k of keys) {
      const o = m.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  private index(kind: KindKey, key: string, obj: ObjectsByKind[KindKey]): void {
    this.visit(kind, key, obj, true);
    const uid = obj.metadata?.uid;
    if (uid && this.uidToKey) this.uidToKey.set(uid, key);
  }

  private unindex(kind: KindKey, key: string, obj: ObjectsByKind[KindKey]): void {
    this.visit(kind, key, obj, false);
    const uid = obj.metadata?.uid;
    if (uid && this.uidToKey?.get(uid) === key) this.uidToKey.delete(uid);
  }

  /** Adds (or removes) `key` under every (secondary index, index key) pair an object belongs to. */
  private visit(kind: KindKey, key: string, obj: ObjectsByKind[KindKey], add: boolean): void {
    const f = (idx: MultiIndex, k: string): void => (add ? idx.add(k, key) : idx.delete(k, key));
    // Only pods, jobs and revisions are indexed by owner; skipping the lookup for the rest is measurable at 150k objects.
    const ownerUid = kind === 'pods' || kind === 'jobs' || kind === 'controllerRevisions' ? controllerOf(obj)?.uid : undefined;
    switch (kind) {
      case 'pods': {
        const pod = obj as Pod;
        const ns = pod.metadata?.namespace;
        for (const v of pod.spec?.volumes ?? []) {
          const claim = v?.persistentVolumeClaim?.claimName;
          if (claim) f(this.podsByClaim, nsKey(ns, claim));
        }
        if (pod.spec?.nodeName) f(this.podsByNode, pod.spec.nodeName);
        if (ownerUid) f(this.podsByOwner, ownerUid);
        break;
      }
      case 'jobs':
        if (ownerUid) f(this.jobsByOwner, ownerUid);
        break;
      case 'volumeAttachments': {
        const va = obj as ObjectsByKind['volumeAttachments'];
        const pv = va.spec?.source?.persistentVolumeName;
        if (pv) f(this.attachmentsByPv, pv);
        if (va.spec?.nodeName) f(this.attachmentsByNode, va.spec.nodeName);
        break;
      }
      case 'events': {
        const io = (obj as KubeEvent).involvedObject;
        if (io?.name) f(this.eventsByObject, involvedKey(io.kind, io.namespace, io.name));
        break;
      }
      case 'controllerRevisions':
        if (ownerUid) f(this.revisionsByOwner, ownerUid);
        break;
      default:
        break;
    }
  }
}
