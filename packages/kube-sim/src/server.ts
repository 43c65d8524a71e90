// The HTTP face of the simulator: client identity, faults and audit around every request, then discovery or the
// REST verbs (get, list, watch, create, delete, deletecollection) on the simulated cluster.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from './clock.js';
import { isSimError } from './errors.js';
import { nsKey, storeKey, type KubeObject } from './objects.js';
import type { SimCluster } from './cluster.js';
import type { Faults } from './faults.js';
import type { Authorizer } from './authz.js';
import type { WatchHub } from './watch.js';
import { discovery } from './discovery.js';
import { resourceKey, apiVersionOf, type ResourceInfo } from './resources.js';
import { parseFieldSelector, parseLabelSelector, type Matcher } from './selectors.js';
import { ApiError, notFound, reasonOf, statusBody } from './status.js';
import { answerAccessReview } from './access-review.js';
import { decodeAccessReview, isProtobuf } from './protobuf.js';
import { toTable, wantsTable } from './table.js';

/** The client name of requests without a bearer token. */
export const ANONYMOUS = 'anonymous';
/** The client name of requests with a token the simulator did not issue (they get 401). */
export const UNKNOWN = 'unknown';

/** One request as the audit log records it. `verb` follows Kubernetes audit verbs (get, list, watch, create...). */
export interface AuditEntry {
  verb: string;
  method: string;
  path: string;
  query: Record<string, string>;
  /** The client that sent it (its bearer token's name; "anonymous" without one). */
  client: string;
  /** HTTP status sent (for watches: the 200 that opened the stream); 0 while unanswered (a blackhole). */
  status: number;
  /** The fault that answered instead of the API, if one did (down, unauthorized, failNth, respond, blackhole). */
  fault?: string;
  resource?: string;
  group?: string;
  namespace?: string;
  name?: string;
}

/** Everything a request handler needs. */
export interface ServerDeps {
  cluster: SimCluster;
  clock: Clock;
  faults: Faults;
  authz: Authorizer;
  hub: WatchHub;
  audit: AuditEntry[];
  /** Bearer token -> client name; any other token gets 401. */
  clients: ReadonlyMap<string, string>;
}

interface Route {
  res: ResourceInfo;
  namespace?: string;
  name?: string;
}

function parseRoute(deps: ServerDeps, path: string): Route | undefined {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(.+)$/.exec(path.replace(/\/+$/, ''));
  if (!m) return undefined;
  const group = m[2] ?? '';
  const version = m[1] ?? m[3] ?? '';
  let segs = (m[4] ?? '').split('/').map(decodeURIComponent);
  let namespace: string | undefined;
  if (segs[0] === 'namespaces' && segs.length >= 3) {
    namespace = segs[1];
    segs = segs.slice(2);
  }
  if (segs.length > 2) return undefined;
  const res = deps.cluster.resources.at(group, version, segs[0] ?? '');
  if (!res || (namespace !== undefined && !res.namespaced)) return undefined;
  return { res, namespace, name: segs[1] };
}

function verbOf(method: string, route: Route | undefined, query: URLSearchParams): string {
  if (!route) return method.toLowerCase();
  const watch = query.get('watch') === 'true' || query.get('watch') === '1';
  switch (method) {
    case 'GET':
      return route.name ? 'get' : watch ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return route.name ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/** Responses a cutResponses fault chose: they stop halfway through the body. */
const cutting = new WeakSet<ServerResponse>();

function send(out: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = Buffer.from(JSON.stringify(body));
  out.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': text.length, ...headers });
  if (!cutting.has(out)) return void out.end(text);
  // Content-Length promises the whole body; half of it arrives, then the connection closes.
  out.write(text.subarray(0, text.length >> 1));
  out.socket?.destroySoon();
}

function sendError(out: ServerResponse, e: ApiError): void {
  send(out, e.code, statusBody(e.code, e.reason, e.message, e.details));
}

async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 3 * 1024 * 1024) throw new ApiError(413, 'RequestEntityTooLarge', 'request body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A JSON object body. A protobuf one is refused with 415, as a server without that codec would. */
async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (isProtobuf(req.headers['content-type']))
    throw new ApiError(415, 'UnsupportedMediaType', 'the simulator reads JSON bodies only here');
  const bytes = await readBytes(req);
  try {
    const v = JSON.parse(bytes.toString('utf8') || '{}') as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    return v as Record<string, unknown>;
  } catch {
    throw new ApiError(400, 'BadRequest', 'the request body is not a JSON object');
  }
}

/** An access review body, JSON or protobuf (some kubectl builds send `auth can-i` as protobuf). */
async function readReview(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!isProtobuf(req.headers['content-type'])) return readBody(req);
  try {
    return decodeAccessReview(await readBytes(req));
  } catch (e) {
    throw new ApiError(400, 'BadRequest', `the protobuf body could not be read: ${(e as Error).message}`);
  }
}

