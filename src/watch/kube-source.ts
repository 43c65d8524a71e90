// The real ClusterSource: paginated lists and watches (a streaming GET, one event per line) through src/kube's
// connection, so a static-token or in-cluster connection never loads client-node.
//
// Why not client-node's makeInformer/ListWatch: it keeps its own full copy of every object (unprojected; at 150k
// pods that alone exceeds the memory budget), never requests bookmarks, has no watch timeout (in 1.4 its
// AbortSignal.timeout is overwritten by the next line), and stops for good on any non-410 error. A connection made
// through client-node keeps its KubeConfig's credentials (auth plugins, TLS, proxies) for both; recovery lives in
// reflector.ts.
import { KINDS, type KindInfo, type KindKey } from '../domain/kinds.js';
import type { KubeObject } from '../domain/objects.js';
import { RwxError } from '../errors.js';
import {
  apiError,
  headReader,
  listAnswer,
  listPath,
  listQuery,
  unreachableError,
  type ApiConnection,
} from '../kube/index.js';
import type { ClusterSource, ListOptions, ListPage, WatchCallbacks, WatchEventType, WatchHandle } from './source.js';

/** Maps a watch failure (HTTP status on the error, or a network error) to an RwxError. */
export function watchError(conn: ApiConnection, err: unknown, what: string): RwxError {
  if (err instanceof RwxError) return err;
  const e = err as { statusCode?: number; code?: number | string; message?: string } | undefined;
  const status = typeof e?.statusCode === 'number' ? e.statusCode : typeof e?.code === 'number' ? e.code : undefined;
  if (status !== undefined) return apiError(conn, status, { message: e?.message }, what);
  return unreachableError(err, { server: conn.server });
}

/** ClusterSource over a live connection (or the simulator's kubeconfig). */
export class KubeClusterSource implements ClusterSource {
  constructor(private readonly conn: ApiConnection) {}

  async list(kind: KindKey, opts: ListOptions): Promise<ListPage> {
    const q = listQuery(kind, opts.limit, opts.continueToken);
    const head = opts.onContinue && { head: headReader(opts.onContinue) };
    const res = await this.conn.request('GET', `${listPath(kind)}?${q}`, undefined, head);
    if (res.status !== 200) throw apiError(this.conn, res.status, res.body, `list ${KINDS[kind].resource}`);
    return listAnswer(this.conn, kind, res.body);
  }

  watch(kind: KindKey, opts: { resourceVersion: string; timeoutSeconds?: number }, cb: WatchCallbacks): WatchHandle {
    let closed = false;
    const what = `watch ${KINDS[kind].resource}`;
    const q = new URLSearchParams({ watch: 'true', allowWatchBookmarks: 'true' });
    const selector = (KINDS[kind] as KindInfo).fieldSelector;
    if (selector) q.set('fieldSelector', selector);
    if (opts.resourceVersion) q.set('resourceVersion', opts.resourceVersion);
    if (opts.timeoutSeconds) q.set('timeoutSeconds', String(opts.timeoutSeconds));
    const finish = (err: unknown): void => {
      if (closed) return;
      closed = true;
      cb.onDone(err ? watchError(this.conn, err, what) : null);
    };
    const stream = this.conn.stream(`${listPath(kind)}?${q}`, {
      onOpen: () => {
        if (!closed) cb.onOpen?.();
      },
      onLine: (line) => {
        if (closed) return;
        let ev: { type?: unknown; object?: unknown };
        try {
          ev = JSON.parse(line) as typeof ev;
        } catch {
          return; // a line that is not JSON is not an event
        }
        if (typeof ev?.type === 'string' && ev.object && typeof ev.object === 'object')
          cb.onEvent(ev.type as WatchEventType, ev.object as KubeObject);
      },
      onDone: finish,
    });
    return {
      abort: () => {
        closed = true;
        stream.abort();
      },
    };
  }
}
