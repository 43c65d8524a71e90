// ClusterSource: the one interface between the bot and the Kubernetes API for list+watch. The real adapter
// (kube-source.ts) speaks HTTP through @kubernetes/client-node; the fake (test/support/fake-source.ts) is driven by
// tests. Everything above it (reflector, watcher, pipeline) is ours and is tested against both.
import type { KindKey } from '../domain/kinds.js';
import type { KubeObject } from '../domain/objects.js';

/** One page of a paginated list: items, the list's resourceVersion, and a continue token when more remain. */
export interface ListPage {
  items: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
}

/** One list page's request. */
export interface ListOptions {
  limit: number;
  /** From the previous page. */
  continueToken?: string;
  /**
   * Called at most once, before the page resolves, with the continue token the page will carry, when the source
   * can read it early (src/kube/read.ts continueFromHead); a source that cannot tell never calls it.
   */
  onContinue?: (token: string) => void;
}

/** A watch event as the API sends it. ERROR carries a Status object (code 410 = resourceVersion too old). */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Callbacks for one watch stream. `onDone` is called exactly once: null for a normal close, else the error. */
export interface WatchCallbacks {
  /** The API server accepted the watch (HTTP 200): it answers again, even on a quiet cluster with no event. */
  onOpen?(): void;
  onEvent(type: WatchEventType, obj: KubeObject): void;
  onDone(err: unknown): void;
}

/** A running watch; abort() closes it without calling onDone. Idempotent. */
export interface WatchHandle {
  abort(): void;
}

/** List and watch one kind across all namespaces. Errors are RwxError (KUBE_GONE for 410, KUBE_UNREACHABLE...). */
export interface ClusterSource {
  /** Lists one page (limit items) of a kind; `continueToken` from the previous page. */
  list(kind: KindKey, opts: ListOptions): Promise<ListPage>;
  /** Opens a watch from `resourceVersion` with bookmarks requested; `timeoutSeconds` asks the server to close it. */
  watch(kind: KindKey, opts: { resourceVersion: string; timeoutSeconds?: number }, cb: WatchCallbacks): WatchHandle;
}
