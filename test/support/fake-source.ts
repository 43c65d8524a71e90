// An in-memory ClusterSource for tests: an object store with resourceVersions, an event log that
// watches replay from, compaction (to provoke 410), injected failures and silent (stalled) watches.
import type { KindKey } from '../../src/domain/kinds.js';
import type { KubeObject } from '../../src/domain/objects.js';
import { objectKey } from '../../src/domain/refs.js';
import type { RwxError } from '../../src/errors.js';
import type { ClusterSource, ListPage, WatchCallbacks, WatchEventType, WatchHandle } from '../../src/watch/source.js';

interface LoggedEvent {
  rv: number;
  type: WatchEventType;
  obj: KubeObject;
}

interface OpenWatch {
  kind: KindKey;
  cb: WatchCallbacks;
  open: boolean;
  stalled: boolean;
}

/** The fake API. Events are delivered synchronously inside apply(); see the file comment. */
export class FakeClusterSource implements ClusterSource {
  private rv = 0;
  private compactedRv = 0;
  private readonly store = new Map<KindKey, Map<string, KubeObject>>();
  private readonly log = new Map<KindKey, LoggedEvent[]>();
  private readonly watches = new Set<OpenWatch>();
  /** While set, list and watch fail with this error. */
  failWith: RwxError | undefined;
  /** While set, lists are never answered (a blackholed API server). */
  hangLists = false;
  /** Calls made, for assertions. */
  readonly calls = { list: 0, watch: 0 };

  /** Creates, updates (type MODIFIED, or ADDED when new) or deletes an object, stamping a resourceVersion. */
  apply(kind: KindKey, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    const rv = ++this.rv;
    const stamped: KubeObject = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
    const m = this.kindStore(kind);
    if (type === 'DELETED') m.delete(objectKey(obj));
    else m.set(objectKey(obj), stamped);
    const ev: LoggedEvent = { rv, type, obj: stamped };
    let log = this.log.get(kind);
    if (!log) this.log.set(kind, (log = []));
    log.push(ev);
    for (const w of [...this.watches]) if (w.open && !w.stalled && w.kind === kind) w.cb.onEvent(type, stamped);
  }

  /** Forgets history up to now: watches from an older resourceVersion get 410; open ones get an ERROR 410. */
  compact(): void {
    this.compactedRv = this.rv;
    this.log.clear();
    for (const w of [...this.watches]) if (w.open) this.end(w, 'gone');
  }

  /** Open watches stop receiving events without closing (a silent stream). */
  stallWatches(): void {
    for (const w of this.watches) if (w.open) w.stalled = true;
  }

  /** Closes open watches normally (as a server-side timeout does). */
  closeWatches(): void {
    for (const w of [...this.watches]) if (w.open) this.end(w, 'closed');
  }

  /** Sends a BOOKMARK to every open, non-stalled watch of a kind. */
  bookmark(kind: KindKey): void {
    for (const w of this.watches) {
      if (w.open && !w.stalled && w.kind === kind)
        w.cb.onEvent('BOOKMARK', { metadata: { resourceVersion: String(this.rv) } });
    }
  }

  /** Number of open watches. */
  get openWatches(): number {
    let n = 0;
    for (const w of this.watches) if (w.open) n++;
    return n;
  }

  async list(kind: KindKey, opts: { limit: number; continueToken?: string }): Promise<ListPage> {
    this.calls.list++;
    if (this.hangLists) return new Promise<ListPage>(() => undefined);
    if (this.failWith) throw this.failWith;
    const all = [...this.kindStore(kind).values()];
    const start = opts.continueToken ? Number(opts.continueToken) : 0;
    const items = all.slice(start, start + opts.limit);
    const page: ListPage = { items, resourceVersion: String(this.rv) };
    if (start + opts.limit < all.length) page.continueToken = String(start + opts.limit);
    return page;
  }

  watch(kind: KindKey, opts: { resourceVersion: string }, cb: WatchCallbacks): WatchHandle {
    this.calls.watch++;
    const w: OpenWatch = { kind, cb, open: true, stalled: false };
    this.watches.add(w);
    const from = Number(opts.resourceVersion || '0');
    // Deliver asynchronously, like a network: the caller has its handle before any callback.
    queueMicrotask(() => {
      if (!w.open) return;
      if (this.failWith) return this.end(w, this.failWith);
      if (from < this.compactedRv) return this.end(w, 'gone');
      for (const ev of this.log.get(kind) ?? []) if (ev.rv > from && w.open) cb.onEvent(ev.type, ev.obj);
    });
    return { abort: () => this.close(w) };
  }

  private end(w: OpenWatch, how: 'gone' | 'closed' | RwxError): void {
    if (!w.open) return;
    if (how === 'gone') w.cb.onEvent('ERROR', { kind: 'Status', code: 410 } as KubeObject);
    this.close(w);
    w.cb.onDone(how === 'gone' || how === 'closed' ? null : how);
  }

  private close(w: OpenWatch): void {
    w.open = false;
    this.watches.delete(w);
  }

  private kindStore(kind: KindKey): Map<string, KubeObject> {
    let m = this.store.get(kind);
    if (!m) this.store.set(kind, (m = new Map()));
    return m;
  }
}
