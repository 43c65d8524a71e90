// What a kubectl user meets when the server URL is wrong or the API does not answer: a server that is not a
// Kubernetes API server (a proxy answering 404 to every path, or a login page) is said in one line, exit 1, decided
// by discovery as client-go decides it (GET /api, discovery_client.go ServerGroups); a blackholed API is given up
// after --request-timeout (kubectl's syntax, clientcmd ParseTimeout), and a slow one is named on stderr while the
// command waits. Over real HTTP: small stand-in servers and the simulator with its blackhole and latency faults.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isRwxError } from '../../src/errors.js';
import { openApi } from '../../src/kube/connect.js';
import { readCluster } from '../../src/kube/read.js';
import { KIND_KEYS } from '../../src/domain/kinds.js';
import { scenarioPath, testSim } from '../support/sim.js';
import { runRwx } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'rwx-api-edges-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A stand-in server on a free port answering every request with `answer`; returns its kubeconfig (path `base`). */
async function standIn(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void, base = '/k8s') {
  const server = http.createServer(answer);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}${base}`;
  const file = join(dir, `kubeconfig-${servers.length}`);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: url } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'prod', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'prod',
    }),
  );
  return { url, kubeconfig: file };
}

const rwx = (argv: string[], opts: { waitNoticeMs?: number } = {}) => runRwx(argv, { env: { HOME: dir }, ...opts });

const notFound = (_: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end('404 page not found\n');
};
const loginPage = (_: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end('<html><body>Sign in</body></html>');
};

describe('a server that is not a Kubernetes API server', () => {
  it.each([
    // a wrong path behind a proxy: 404 to every list, and to discovery
    ['404 to everything', notFound, 'GET /api answered 404'],
    // a proxy's sign-in page: 200, but not a list, and not the API versions
    ['a login page', loginPage, 'GET /api answered 200 without the API versions'],
  ])('%s: one line naming the URL, exit 1, for every read command', async (_, answer, why) => {
    const { url, kubeconfig } = await standIn(answer);
    const line = `${url} is not a Kubernetes API server (${why}): check the server URL of context "prod" in the kubeconfig\n`;
    for (const argv of [
      ['scan'],
      ['triage'],
      ['drain-check', 'node-1'],
      ['diff', 'ds/x'],
      ['policy', 'check', '--cluster'],
      ['node', 'node-1'],
      ['capture'],
    ]) {
      const r = await rwx([...argv, '--kubeconfig', kubeconfig]);
      expect([argv, r.code, r.stdout, r.stderr]).toEqual([argv, 1, '', `rwx ${argv[0]}: ${line}`]);
    }
  });

  it('a real API server that does not serve some kinds still reads: the kinds are unreadable, not the server', async () => {
    const { kubeconfig } = await standIn((req, res) => {
      if (req.url !== '/k8s/api') return notFound(req, res);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'APIVersions', versions: ['v1'] }));
    });
    const snap = await readCluster(await openApi({ kubeconfig, env: {} }), { kinds: KIND_KEYS });
    expect(snap.unreadable.map((u) => u.reason)).toEqual(KIND_KEYS.map(() => 'not served by this API server'));
  });

  it('the simulator (a Kubernetes API) is read as one', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    const r = await rwx(['scan', '--kubeconfig', sim.kubeconfigPath]);
    expect(r.stderr).toBe('');
    expect([r.code === 1, r.stdout.length > 0]).toEqual([false, true]); // read: incidents (2) or none (0)
  });
});

describe('--request-timeout and the waiting notice', () => {
  it('a blackholed API: says what it waits for, then gives up after --request-timeout, exit 1', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    sim.faults.down('blackhole');
    const url = sim.url.replace(/\/+$/, '');
    const started = Date.now();
    const r = await rwx(['scan', '--kubeconfig', sim.kubeconfigPath, '--request-timeout', '400ms'], {
      waitNoticeMs: 50,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `rwx scan: waiting for the API server at ${url}: no answer after 50ms; giving up after 400ms (--request-timeout)\n` +
        `rwx scan: no answer from the API server at ${url} within 400ms (--request-timeout)\n`,
    );
  });

  it('a slow API without the flag: the notice once for the whole read (not per request), and the answer', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    sim.faults.latency(300);
    const url = sim.url.replace(/\/+$/, '');
    const r = await rwx(['triage', '--kubeconfig', sim.kubeconfigPath], { waitNoticeMs: 50 });
    expect(r.stderr).toBe(
      `rwx triage: waiting for the API server at ${url}: no answer after 50ms; giving up after 60s of silence (--request-timeout sets the limit)\n`,
    );
    expect(r.stdout).toContain('RWX claims examined');
  });

  it('"0" is no timeout, as in kubectl: a slow answer is waited for', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    sim.faults.latency(300);
    const r = await rwx(['scan', '--kubeconfig', sim.kubeconfigPath, '--request-timeout', '0'], { waitNoticeMs: 50 });
    expect(r.stderr).toContain('no --request-timeout: waiting until it answers');
    expect([r.code === 1, r.stdout.length > 0]).toEqual([false, true]);
  });

  it('a bare number is seconds, as kubectl reads it; a bad value is a usage error', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    const r = await rwx(['scan', '--kubeconfig', sim.kubeconfigPath, '--request-timeout', '30']);
    expect([r.code === 1, r.stderr]).toEqual([false, '']);
    const bad = await rwx(['scan', '--request-timeout', '5 sec']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--request-timeout: "5 sec" is not a timeout');
  });

  it('--request-timeout with --snapshot is refused (a file has no server to wait for)', async () => {
    const snap = join(dir, 'empty.json');
    writeFileSync(snap, '{"apiVersion":"v1","kind":"List","items":[]}');
    const r = await rwx(['scan', '--snapshot', snap, '--request-timeout', '5s']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot be combined with --kubeconfig, --context or --request-timeout');
  });
});

it('the read error names what is not an API server only once: readCluster throws CONFIG', async () => {
  const { kubeconfig } = await standIn(notFound);
  const err = await readCluster(await openApi({ kubeconfig, env: {} }), { kinds: ['pods', 'nodes'] }).catch((e) => e);
  expect(isRwxError(err, 'CONFIG')).toBe(true);
  expect(readFileSync(kubeconfig, 'utf8')).toContain('"prod"');
});
