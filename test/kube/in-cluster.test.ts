// openApi() in a pod with no kubeconfig: the service account's token, CA and namespace from its files, the server
// from KUBERNETES_SERVICE_HOST/_PORT, without client-node. Against the simulator over HTTPS (its certificate as
// the pod's ca.crt): lists and watches answer, a rotated token is used from the next request on, and a pod with
// no token mounted is told so.
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isRwxError } from '../../src/errors.js';
import { openApi } from '../../src/kube/connect.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import { scenarioPath, testSim } from '../support/sim.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A service account directory as a pod gets it, for `sim`'s CA, with `token`. */
function serviceAccount(kubeconfigPath: string, token: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'rwx-sa-'));
  dirs.push(dir);
  const doc = parse(readFileSync(kubeconfigPath, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
  };
  const ca = Buffer.from(doc.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
  writeFileSync(join(dir, 'ca.crt'), ca);
  writeFileSync(join(dir, 'token'), `${token}\n`);
  writeFileSync(join(dir, 'namespace'), 'rwx\n');
  return dir;
}

const inPod = (url: string) => {
  const { hostname, port } = new URL(url);
  return { PATH: process.env.PATH, KUBERNETES_SERVICE_HOST: hostname, KUBERNETES_SERVICE_PORT: port };
};

describe('openApi in a pod', () => {
  it('lists and watches with the service account, and takes a rotated token from its file', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'), { tls: true });
    const dir = serviceAccount(sim.kubeconfigPath, sim.token);
    const conn = await openApi({ env: inPod(sim.url), serviceAccountDir: dir });
    expect(conn).not.toHaveProperty('kc'); // not client-node's
    expect({ server: conn.server, namespace: conn.namespace }).toEqual({ server: sim.url, namespace: 'rwx' });
    expect((await conn.request('GET', '/api/v1/nodes?limit=1')).status).toBe(200);

    const source = new KubeClusterSource(conn);
    const page = await source.list('nodes', { limit: 500 });
    expect(page.items.length).toBeGreaterThan(0);
    const opened = await new Promise<boolean>((resolve, reject) => {
      const w = source.watch(
        'nodes',
        { resourceVersion: page.resourceVersion },
        {
          onOpen: () => {
            w.abort();
            resolve(true);
          },
          onEvent: () => undefined,
          onDone: reject,
        },
      );
    });
    expect(opened).toBe(true);

    // The kubelet rotates the token: the file holds a new one, and the next request carries it.
    const rotated = await sim.addClient('rotated');
    writeFileSync(join(dir, 'token'), rotated.token);
    const t = new Date(Date.now() + 5_000);
    utimesSync(join(dir, 'token'), t, t);
    expect((await conn.request('GET', '/api/v1/nodes?limit=1')).status).toBe(200);
    expect(sim.audit.at(-1)?.client).toBe('rotated');
  });

  it('says where the token should be when none is mounted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rwx-sa-'));
    dirs.push(dir);
    const err = await openApi({ env: inPod('https://10.0.0.1:443'), serviceAccountDir: dir }).catch((e: unknown) => e);
    expect(isRwxError(err) && err.code).toBe('CONFIG');
    expect(String((err as Error).message)).toContain(`cannot read ${join(dir, 'token')}`);
  });

  it('names a KUBERNETES_SERVICE_PORT that is not a port', async () => {
    const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: 'tcp://10.0.0.1:443' };
    const err = await openApi({ env, serviceAccountDir: tmpdir() }).catch((e: unknown) => e);
    expect(isRwxError(err) && err.code).toBe('CONFIG');
    expect(String((err as Error).message)).toBe(
      'in-cluster: KUBERNETES_SERVICE_PORT "tcp://10.0.0.1:443" is not a port number',
    );
  });
});
