// A connection to a live API server: the kubeconfig resolved once, and one small JSON request function that
// turns transport failures into RwxErrors. Everything else in src/kube speaks through `request`.
//
// @kubernetes/client-node is imported here, lazily, and only when a command connects: loading it costs about half a
// second, which `rwx triage --snapshot` and `rwx drain-check --snapshot` must not pay. Connecting goes through it
// so that every kubeconfig feature keeps working: exec plugins, OIDC and other auth providers, client
// certificates, token files, in-cluster service accounts. The exception is openApi(), which rwx serve and the read
// commands use: when the context's only credential is a static bearer token (kubeconfig.ts staticToken: no exec,
// no provider, no certificate, no proxy), or in a pod with no kubeconfig (the service account's token file), a
// token header and the cluster's CA are all client-node would do, so the read starts without waiting for it.
import http from 'node:http';
import https from 'node:https';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { delimiter, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { RwxError } from '../errors.js';
import { firstWins, kubeconfigFiles, readKubeconfig, staticToken, type StaticToken } from './kubeconfig.js';
import { patienceGuard, type Guard, type Patience } from './patience.js';
import { unreachableError } from './status.js';

/** What connect() needs: the flags, and the environment (KUBECONFIG, KUBERNETES_SERVICE_HOST, HOME). */
export interface ConnectOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Where the pod's service account files are (in-cluster); default SERVICE_ACCOUNT_DIR. */
  serviceAccountDir?: string;
  /** How long requests (not watches) may take, and who hears of a slow one (src/kube/patience.ts). */
  patience?: Patience;
}

/** Where every pod finds its service account's token, the cluster's CA and its namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** An HTTP answer: status code and parsed JSON body (undefined when the body is empty or not JSON). */
export interface KubeResponse {
  status: number;
  body: unknown;
}

/** A resolved API server: enough to send requests. `request` throws only KUBE_UNREACHABLE; callers map statuses. */
export interface ApiConnection {
  /** The API server URL, for messages. */
  server: string;
  /** The kubeconfig context in use ('' for in-cluster). */
  context: string;
  /** The namespace the context names (in-cluster: the service account's), if any: kubectl's default namespace. */
  namespace?: string;
  /** Sends one request to `path` (starting with /), JSON in and out. */
  request(method: 'GET' | 'POST', path: string, body?: unknown, opts?: RequestOptions): Promise<KubeResponse>;
  /** Opens a streaming GET of `path` (a watch), answered line by line; see StreamHandlers. */
  stream(path: string, h: StreamHandlers): { abort(): void };
}

/**
 * A stream's callbacks. After abort() none is called. `onDone` is called once: null when the server ended a 200
 * answer, an Error with `statusCode` (and the status text) for any other status, else the transport's error.
 */
export interface StreamHandlers {
  /** The server answered 200: lines follow. */
  onOpen(): void;
  /** One line of the answer, without its newline (empty lines are skipped). */
  onLine(line: string): void;
  onDone(err: unknown): void;
}

/** What a request may ask for besides its answer. */
export interface RequestOptions {
  /**
   * Called as a 200 answer arrives with its text so far (its first HEAD_BYTES at most), until it returns true: a
   * caller can act on a list's metadata before the whole page has arrived and been parsed. It must not throw.
   */
  head?: (text: string) => boolean;
}

/** How much of an answer `head` is shown: a list's kind, apiVersion and metadata fit many times over. */
const HEAD_BYTES = 4096;

/** A connection through client-node, for code that needs its own APIs too (watch, the gate's typed clients). */
export interface KubeConnection extends ApiConnection {
  kc: KubeConfig;
}

/**
 * Resolves the kubeconfig like kubectl: --kubeconfig FILE alone; else every file listed in KUBECONFIG that exists,
 * merged (the first file to name a cluster, user or context wins, and the first to set current-context); else
 * ~/.kube/config; else in-cluster (KUBERNETES_SERVICE_HOST). Throws RwxError CONFIG when none applies, a file is
 * not a kubeconfig, or --context is not in it. Does not contact the server.
 */
