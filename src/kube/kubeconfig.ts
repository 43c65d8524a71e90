// Kubeconfig files as kubectl reads them: which files (--kubeconfig, else KUBECONFIG's existing files, else
// ~/.kube/config), that each really is a kubeconfig, and how several merge (the first file to define a cluster, user
// or context wins, and the first to set current-context). The merge rule is one function used on client-node's
// objects (connect.ts) and on the files' own YAML (staticToken below) alike.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { RwxError } from '../errors.js';

/** One kubeconfig file as parsed YAML (only the fields read here are typed). */
export interface KubeconfigFile {
  file: string;
  doc: {
    clusters?: { name?: string; cluster?: Record<string, unknown> }[];
    users?: { name?: string; user?: Record<string, unknown> }[];
    contexts?: { name?: string; context?: { cluster?: string; user?: string; namespace?: string } }[];
    'current-context'?: string;
  };
}

/** The kubeconfig files to read, in order: --kubeconfig, else KUBECONFIG's existing files, else ~/.kube/config. */
export function kubeconfigFiles(opts: { kubeconfig?: string | undefined; env: NodeJS.ProcessEnv }): string[] {
  // A configured value may be KUBECONFIG's list, carried by rwx serve's Config; a flag's one file is a list of one.
  if (opts.kubeconfig) {
    const files = opts.kubeconfig.split(delimiter).filter(Boolean);
    return existsSync(opts.kubeconfig) || files.length <= 1 ? [opts.kubeconfig] : existing(files, 'kubeconfig');
  }
  const fromEnv = (opts.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (fromEnv.length > 0) return existing(fromEnv, 'KUBECONFIG');
  const def = join(opts.env.HOME ?? homedir(), '.kube', 'config');
  return existsSync(def) ? [def] : [];
}

/** The files of a list that exist, as kubectl reads them; none is an error naming `what`. */
function existing(files: string[], what: string): string[] {
  const found = files.filter((f) => existsSync(f));
  if (found.length === 0) throw new RwxError('CONFIG', `${what} names no file that exists (${files.join(delimiter)})`);
  return found;
}

/** Reads and parses `file`; throws CONFIG unless it is YAML with clusters, contexts or users (not /etc/passwd). */
export async function readKubeconfig(file: string): Promise<KubeconfigFile> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? String(e));
    throw new RwxError('CONFIG', `cannot read kubeconfig ${file}: ${why}`, { cause: e });
  }
  const { parse } = await import('yaml'); // only when connecting: snapshot commands do not load it
  let doc: unknown;
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
  return { file, doc: o as KubeconfigFile['doc'] };
}

/** kubectl's merge of named entries: the first definition of each name wins. */
export function firstWins<T extends { name?: string }>(lists: readonly (readonly T[] | undefined)[]): T[] {
  const out = new Map<string, T>();
  for (const list of lists) for (const x of list ?? []) if (x.name && !out.has(x.name)) out.set(x.name, x);
  return [...out.values()];
}

/** What a request needs when the kubeconfig's only credential is a static bearer token. */
export interface StaticToken {
  context: string;
  namespace?: string;
  server: string;
  token: string;
  /** The CA bundle to trust instead of the system's, if the cluster names one. */
  ca?: Buffer;
  insecure: boolean;
}

const TOKEN_USER_FIELDS = new Set(['token']);
const PLAIN_CLUSTER_FIELDS = new Set([
  'server',
  'certificate-authority',
  'certificate-authority-data',
  'insecure-skip-tls-verify',
]);

/**
 * The context's server and token when its user holds nothing but `token` and its cluster nothing but the server, a
 * CA and insecure-skip-tls-verify; else undefined, and connect() goes through client-node (exec plugins, auth
 * providers, client certificates, token files, proxies, tls-server-name). The same merge and context as connect().
 */
export function staticToken(files: readonly KubeconfigFile[], contextName?: string): StaticToken | undefined {
  const name = contextName ?? files.map((f) => f.doc['current-context']).find((c) => c);
  const context = firstWins(files.map((f) => f.doc.contexts)).find((c) => c.name === name)?.context;
  const definedIn = (kind: 'clusters' | 'users', n: string | undefined) =>
    files.find((f) => f.doc[kind]?.some((x) => x.name === n));
  const clusterFile = definedIn('clusters', context?.cluster);
  const cluster = clusterFile?.doc.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = definedIn('users', context?.user)?.doc.users?.find((u) => u.name === context?.user)?.user;
  if (!name || !cluster || !user || !clusterFile) return undefined;
  if (!Object.keys(user).every((k) => TOKEN_USER_FIELDS.has(k)) || typeof user.token !== 'string' || !user.token)
    return undefined;
  if (!Object.keys(cluster).every((k) => PLAIN_CLUSTER_FIELDS.has(k))) return undefined;
  const server = cluster.server;
  if (typeof server !== 'string' || !/^https?:\/\//.test(server)) return undefined;
  const ca = caOf(cluster, clusterFile.file);
  const namespace = context?.namespace?.trim();
  return {
    context: name,
    ...(namespace ? { namespace } : {}),
    server: server.replace(/\/+$/, ''),
    token: user.token,
    ...(ca ? { ca } : {}),
    insecure: cluster['insecure-skip-tls-verify'] === true,
  };
}

/** The cluster's CA: inline data, or a file relative to the kubeconfig that names it (as kubectl resolves it). */
function caOf(cluster: Record<string, unknown>, file: string): Buffer | undefined {
  const data = cluster['certificate-authority-data'];
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64');
  const path = cluster['certificate-authority'];
  if (typeof path !== 'string' || !path) return undefined;
  const abs = isAbsolute(path) ? path : join(dirname(file), path);
  try {
    return readFileSync(abs);
  } catch (e) {
    throw new RwxError('CONFIG', `cannot read certificate-authority ${abs} named in ${file}`, { cause: e });
  }
}
