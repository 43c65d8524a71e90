// Proof of fidelity: the real kubectl binary lists, gets, filters and watches through the simulator.
/* eslint-disable @typescript-eslint/no-explicit-any -- API responses here are untyped JSON, read field by field */
import { describe, expect, test } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { testSim } from '../support/sim.js';
import { until } from '../support/until.js';
import { smallScenario } from './fixtures.js';

const run = promisify(execFile);

async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 20_000 });
  return stdout;
}

describe('kubectl through the simulator', () => {
  test('get pods -A -o json lists every pod with kind and apiVersion filled in', async () => {
    const { sim } = await testSim(smallScenario());
    const out = JSON.parse(await kubectl(sim.kubeconfigPath, 'get', 'pods', '-A', '-o', 'json'));
    expect(out.items.map((p: any) => `${p.metadata.namespace}/${p.metadata.name}`).sort()).toEqual([
      'jobs/batch-0',
      'shop/db-0',
      'shop/web-0',
      'shop/web-1',
      'shop/web-2',
    ]);
    expect(out.items[0].kind).toBe('Pod');
    expect(sim.audit.some((a) => a.verb === 'list' && a.path === '/api/v1/pods')).toBe(true);
  });

  test('get one pod by name, and a cluster-scoped kind', async () => {
    const { sim } = await testSim(smallScenario());
    const pod = JSON.parse(await kubectl(sim.kubeconfigPath, 'get', 'pod', 'db-0', '-n', 'shop', '-o', 'json'));
    expect(pod.status.containerStatuses[0].state.waiting.reason).toBe('ContainerCreating');
    const nodes = await kubectl(sim.kubeconfigPath, 'get', 'nodes', '-o', 'name');
    expect(nodes.trim().split('\n')).toEqual(['node/node-1', 'node/node-2', 'node/node-3']);
  });

  test('--field-selector spec.nodeName filters on the server', async () => {
    const { sim } = await testSim(smallScenario());
    const out = await kubectl(
      sim.kubeconfigPath,
      'get',
      'pods',
      '-A',
      '--field-selector',
      'spec.nodeName=node-1',
      '-o',
      'name',
    );
    expect(out.trim().split('\n').sort()).toEqual(['pod/db-0', 'pod/web-0'].sort().map((x) => x));
    expect(sim.audit.find((a) => a.query.fieldSelector)?.query.fieldSelector).toBe('spec.nodeName=node-1');
  });

  test('-l label selector and the default table output (server-side printing)', async () => {
    const { sim } = await testSim(smallScenario());
    const out = await kubectl(sim.kubeconfigPath, 'get', 'pods', '-n', 'shop', '-l', 'app in (db)', '-o', 'wide');
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE/);
    // The API server's age format (HumanDuration): minutes up to three hours, so a 2-hour-old pod is "120m".
    expect(lines[1]).toMatch(/^db-0\s+0\/1\s+ContainerCreating\s+0\s+120m\s+<none>\s+node-1/);
    expect(lines).toHaveLength(2);
  });

  test('get pods --watch sees a timeline change', async () => {
    const { sim } = await testSim(smallScenario());
    const child = spawn('kubectl', [
      '--kubeconfig',
      sim.kubeconfigPath,
      'get',
      'pods',
      '-n',
      'shop',
      '--watch',
      '-o',
      'custom-columns=NAME:.metadata.name,PHASE:.status.phase',
    ]);
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    const seen = (re: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const t = setInterval(() => {
          if (re.test(out)) {
            clearInterval(t);
            resolve();
          }
        }, 20);
        child.once('exit', () => {
          clearInterval(t);
          reject(new Error(`kubectl exited; output:\n${out}`));
        });
      });
    try {
      await seen(/db-0\s+Pending/);
      // kubectl's watch request has reached the simulator, so the change is not folded into its list
      await until(() => sim.audit.some((a) => a.verb === 'watch'), "kubectl's watch request");
      await sim.advance(60_000);
      await seen(/db-0\s+Running/);
    } finally {
      child.kill();
    }
  });

  test('TLS mode: kubectl sends the bearer token, a wrong token gets 401, SSAR answers can-i', async () => {
    const { sim } = await testSim(
      { ...smallScenario(), permissions: { deny: [{ resource: 'secrets' }] } },
      { tls: true },
    );
    expect(sim.url).toMatch(/^https:/);
    const out = await kubectl(sim.kubeconfigPath, 'get', 'pods', '-n', 'shop', '-o', 'name');
    expect(out).toContain('pod/web-0');
    expect(await kubectl(sim.kubeconfigPath, 'auth', 'can-i', 'list', 'pods', '-A')).toBe('yes\n');
    await expect(kubectl(sim.kubeconfigPath, 'auth', 'can-i', 'get', 'secrets', '-A')).rejects.toMatchObject({
      stdout: 'no\n',
    });
    await expect(kubectl(sim.kubeconfigPath, '--token', 'wrong', 'get', 'pods')).rejects.toMatchObject({
      stderr: expect.stringMatching(/Unauthorized|provide credentials/),
    });
  });
});