export async function connect(opts: ConnectOptions): Promise<KubeConnection> {
  const files = kubeconfigFiles(opts);
  const where = files.length === 1 ? files[0] : files.length > 1 ? files.join(delimiter) : 'the in-cluster config';
  if (files.length === 0 && !opts.env.KUBERNETES_SERVICE_HOST)
    throw new RwxError('CONFIG', 'no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster');
  for (const f of files) await readKubeconfig(f);
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  try {
    if (files.length === 0) kc.loadFromCluster();
    else
      mergeLikeKubectl(
        kc,
        files.map((f) => {
          const one = new KubeConfig();
          one.loadFromFile(f);
          return one;
        }),
      );
  } catch (e) {
    if (e instanceof RwxError) throw e;
    throw new RwxError('CONFIG', `cannot load kubeconfig ${where}: ${firstLine(e)}`, { cause: e });
  }
  if (opts.context !== undefined) {
    if (!kc.getContextObject(opts.context))
      throw new RwxError('CONFIG', `context "${opts.context}" not found in ${where}`);
    kc.setCurrentContext(opts.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server)
    throw new RwxError('CONFIG', `kubeconfig ${where} has no cluster server for context "${kc.getCurrentContext()}"`);
  const server = cluster.server.replace(/\/+$/, '');
  const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace?.trim() || undefined;
  const agents: KeptAgent = {};
  const guard = patienceGuard(server, opts.patience);
  return {
    server,
    context: kc.getCurrentContext(),
    ...(namespace ? { namespace } : {}),
    kc,
    request: (m, p, b, r) => send((o, url) => clientNodeOptions(kc, o, url, agents), guard, server, m, p, b, r),
    stream: (p, h) => stream((o, url) => clientNodeOptions(kc, o, url, agents), server, p, h),
  };
}

/**
 * A connection for reading (rwx serve's, the read commands' and `rwx node`'s): connect(), except that a static-token
 * context or a pod's service account (see the file comment) is served without loading client-node. Same files,
 * merge, context and errors.
 */
export async function openApi(opts: ConnectOptions): Promise<ApiConnection> {
  const files = kubeconfigFiles(opts);
  if (files.length === 0 && opts.env.KUBERNETES_SERVICE_HOST && !opts.context) return inCluster(opts);
  const target = files.length > 0 ? staticToken(await Promise.all(files.map(readKubeconfig)), opts.context) : undefined;
  return target ? tokenConnection(target, opts.patience) : connect(opts);
}

/**
 * In a pod, with no kubeconfig: the service account's token, the cluster's CA and the pod's namespace from the files
 * every pod gets, the server from KUBERNETES_SERVICE_HOST and _PORT, as client-go and client-node read them. The
 * token is read again whenever its file changes: the kubelet rotates bound service account tokens.
 */
function inCluster(opts: ConnectOptions): ApiConnection {
  const dir = opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name));
    } catch (e) {
      throw new RwxError('CONFIG', `in-cluster: cannot read ${join(dir, name)} (is a service account token mounted?)`, {
        cause: e,
      });
    }
  };
  const host = opts.env.KUBERNETES_SERVICE_HOST ?? '';
  const port = opts.env.KUBERNETES_SERVICE_PORT || '443';
  if (!/^\d{1,5}$/.test(port))
    throw new RwxError('CONFIG', `in-cluster: KUBERNETES_SERVICE_PORT "${port}" is not a port number`);
  // client-node's rule: these ports speak plain HTTP (a proxy), every other one TLS.
  const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
  const tokenFile = join(dir, 'token');
  let token = { at: statSync(tokenFile, { throwIfNoEntry: false })?.mtimeMs, text: read('token').toString().trim() };
  const current = () => {
    const at = statSync(tokenFile, { throwIfNoEntry: false })?.mtimeMs;
    if (at !== undefined && at !== token.at) token = { at, text: readFileSync(tokenFile, 'utf8').trim() };
    return token.text;
  };
  const namespace = existsSync(join(dir, 'namespace')) ? read('namespace').toString().trim() : '';
  const t: StaticToken = {
    context: '',
    ...(namespace ? { namespace } : {}),
    server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    token: token.text,
    ...(scheme === 'https' ? { ca: read('ca.crt') } : {}),
    insecure: false,
  };
  return tokenConnection(t, opts.patience, current);
}

