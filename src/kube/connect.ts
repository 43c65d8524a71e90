// A connection to a live API server: the kubeconfig resolved once, and one small JSON request function that
// turns transport failures into RwxErrors. Everything else in src/kube speaks through `request`.
import { existsSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
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
  /** The underlying client-node config, for code that needs client-node's own APIs (watch). */
  kc: KubeConfig;
  /** Sends one request to `path` (starting with /), JSON in and out. */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<KubeResponse>;
}

/**
 * Resolves the kubeconfig like kubectl: --kubeconfig, else the first existing file in KUBECONFIG, else
 * ~/.kube/config, else in-cluster (KUBERNETES_SERVICE_HOST). Throws RwxError CONFIG when none applies or the
 * file or --context is unusable. Does not contact the server.
 */
export async function connect(opts: ConnectOptions): Promise<KubeConnection> {
  const kc = new KubeConfig();
  const file = kubeconfigPath(opts);
  try {
    if (file) kc.loadFromFile(file);
    else if (opts.env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
    else throw new RwxError('CONFIG', 'no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster');
  } catch (e) {
    if (e instanceof RwxError) throw e;
    throw new RwxError('CONFIG', `cannot load kubeconfig ${file ?? '(in-cluster)'}: ${firstLine(e)}`, { cause: e });
  }
  if (opts.context !== undefined) {
    if (!kc.getContextObject(opts.context)) {
      throw new RwxError('CONFIG', `context "${opts.context}" not found in ${file ?? 'the kubeconfig'}`);
    }
    kc.setCurrentContext(opts.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server)
    throw new RwxError(
      'CONFIG',
      `kubeconfig ${file ?? ''} has no cluster server for context "${kc.getCurrentContext()}"`,
    );
  const server = cluster.server.replace(/\/+$/, '');
  return { server, context: kc.getCurrentContext(), kc, request: (m, p, b) => send(kc, server, m, p, b) };
}

function kubeconfigPath(opts: ConnectOptions): string | undefined {
  if (opts.kubeconfig) return opts.kubeconfig;
  const fromEnv = (opts.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (fromEnv.length > 0) return fromEnv.find((f) => existsSync(f)) ?? fromEnv[0];
  const home = opts.env.HOME ?? homedir();
  const def = join(home, '.kube', 'config');
  return existsSync(def) ? def : undefined;
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
