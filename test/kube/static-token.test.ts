// openApi(): a context whose only credential is a static bearer token is read without client-node (the read starts
// at once); every other kubeconfig feature still goes through client-node. Against the simulator over HTTP and
// HTTPS (its CA in the kubeconfig: verified, and a wrong CA refused), and as whole processes with client-node
// blocked by a module hook, so a fallback that silently loads it, or a fast path that does not, shows.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { isRwxError } from '../../src/errors.js';
import { openApi } from '../../src/kube/connect.js';
import { staticToken, type KubeconfigFile } from '../../src/kube/kubeconfig.js';
import { scenarioPath, testSim } from '../support/sim.js';

const BIN = fileURLToPath(new URL('../../bin/rwx.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rwx-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hooks = join(dir, 'hooks.mjs');
writeFileSync(
  hooks,
  `export async function resolve(s, c, next) {
  if (s === '@kubernetes/client-node') throw new Error('BLOCKED: client-node loaded');
  return next(s, c);
}\n`,
);
const register = join(dir, 'register.mjs');
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);

/** `rwx triage --kubeconfig FILE -o json` in a process that cannot load client-node (async: the simulator serves
 * it from this process). */
function triageWithoutClientNode(kubeconfig: string): Promise<{ stdout: string; stderr: string }> {
  const args = ['--import', register, BIN, 'triage', '--kubeconfig', kubeconfig, '-o', 'json'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, HOME: dir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', () => resolve({ stdout, stderr }));
  });
}

const base = (user: Record<string, unknown>, cluster: Record<string, unknown> = {}): KubeconfigFile => ({
  file: join(dir, 'config'),
  doc: {
    clusters: [{ name: 'c', cluster: { server: 'https://api.example:6443', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'shop' } }],
    'current-context': 'x',
  },
});

describe('staticToken: only a bearer token and a plain cluster', () => {
  it('takes the token, server, CA and namespace of the current context', () => {
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64');
    expect(staticToken([base({ token: 't' }, { 'certificate-authority-data': ca })])).toEqual({
      context: 'x',
      namespace: 'shop',
      server: 'https://api.example:6443',
      token: 't',
      ca: Buffer.from(ca, 'base64'),
      insecure: false,
    });
  });

  it.each([
    // exec plugins (EKS, GKE, AKS, OIDC login helpers)
    { name: 'exec', user: { exec: { command: 'aws', apiVersion: 'client.authentication.k8s.io/v1' } } },
    // auth providers (OIDC, legacy gcp/azure)
    { name: 'auth-provider', user: { 'auth-provider': { name: 'oidc', config: {} } } },
    // client certificates
    { name: 'client certificate', user: { 'client-certificate-data': 'x', 'client-key-data': 'y' } },
    // a token file (refreshed on disk, as projected service account tokens are)
    { name: 'token file', user: { tokenFile: '/var/run/token' } },
    // a token and something else
    { name: 'token and impersonation', user: { token: 't', as: 'admin' } },
    // basic auth
    { name: 'username/password', user: { username: 'a', password: 'b' } },
  ])('not for $name: client-node handles it', ({ user }) => {
    expect(staticToken([base(user)])).toBeUndefined();
  });

  it.each([
    { name: 'proxy-url', cluster: { 'proxy-url': 'http://proxy:3128' } },
    { name: 'tls-server-name', cluster: { 'tls-server-name': 'api' } },
  ])('not for a cluster with $name', ({ cluster }) => {
    expect(staticToken([base({ token: 't' }, cluster)])).toBeUndefined();
  });

  it('not when --context names a context that does not exist (connect() then says so)', () => {
    expect(staticToken([base({ token: 't' })], 'nope')).toBeUndefined();
  });
});

describe('openApi against the simulator', () => {
  it('reads over HTTP with the token, without client-node (a whole process with it blocked)', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    const conn = await openApi({ kubeconfig: sim.kubeconfigPath, env: {} });
    expect(conn).not.toHaveProperty('kc');
    expect((await conn.request('GET', '/api/v1/nodes?limit=1')).status).toBe(200);
    const r = await triageWithoutClientNode(sim.kubeconfigPath);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toHaveProperty('claims');
  });

  it('verifies the server against the kubeconfig CA over HTTPS, and refuses another CA', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'), { tls: true });
    const conn = await openApi({ kubeconfig: sim.kubeconfigPath, env: {} });
    expect((await conn.request('GET', '/api/v1/nodes?limit=1')).status).toBe(200);
    // the same kubeconfig with the CA of another simulator: the certificate must not be accepted
    const { sim: other } = await testSim(scenarioPath('propagation-loss'), { tls: true });
    const wrong = parse(readFileSync(sim.kubeconfigPath, 'utf8')) as {
      clusters: { cluster: Record<string, unknown> }[];
    };
    const otherCa = (parse(readFileSync(other.kubeconfigPath, 'utf8')) as typeof wrong).clusters[0]!.cluster;
    wrong.clusters[0]!.cluster['certificate-authority-data'] = otherCa['certificate-authority-data'];
    const f = join(dir, 'wrong-ca');
    writeFileSync(f, stringify(wrong));
    const bad = await openApi({ kubeconfig: f, env: {} });
    const e = await bad.request('GET', '/api/v1/nodes').catch((x: unknown) => x);
    expect(isRwxError(e, 'KUBE_UNREACHABLE')).toBe(true);
  });

  it('an exec plugin goes through client-node (blocked here, so the process says so)', async () => {
    const f = join(dir, 'exec');
    writeFileSync(
      f,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:1' } }],
        users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'true' } } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    expect((await triageWithoutClientNode(f)).stderr).toMatch(/BLOCKED: client-node loaded/);
  });
});