function tokenConnection(t: StaticToken, patience?: Patience, token: () => string = () => t.token): ApiConnection {
  // One keep-alive agent for every request of this connection (one TLS handshake, not one per list page).
  const agent = t.server.startsWith('https:')
    ? new https.Agent({ keepAlive: true, rejectUnauthorized: !t.insecure, ...(t.ca ? { ca: t.ca } : {}) })
    : undefined;
  const apply = async (o: https.RequestOptions) => {
    o.headers = { ...o.headers, Authorization: `Bearer ${token()}` };
    if (agent) o.agent = agent;
  };
  const guard = patienceGuard(t.server, patience);
  return {
    server: t.server,
    context: t.context,
    ...(t.namespace ? { namespace: t.namespace } : {}),
    request: (m, p, b, r) => send(apply, guard, t.server, m, p, b, r),
    stream: (p, h) => stream(apply, t.server, p, h),
  };
}

/** The keep-alive agent a connection reuses, and the TLS settings it was made for. */
interface KeptAgent {
  settings?: string;
  agent?: http.Agent;
}

/** The request options client-node copies into the agent it makes (config.js applyToHTTPSOptions): its TLS. */
const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/**
 * client-node makes a new agent for every request, without keep-alive: a TCP connection and a TLS handshake per
 * list page (300 at 150k pods). The plain http(s) agent it made is replaced by one keep-alive agent per connection,
 * made again only when the TLS settings change (a rotated client certificate). A proxy's agent is kept as made.
 */
function keepAlive(opts: https.RequestOptions, kept: KeptAgent): void {
  const made = opts.agent;
  if (!made || (made.constructor !== http.Agent && made.constructor !== https.Agent)) return;
  const settings = JSON.stringify([made.constructor === https.Agent, ...TLS_FIELDS.map((f) => opts[f] ?? null)]);
  if (kept.settings !== settings || !kept.agent) {
    const Agent = made.constructor as typeof http.Agent;
    // An idle socket is closed after 4 s, before a server's own idle limit (5 s in Node's, kube-apiserver's longer)
    // can close it under a request just sent on it.
    const options = { ...(made as http.Agent & { options: http.AgentOptions }).options, keepAlive: true };
    kept.agent = new Agent({ ...options, timeout: 4_000 });
    kept.settings = settings;
  }
  opts.agent = kept.agent;
}

/**
 * client-node's TLS options and credentials for one request (it refreshes exec and provider tokens itself), on the
 * connection's keep-alive agent.
 */
async function clientNodeOptions(kc: KubeConfig, opts: https.RequestOptions, url: URL, kept: KeptAgent): Promise<void> {
  try {
    await kc.applyToHTTPSOptions(opts);
    keepAlive(opts, kept);
  } catch (e) {
    // client-node refuses plain http unless insecure-skip-tls-verify is set; headers are applied before that
    // check, so for an http: server we go on with the default agent (the simulator speaks plain http).
    if (url.protocol !== 'http:')
      throw new RwxError('CONFIG', `kubeconfig credentials unusable: ${firstLine(e)}`, { cause: e });
    delete opts.agent;
  }
}

/**
 * Merges kubeconfigs into `kc` as kubectl does (client-node's own mergeConfig throws on a name defined twice and
 * lets the last current-context win): the first definition of each name wins, and the first current-context set.
 */
