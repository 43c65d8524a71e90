// Reading the live cluster: one paginated list per kind (limit 500 + continue), projected on the way in.
// A 403 (or 404: resource not served) on one kind marks it unreadable and the read goes on; anything that
// makes the whole read pointless (401, unreachable, 5xx, a server that is not a Kubernetes API server) fails it
// with one RwxError.
import { RwxError } from '../errors.js';
import { KINDS, apiVersionOf, type KindInfo, type KindKey } from '../domain/kinds.js';
import type { KubeObject } from '../domain/objects.js';
import { emptySnapshot, type Snapshot, type UnreadableKind } from '../domain/snapshot.js';
import type { ApiConnection, KubeResponse } from './connect.js';
import { assertKubernetesApi, notAList, rethrowChecked } from './discovery.js';
import { pagesAhead, type AskPage } from './pages.js';
import { statusError, statusMessage } from './status.js';
import { project } from './project.js';

/** What readCluster lists. `namespace` applies to the namespaced kinds in `namespacedKinds` (default: all). */
export interface ReadOptions {
  kinds: readonly KindKey[];
  namespace?: string | undefined;
  namespacedKinds?: ReadonlySet<KindKey>;
}

/** Page size for list calls, as kubectl uses. */
export const PAGE_LIMIT = 500;

/** Reason recorded in `unreadable` for a kind whose list answered 404 (its API group is not served there). */
export const NOT_SERVED = 'not served by this API server';

/**
 * Lists every requested kind (in parallel, pages in order) into a projected Snapshot. Kinds not requested are marked
 * unreadable ('not read'). When a list answers 404 or not with a list, discovery settles whether the server is a
 * Kubernetes API server at all (assertKubernetesApi: CONFIG when it is not), once for the whole read.
 */
export async function readCluster(conn: ApiConnection, opts: ReadOptions): Promise<Snapshot> {
  const snap = emptySnapshot();
  const lists = Promise.all(
    opts.kinds.map(async (k) => {
      const ns =
        opts.namespace && KINDS[k].namespaced && (opts.namespacedKinds?.has(k) ?? true) ? opts.namespace : undefined;
      return { k, r: await listKind(conn, k, ns) };
    }),
  );
  const results = await lists.catch((e: unknown) => rethrowChecked(conn, e));
  if (results.some(({ r }) => 'unreadable' in r && r.unreadable.reason === NOT_SERVED)) await assertKubernetesApi(conn);
  for (const { k, r } of results) {
    if ('unreadable' in r) snap.unreadable.push(r.unreadable);
    else (snap[k] as unknown[]) = r.items;
  }
  for (const k of Object.keys(KINDS) as KindKey[]) {
    if (!opts.kinds.includes(k)) snap.unreadable.push({ kind: k, reason: 'not read by this command' });
  }
  return snap;
}

