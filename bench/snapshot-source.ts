// A ClusterSource for the benchmarks: lists paged from a snapshot in memory, watch callbacks handed to the bench,
// which drives events itself (no HTTP, no simulator), so a run measures the bot and nothing else.
import type { KindKey } from '../src/domain/kinds.js';
import type { KubeObject } from '../src/domain/objects.js';
import type { Snapshot } from '../src/domain/snapshot.js';
import type { ClusterSource, ListPage, WatchCallbacks, WatchHandle } from '../src/watch/source.js';

/** Serves lists from `snap` (empty lists while it is undefined) and keeps each kind's watch callbacks. */
export class SnapshotSource implements ClusterSource {
  readonly callbacks = new Map<KindKey, WatchCallbacks>();
  constructor(public snap: Snapshot | undefined) {}
  async list(kind: KindKey, opts: { limit: number; continueToken?: string }): Promise<ListPage> {
    const all = (this.snap?.[kind] ?? []) as KubeObject[];
    const start = Number(opts.continueToken ?? 0);
    const page: ListPage = { items: all.slice(start, start + opts.limit), resourceVersion: '1' };
    if (start + opts.limit < all.length) page.continueToken = String(start + opts.limit);
    return page;
  }
  watch(kind: KindKey, _o: unknown, cb: WatchCallbacks): WatchHandle {
    this.callbacks.set(kind, cb);
    return { abort: () => this.callbacks.delete(kind) };
  }
}
