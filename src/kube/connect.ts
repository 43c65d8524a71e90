// A connection to a live API server: the kubeconfig resolved once, and one small JSON request function that
// turns transport failures into RwxErrors. Everything else in src/kube speaks through `request`.
//
// @kubernetes/client-node is imported here, lazily, and only when a command connects: loading it costs about half a
// second, which `rwx triage --snapshot` and `rwx drain-check --snapshot` must not pay. Connecting goes through it
// so that every kubeconfig feature keeps working: exec plugins, OIDC and other auth providers, client
// certificates, token files, in-cluster service accounts.
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Cluster, Context, KubeConfig, User } from '@kubernetes/client-node';
import { RwxError } from '../errors.js';
import { unreachableError } from './status.js';

/** What connect() needs: the flags, and the environment (KUBECONFIG, KUBERNETES_SERVICE_HOST, HOME). */
export interface ConnectOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  env: NodeJS.ProcessEnv;
}

/** An HTTP answer: status code and parsed JSON body (undefined when the body is empty or not JSON). */
export interface KubeResponse {
  status: number;
  body: unknown;
}

/** A resolved API server connection. `request` throws only KUBE_UNREACHABLE; callers map statuses. */
export interface KubeConnection {
  /** The API server URL, for messages. */
  server: string;
  /** The kubeconfig context in use ('' for in-cluster). */
  context: string;
  /** The namespace the context names (in-cluster: the service account's), if any: kubectl's default namespace. */
  namespace?: string;
  /** The underlying client-node config, for code that needs client-node's own APIs (watch). */
  kc: KubeConfig;
  /** Sends one request to `path` (starting with /), JSON in and out. */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<KubeResponse>;
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
  for (const f of files) await checkKubeconfig(f);
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
  return {
    server,
    context: kc.getCurrentContext(),
    ...(namespace ? { namespace } : {}),
    kc,
    request: (m, p, b) => send(kc, server, m, p, b),
  };
}

/** The kubeconfig files to read, in order: --kubeconfig, else KUBECONFIG's existing files, else ~/.kube/config. */
function kubeconfigFiles(opts: ConnectOptions): string[] {
  if (opts.kubeconfig) return [opts.kubeconfig];
  const fromEnv = (opts.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (fromEnv.length > 0) {
    const existing = fromEnv.filter((f) => existsSync(f));
    if (existing.length === 0)
      throw new RwxError('CONFIG', `KUBECONFIG names no file that exists (${fromEnv.join(delimiter)})`);
    return existing;
  }
  const def = join(opts.env.HOME ?? homedir(), '.kube', 'config');
  return existsSync(def) ? [def] : [];
}

/**
 * Merges kubeconfigs into `kc` as kubectl does (client-node's own mergeConfig throws on a name defined twice and
 * lets the last current-context win): the first definition of each name wins, and the first current-context set.
 */
function mergeLikeKubectl(kc: KubeConfig, configs: readonly KubeConfig[]): void {
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let currentContext = '';
  for (const c of configs) {
    for (const x of c.clusters) if (!clusters.has(x.name)) clusters.set(x.name, x);
    for (const x of c.users) if (!users.has(x.name)) users.set(x.name, x);
    for (const x of c.contexts) if (!contexts.has(x.name)) contexts.set(x.name, x);
    currentContext ||= c.getCurrentContext() ?? '';
  }
  kc.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext,
  });
}

/** Throws CONFIG unless `file` is readable YAML with clusters, contexts or users (not, say, /etc/passwd). */
async function checkKubeconfig(file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? firstLine(e));
    throw new RwxError('CONFIG', `cannot read kubeconfig ${file}: ${why}`, { cause: e });
  }
  let doc: unknown;
  const { parse } = await import('yaml'); // only when connecting: snapshot commands do not load it
  try {
    doc = parse(text);
  } catch {
    doc = undefined;
  }
  const o = doc as { kind?: unknown; clusters?: unknown; contexts?: unknown; users?: unknown } | undefined;
  const shaped =
    o !== null &&
    typeof o === 'object' &&
    !Array.isArray(o) &&
    (o.kind === 'Config' || Array.isArray(o.clusters) || Array.isArray(o.contexts) || Array.isArray(o.users));
  if (!shaped)
    throw new RwxError('CONFIG', `${file} is not a kubeconfig (expected YAML with clusters, contexts and users)`);
}

async function send(
  kc: KubeConfig,
  server: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<KubeResponse> {
  const url = new URL(server + path);
  const opts: https.RequestOptions = { method, headers: { Accept: 'application/json' } };
  try {
    await kc.applyToHTTPSOptions(opts);
  } catch (e) {
    // client-node refuses plain http unless insecure-skip-tls-verify is set; headers are applied before that
    // check, so for an http: server we go on with the default agent (the simulator speaks plain http).
    if (url.protocol !== 'http:')
      throw new RwxError('CONFIG', `kubeconfig credentials unusable: ${firstLine(e)}`, { cause: e });
    delete opts.agent;
  }
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) opts.headers = { ...opts.headers, 'Content-Type': 'application/json' };
  const mod = url.protocol === 'http:' ? http : https;
  return new Promise<KubeResponse>((resolve, reject) => {
    const req = mod.request(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => reject(unreachableError(e, { server })));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.setTimeout(60_000, () => req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', (e) => reject(unreachableError(e, { server })));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0] ?? m;
}