/** The list URL path of a kind, optionally in one namespace. */
export function listPath(kind: KindKey, namespace?: string): string {
  const info = KINDS[kind];
  const base = info.group ? `/apis/${apiVersionOf(info)}` : `/api/${info.version}`;
  return namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${info.resource}`
    : `${base}/${info.resource}`;
}

/** The query of one list page of `kind`: limit, continue token, and the kind's fieldSelector (domain/kinds.ts). */
export function listQuery(kind: KindKey, limit: number, continueToken?: string): URLSearchParams {
  const q = new URLSearchParams({ limit: String(limit) });
  if (continueToken) q.set('continue', continueToken);
  const info: KindInfo = KINDS[kind];
  if (info.fieldSelector) q.set('fieldSelector', info.fieldSelector);
  return q;
}

/** A list answer's top-level `metadata` object when it comes first (after kind and apiVersion), as a server writes it. */
const LEADING_METADATA = /^\s*\{(?:\s*"(?:kind|apiVersion)"\s*:\s*"[^"\\]*"\s*,)*\s*"metadata"\s*:\s*(\{[^{}]*\})/;

/**
 * A list page's continue token, read from the first bytes of its answer before the page is parsed: the API server
 * writes a list's kind, apiVersion and metadata before its items (the field order of its Go types), so the next
 * page can be asked for while this one is still arriving and being parsed. Returns the token; null when the head
 * settles that there is none to read early (the last page, or an answer not laid out that way: the parsed page
 * decides then); undefined while more bytes are needed.
 */
export function continueFromHead(head: string): string | null | undefined {
  const m = LEADING_METADATA.exec(head);
  if (!m) return head.includes('"items"') ? null : undefined;
  try {
    const meta = JSON.parse(m[1] as string) as { continue?: unknown };
    return typeof meta.continue === 'string' && meta.continue ? meta.continue : null;
  } catch {
    return null;
  }
}

async function listKind(
  conn: ApiConnection,
  kind: KindKey,
  namespace?: string,
): Promise<{ items: unknown[] } | { unreadable: UnreadableKind }> {
  const ask: AskPage<{ res: KubeResponse; page?: ListAnswer }> = async (token, early) => {
    const q = listQuery(kind, PAGE_LIMIT, token);
    const res = await conn.request('GET', `${listPath(kind, namespace)}?${q}`, undefined, { head: headReader(early) });
    if (res.status !== 200) return { res };
    const page = listAnswer(conn, kind, res.body);
    // Projected as it arrives, not when the loop below gets to it (src/kube/pages.ts says why).
    return { res, page: { ...page, items: page.items.map((o) => project(kind, o)) } };
  };
  for (let restarted = false; ; restarted = true) {
    const items: unknown[] = [];
    let first = true;
    for await (const { res, page } of pagesAhead(ask, (a) => a.page?.continueToken)) {
      if (res.status === 403)
        return { unreadable: { kind, reason: `forbidden: ${statusMessage(res.body) || 'list denied'}` } };
      if (res.status === 404) return { unreadable: { kind, reason: NOT_SERVED } };
      // The continue token expired mid-list: start over once from a fresh list, as kubectl does.
      if (res.status === 410 && !first && !restarted) break;
      if (!page) throw apiError(conn, res.status, res.body, `list ${KINDS[kind].resource}`);
      for (const o of page.items) items.push(o);
      if (!page.continueToken) return { items };
      first = false;
    }
  }
}

/** One page of a list as a 200 answer holds it. */
export interface ListAnswer {
  /** Its objects; an item that is not an object is dropped. */
  items: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
}

/** The page in a 200 list answer's `body`; KUBE_API when the answer is not a list. */
export function listAnswer(conn: ApiConnection, kind: KindKey, body: unknown): ListAnswer {
  const b = (body ?? {}) as { items?: unknown; metadata?: { resourceVersion?: string; continue?: string } };
  if (!Array.isArray(b.items))
    throw notAList(new RwxError('KUBE_API', `list ${KINDS[kind].resource}: answer from ${conn.server} is not a list`));
  const page: ListAnswer = {
    items: b.items.filter((o): o is KubeObject => !!o && typeof o === 'object'),
    resourceVersion: b.metadata?.resourceVersion ?? '',
  };
  if (b.metadata?.continue) page.continueToken = b.metadata.continue;
  return page;
}

/**
 * The `head` of a list page's request (RequestOptions): hands the page's continue token to `early` as soon as the
 * answer's first bytes name it (continueFromHead), and says when the head has settled it either way.
 */
export function headReader(early: (token: string) => void): (text: string) => boolean {
  return (text) => {
    const token = continueFromHead(text);
    if (token) early(token);
    return token !== undefined;
  };
}

/** The error for a non-success list/get status from `conn`'s server (src/kube/status.ts has the mapping). */
export function apiError(conn: ApiConnection, status: number, body: unknown, what: string): RwxError {
  return statusError(status, body, what, { server: conn.server });
}