function selection(route: Route, q: URLSearchParams): Matcher {
  try {
    const label = parseLabelSelector(q.get('labelSelector'));
    const field = parseFieldSelector(q.get('fieldSelector'), route.res.resource);
    const ns = route.namespace;
    return (o) => (ns === undefined || o.metadata?.namespace === ns) && label(o) && field(o);
  } catch (e) {
    if (isSimError(e, 'SELECTOR')) throw new ApiError(400, 'BadRequest', e.message);
    throw e;
  }
}

/** A list item as the API server serialises it: typed lists omit each item's kind and apiVersion. */
function listItem(o: KubeObject): KubeObject {
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return rest as KubeObject;
}

/**
 * The index of the first object in `sorted` (store-key order) whose key is after `after`: a page costs its own size,
 * not the whole kind's (a 150k-pod list in 500-item pages would otherwise be quadratic).
 */
function firstAfter(sorted: readonly KubeObject[], after: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (storeKey(sorted[mid] as KubeObject) > after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function list(deps: ServerDeps, route: Route, q: URLSearchParams, out: ServerResponse, table: boolean): void {
  const store = deps.cluster.store;
  const match = selection(route, q);
  let rv = store.currentRv();
  let after = '';
  const cont = q.get('continue');
  if (cont) {
    let tok: { rv?: number; start?: string };
    try {
      tok = JSON.parse(Buffer.from(cont, 'base64url').toString('utf8')) as { rv?: number; start?: string };
    } catch {
      throw new ApiError(400, 'BadRequest', 'continue key is not valid: illegal base64 data');
    }
    if (typeof tok.rv !== 'number' || tok.rv < store.oldestServable()) {
      throw new ApiError(
        410,
        'Expired',
        'The provided continue parameter is too old to display a consistent list result. ' +
          'You can start a new list without the continue parameter.',
      );
    }
    rv = tok.rv;
    after = tok.start ?? '';
  }
  const sorted = store.list(resourceKey(route.res));
  const limit = Number(q.get('limit') ?? '0');
  const page: KubeObject[] = [];
  let i = after ? firstAfter(sorted, after) : 0;
  for (; i < sorted.length && (limit <= 0 || page.length < limit); i++) {
    const o = sorted[i] as KubeObject;
    if (match(o)) page.push(o);
  }
  while (i < sorted.length && !match(sorted[i] as KubeObject)) i++;
  const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
  if (i < sorted.length) {
    const last = page[page.length - 1];
    metadata.continue = Buffer.from(JSON.stringify({ rv, start: last ? storeKey(last) : after })).toString('base64url');
    // Like the API server: the remaining count is only known when nothing was filtered out.
    if (!q.get('labelSelector') && !q.get('fieldSelector'))
      metadata.remainingItemCount =
        route.namespace === undefined ? sorted.length - i : sorted.slice(i).filter(match).length;
  }
  if (table) return send(out, 200, toTable(route.res.resource, page, deps.clock.now(), metadata));
  send(out, 200, {
    kind: `${route.res.kind}List`,
    apiVersion: apiVersionOf(route.res),
    metadata,
    items: page.map(listItem),
  });
}

async function dispatch(
  deps: ServerDeps,
  req: IncomingMessage,
  out: ServerResponse,
  url: URL,
  route: Route,
  verb: string,
  client: string,
): Promise<void> {
  const { res, namespace, name } = route;
  const q = url.searchParams;
  const now = deps.clock.now();
  const key = () => nsKey(res.namespaced ? namespace : undefined, name);
  const table = wantsTable(req.headers.accept);
  if (res.createOnly) {
    if (verb !== 'create')
      throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
    send(out, 201, answerAccessReview(await readReview(req), deps.authz, client));
    return;
  }
  switch (verb) {
    case 'get': {
      const o = deps.cluster.store.get(resourceKey(res), key());
      if (!o) throw notFound(res.resource, res.group, name ?? '');
      return send(out, 200, table ? toTable(res.resource, [o], now) : o);
    }
    case 'list':
      return list(deps, route, q, out, table);
    case 'watch': {
      // A too-old resourceVersion still opens the stream with 200: the 410 arrives as an ERROR event.
      const rv = q.get('resourceVersion') ?? '';
      const timeout = q.get('timeoutSeconds');
      deps.hub.start(
        {
          cutFirst: cutting.has(out),
          res: resourceKey(res),
          resource: res.resource,
          client,
          kind: res.kind,
          apiVersion: apiVersionOf(res),
          match: selection(route, q),
          resourceVersion: rv,
          bookmarks: q.get('allowWatchBookmarks') === 'true',
          sendInitialEvents: q.get('sendInitialEvents') === 'true',
          ...(table ? { render: (o: KubeObject) => toTable(res.resource, [o], deps.clock.now()) } : {}),
          ...(timeout !== null && Number(timeout) > 0 ? { timeoutSeconds: Number(timeout) } : {}),
        },
        out,
      );
      return;
    }
    case 'create': {
      if (res.namespaced && namespace === undefined)
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      const created = deps.cluster.create(res, namespace, await readBody(req), now);
      return send(out, 201, created);
    }
    case 'delete':
      return send(out, 200, deps.cluster.remove(res, key(), now));
    case 'deletecollection': {
      const match = selection(route, q);
      const gone = deps.cluster.store
        .list(resourceKey(res))
        .filter(match)
        .map((o) => deps.cluster.remove(res, storeKey(o), now));
      return send(out, 200, {
        kind: `${res.kind}List`,
        apiVersion: apiVersionOf(res),
        metadata: { resourceVersion: String(deps.cluster.store.currentRv()) },
        items: gone.map(listItem),
      });
    }
    default:
      throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }
}

/** The request listener: client, audit, latency, faults, 401, discovery, authorization, then the verb. */
export function createHandler(deps: ServerDeps): (req: IncomingMessage, out: ServerResponse) => void {
  return (req, out) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const method = req.method ?? 'GET';
    const route = parseRoute(deps, url.pathname);
    const verb = verbOf(method, route, url.searchParams);
    const auth = req.headers.authorization;
    const token = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
    const client = auth === undefined ? ANONYMOUS : token !== undefined ? deps.clients.get(token) : undefined;
    const entry: AuditEntry = {
      verb,
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      client: client ?? UNKNOWN,
      status: 0,
    };
    if (route)
      Object.assign(entry, {
        resource: route.res.resource,
        group: route.res.group,
        ...(route.namespace ? { namespace: route.namespace } : {}),
        ...(route.name ? { name: route.name } : {}),
      });
    deps.audit.push(entry);
    const origWriteHead = out.writeHead.bind(out) as (...a: unknown[]) => ServerResponse;
    (out as unknown as { writeHead: (...a: unknown[]) => ServerResponse }).writeHead = (...a: unknown[]) => {
      entry.status = Number(a[0]);
      return origWriteHead(...a);
    };
    void (async () => {
      const facts = { client: entry.client, verb, ...(route ? { resource: route.res.resource } : {}) };
      const delay = deps.faults.latencyFor(facts);
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      const decision = deps.faults.decide(facts);
      if (decision.kind === 'hang') {
        entry.fault = 'blackhole';
        return; // accepted, never answered: the client must time out
      }
      if (decision.kind === 'cut') {
        entry.fault = 'cutResponses';
        cutting.add(out);
      }
      if (decision.kind === 'status') {
        entry.fault = decision.fault;
        const [reason] = reasonOf(decision.status);
        const retry = decision.retryAfter;
        const details = retry !== undefined ? { retryAfterSeconds: retry } : undefined;
        const headers: Record<string, string> = retry !== undefined ? { 'Retry-After': String(retry) } : {};
        return send(out, decision.status, statusBody(decision.status, reason, decision.message, details), headers);
      }
      if (client === undefined) return send(out, 401, statusBody(401, 'Unauthorized', 'Unauthorized'));
      const doc = method === 'GET' ? discovery(url.pathname, deps.cluster.resources) : undefined;
      if (doc !== undefined) return send(out, 200, doc);
      if (!route)
        return send(out, 404, statusBody(404, 'NotFound', 'the server could not find the requested resource'));
      const attrs = {
        verb,
        group: route.res.group,
        resource: route.res.resource,
        client,
        ...(route.namespace ? { namespace: route.namespace } : {}),
      };
      if (!route.res.createOnly && !deps.authz.allowed(attrs)) {
        return send(out, 403, statusBody(403, 'Forbidden', deps.authz.message(attrs), { kind: route.res.resource }));
      }
      await dispatch(deps, req, out, url, route, verb, client);
    })().catch((e: unknown) => {
      if (out.headersSent) return void out.destroy();
      if (e instanceof ApiError) return sendError(out, e);
      send(
        out,
        500,
        statusBody(500, 'InternalError', `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`),
      );
    });
  };
}
