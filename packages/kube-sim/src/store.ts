// The simulator's etcd: objects per resource, one global resourceVersion that increases on every change, and a
// bounded history of changes that watches replay from. Versions older than the retained history are "expired" (410).
import { storeKey, type KubeObject } from './objects.js';

/** A stored change, as a watch sees it. */
export interface Change {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** Store key of the resource ("apps/daemonsets"). */
  res: string;
  obj: KubeObject;
  /** The object before a MODIFIED change, so a filtered watch can tell "left the selection" from "changed". */
  prev?: KubeObject;
}

/** In-memory object store. Objects handed in are owned by the store; callers clone before changing one. */
export class ObjectStore {
  private rv: number;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private history: Change[] = [];
  private readonly listeners = new Set<(c: Change) => void>();
  /** list() results per resource, dropped when that resource changes. */
  private readonly sorted = new Map<string, KubeObject[]>();
  /** Watches and continue tokens from versions below this are answered 410 Expired. */
  private oldestRv: number;

  /** `firstRv` makes versions look like a real cluster's (large numbers); `maxHistory` bounds replay. */
  constructor(
    firstRv = 1000,
    private readonly maxHistory = 10_000,
  ) {
    this.rv = firstRv;
    this.oldestRv = firstRv;
  }

  /** The current (latest) resourceVersion. */
  currentRv(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch may still start from. */
  oldestServable(): number {
    return this.oldestRv;
  }

  /** Objects of a resource in key order. The array is shared: callers must not change it. */
  list(res: string): readonly KubeObject[] {
    const cached = this.sorted.get(res);
    if (cached) return cached;
    const m = this.objects.get(res);
    if (!m) return [];
    const out = [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
    this.sorted.set(res, out);
    return out;
  }

  /** One object by key, or undefined. */
  get(res: string, key: string): KubeObject | undefined {
    return this.objects.get(res)?.get(key);
  }

  /** Stores an object (ADDED or MODIFIED), stamping a new resourceVersion on it. Returns the stored object. */
  put(res: string, obj: KubeObject): KubeObject {
    let m = this.objects.get(res);
    if (!m) this.objects.set(res, (m = new Map()));
    const key = storeKey(obj);
    const prev = m.get(key);
    this.rv++;
    obj.metadata = { ...obj.metadata, resourceVersion: String(this.rv) };
    m.set(key, obj);
    this.record(prev ? { rv: this.rv, type: 'MODIFIED', res, obj, prev } : { rv: this.rv, type: 'ADDED', res, obj });
    return obj;
  }

  /**
   * Stores objects of `res` as one batch taken as the cluster's starting state: each gets a new resourceVersion
   * (written into the object, which the store owns from now on) and no change is recorded or announced, as if the
   * history before now had been compacted. For bulk loading (bulk.ts).
   */
  load(res: string, objs: readonly KubeObject[]): void {
    let m = this.objects.get(res);
    if (!m) this.objects.set(res, (m = new Map()));
    for (const obj of objs) {
      obj.metadata = obj.metadata ?? {};
      obj.metadata.resourceVersion = String(++this.rv);
      m.set(storeKey(obj), obj);
    }
    this.sorted.delete(res);
    this.compact();
  }

  /** Removes an object (DELETED); the event carries the object with a new resourceVersion. */
  remove(res: string, key: string): KubeObject | undefined {
    const m = this.objects.get(res);
    const old = m?.get(key);
    if (!m || !old) return undefined;
    m.delete(key);
    this.rv++;
    const obj = { ...old, metadata: { ...old.metadata, resourceVersion: String(this.rv) } };
    this.record({ rv: this.rv, type: 'DELETED', res, obj });
    return obj;
  }

  /** Changes after `rv` for `res`, or 'expired' when `rv` is older than the retained history. */
  since(res: string, rv: number): Change[] | 'expired' {
    if (rv < this.oldestRv) return 'expired';
    return this.history.filter((c) => c.rv > rv && c.res === res);
  }

  /** Drops all history: every version before now becomes expired (etcd compaction). */
  compact(): void {
    this.history = [];
    this.oldestRv = this.rv;
  }

  /** Calls `fn` after every change; returns the unsubscribe function. */
  subscribe(fn: (c: Change) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private record(c: Change): void {
    this.sorted.delete(c.res);
    this.history.push(c);
    if (this.history.length > this.maxHistory) {
      const dropped = this.history.splice(0, this.history.length - this.maxHistory);
      this.oldestRv = dropped[dropped.length - 1]?.rv ?? this.oldestRv;
    }
    for (const fn of [...this.listeners]) fn(c);
  }
}