function mergeLikeKubectl(kc: KubeConfig, configs: readonly KubeConfig[]): void {
  kc.loadFromOptions({
    clusters: firstWins(configs.map((c) => c.clusters)),
    users: firstWins(configs.map((c) => c.users)),
    contexts: firstWins(configs.map((c) => c.contexts)),
    currentContext: configs.map((c) => c.getCurrentContext()).find((c) => c) ?? '',
  });
}

/** A request's URL and options, with the credentials and TLS options `apply` adds, and the module that sends it. */
async function prepared(
  apply: (opts: https.RequestOptions, url: URL) => Promise<void>,
  server: string,
  method: string,
  path: string,
): Promise<{ url: URL; opts: https.RequestOptions; mod: typeof http | typeof https }> {
  const url = new URL(server + path);
  const opts: https.RequestOptions = { method, headers: { Accept: 'application/json' } };
  await apply(opts, url);
  return { url, opts, mod: url.protocol === 'http:' ? http : https };
}

/** One JSON request; `apply` adds the credentials and TLS options, `guard` its timeout and waiting notice. */
async function send(
  apply: (opts: https.RequestOptions, url: URL) => Promise<void>,
  guard: Guard,
  server: string,
  method: string,
  path: string,
  body?: unknown,
  ro?: RequestOptions,
): Promise<KubeResponse> {
  const { url, opts, mod } = await prepared(apply, server, method, path);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) opts.headers = { ...opts.headers, 'Content-Type': 'application/json' };
  return new Promise<KubeResponse>((resolve, reject) => {
    const req = mod.request(url, opts, (res) => {
      // Decoded as it arrives (a multi-byte character split between chunks is kept whole by the decoder): no
      // Buffer.concat copy per page, whose external memory made V8 collect its young generation every few pages.
      res.setEncoding('utf8');
      let text = '';
      let head = res.statusCode === 200 ? ro?.head : undefined;
      res.on('data', (c: string) => {
        text += c;
        if (head && (head(text.slice(0, HEAD_BYTES)) || text.length >= HEAD_BYTES)) head = undefined;
      });
      res.on('error', (e) => reject(unreachableError(e, { server })));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    guard(req, reject);
    req.on('error', (e) => reject(unreachableError(e, { server })));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0] ?? m;
}

/**
 * One streaming GET (StreamHandlers). No request timeout: a watch is long-lived, and its silence is the reflector's
 * to judge (src/watch/reflector.ts); TCP keep-alive probes after 30 s of quiet find a peer that is gone.
 */
function stream(
  apply: (opts: https.RequestOptions, url: URL) => Promise<void>,
  server: string,
  path: string,
  h: StreamHandlers,
): { abort(): void } {
  let req: http.ClientRequest | undefined;
  let over = false;
  const done = (err: unknown) => {
    if (over) return;
    over = true;
    req?.destroy();
    h.onDone(err);
  };
  prepared(apply, server, 'GET', path).then(({ url, opts, mod }) => {
    if (over) return;
    req = mod.request(url, opts, (res) => {
      if (res.statusCode !== 200) {
        const status = res.statusCode ?? 0;
        res.resume();
        return done(
          Object.assign(new Error(res.statusMessage || http.STATUS_CODES[status] || 'error'), { statusCode: status }),
        );
      }
      h.onOpen();
      res.setEncoding('utf8');
      let rest = '';
      res.on('data', (c: string) => {
        const lines = (rest + c).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) if (!over && line.trim()) h.onLine(line);
      });
      res.on('end', () => {
        if (!over && rest.trim()) h.onLine(rest);
        done(null);
      });
      res.on('error', (e) => done(unreachableError(e, { server })));
      res.on('close', () =>
        done(res.complete ? null : unreachableError(new Error('watch connection closed'), { server })),
      );
    });
    req.on('socket', (sock) => sock.setKeepAlive(true, 30_000));
    req.on('error', (e) => done(unreachableError(e, { server })));
    req.end();
  }, done);
  return {
    abort: () => {
      over = true;
      req?.destroy();
    },
  };
}
