// The real ClusterSource: paginated lists through src/kube's connection, watches through client-node 1.4's Watch.
//
// Why not client-node's makeInformer/ListWatch: it keeps its own full copy of every object (unprojected; at 150k
// pods that alone exceeds the memory budget), never requests bookmarks, has no watch timeout (in 1.4 its
// AbortSignal.timeout is overwritten by the next line), and stops for good on any non-410 error. We keep its
// KubeConfig (auth plugins, TLS, proxies) and its Watch (the streaming parser); recovery lives in reflector.ts.
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { KINDS, type KindInfo, type KindKey } from '../domain/kinds.js';
import type { KubeObject } from '../domain/objects.js';
import { RwxError } from '../errors.js';
import {
  apiError,
  continueFromHead,
  listPath,
  listQuery,
  unreachableError,
  type KubeConnection,
} from '../kube/index.js';
import type { ClusterSource, ListOptions, ListPage, WatchCallbacks, WatchEventType, WatchHandle } from './source.js';

/** Maps a watch failure (HTTP status on the error, or a network error) to an RwxError. */
export function watchError(conn: KubeConnection, err: unknown, what: string): RwxError {
  if (err instanceof RwxError) return err;
  const e = err as { statusCode?: number; code?: number | string; message?: string } | undefined;
  const status = typeof e?.statusCode === 'number' ? e.statusCode : typeof e?.code === 'number' ? e.code : undefined;
  if (status !== undefined) return apiError(conn, status, { message: e?.message }, what);
  return unreachableError(err, { server: conn.server });
}

/**
 * client-node refuses a plain-http server unless the kubeconfig says insecure-skip-tls-verify; the simulator (and
 * `kubectl proxy`) speak plain http. Credentials are applied before that check, so for http we keep the headers
 * and drop the agent, as src/kube/connect.ts does for lists.
 */
function httpTolerant(kc: KubeConfig): KubeConfig {
  const adapter = {
    getCurrentCluster: () => kc.getCurrentCluster(),
    applyToFetchOptions: async (opts: Record<string, unknown>) => {
      try {
        return await kc.applyToFetchOptions(opts);
      } catch (e) {
        if (!kc.getCurrentCluster()?.server.startsWith('http:')) throw e;
        const headers = new Headers();
        for (const [k, v] of Object.entries((opts.headers ?? {}) as Record<string, unknown>)) {
          if (typeof v === 'string' || typeof v === 'number') headers.set(k, String(v));
        }
        return { headers };
      }
    },
  };
  return adapter as unknown as KubeConfig;
}

/** Hands a continue token read early to `cb`; true once the head has settled it (token or none). */
function told(token: string | null | undefined, cb: (token: string) => void): boolean {
  if (token) cb(token);
  return token !== undefined;
}

/** ClusterSource over a live connection (or the simulator's kubeconfig). */
export class KubeClusterSource implements ClusterSource {
  private readonly watcher: Watch;

  constructor(private readonly conn: KubeConnection) {
    this.watcher = new Watch(httpTolerant(conn.kc));
  }

  async list(kind: KindKey, opts: ListOptions): Promise<ListPage> {
    const q = listQuery(kind, opts.limit, opts.continueToken);
    const what = `list ${KINDS[kind].resource}`;
    const early = opts.onContinue;
    const head = early && { head: (text: string) => told(continueFromHead(text), early) };
    const res = await this.conn.request('GET', `${listPath(kind)}?${q}`, undefined, head);
    if (res.status !== 200) throw apiError(this.conn, res.status, res.body, what);
    const body = (res.body ?? {}) as { items?: unknown; metadata?: { resourceVersion?: string; continue?: string } };
    if (!Array.isArray(body.items))
      throw new RwxError('KUBE_API', `${what}: answer from ${this.conn.server} is not a list`);
    const page: ListPage = {
      items: body.items.filter((o): o is KubeObject => !!o && typeof o === 'object'),
      resourceVersion: body.metadata?.resourceVersion ?? '',
    };
    if (body.metadata?.continue) page.continueToken = body.metadata.continue;
    return page;
  }

  watch(kind: KindKey, opts: { resourceVersion: string; timeoutSeconds?: number }, cb: WatchCallbacks): WatchHandle {
    let closed = false;
    let controller: AbortController | undefined;
    const what = `watch ${KINDS[kind].resource}`;
    const params: Record<string, string | number | boolean> = { allowWatchBookmarks: true };
    const selector = (KINDS[kind] as KindInfo).fieldSelector;
    if (selector) params.fieldSelector = selector;
    if (opts.resourceVersion) params.resourceVersion = opts.resourceVersion;
    if (opts.timeoutSeconds) params.timeoutSeconds = opts.timeoutSeconds;
    const finish = (err: unknown): void => {
      if (closed) return;
      closed = true;
      cb.onDone(err ? watchError(this.conn, err, what) : null);
    };
    this.watcher
      .watch(
        listPath(kind),
        params,
        (type: string, obj: KubeObject) => {
          if (!closed) cb.onEvent(type as WatchEventType, obj);
        },
        finish,
      )
      .then((c) => {
        controller = c;
        // The client resolves after the response; it has already called done (closed) unless the status was 200.
        if (closed) c.abort();
        else cb.onOpen?.();
      })
      .catch(finish);
    return {
      abort: () => {
        closed = true;
        controller?.abort();
      },
    };
  }
}
