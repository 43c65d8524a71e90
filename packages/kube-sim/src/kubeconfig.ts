// Client configuration for a running simulator: a kubeconfig file (context "sim") and, for TLS mode, a throwaway
// self-signed certificate made with the openssl binary.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SimError } from './errors.js';

const run = promisify(execFile);

/** A PEM key and certificate valid for 127.0.0.1 and localhost. */
export interface TlsMaterial {
  key: string;
  cert: string;
}

/** Makes a fresh temp directory for one simulator's files. */
export async function simDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'rwx-sim-'));
}

/** Generates a self-signed EC certificate in `dir` with openssl; SimError('TLS') when openssl fails. */
export async function selfSignedCert(dir: string): Promise<TlsMaterial> {
  const key = join(dir, 'tls.key');
  const cert = join(dir, 'tls.crt');
  try {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=rwx-sim',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
  } catch (e) {
    throw new SimError(
      'TLS',
      `openssl could not make a certificate for TLS mode: ${(e as Error).message.split('\n')[0]}`,
      { cause: e },
    );
  }
  return { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8') };
}

/** Writes a kubeconfig with one context "sim" (cluster and user "sim") for `server`; returns its path. */
export async function writeKubeconfig(
  dir: string,
  server: string,
  token: string,
  caPem?: string,
  file = 'kubeconfig',
): Promise<string> {
  // client-node refuses plain http unless the cluster says insecure-skip-tls-verify; kubectl ignores it for http.
  const cluster = caPem
    ? `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}\n`
    : '    insecure-skip-tls-verify: true\n';
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: sim',
    '  cluster:',
    `    server: ${server}`,
    cluster.trimEnd(),
    'users:',
    '- name: sim',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: sim',
    '  context:',
    '    cluster: sim',
    '    user: sim',
    '    namespace: default',
    'current-context: sim',
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
  const path = join(dir, file);
  await writeFile(path, `${text}\n`, { mode: 0o600 });
  return path;
}
