// The CLI as a user installs it: `npm pack` of this repository, `npm install -g` of that tarball into a temporary
// prefix (production dependencies only: no simulator, no dev tool), and the installed `rwx` and `kubectl-rwx`
// commands run as processes against the Kubernetes API simulator. Needs `npm run build` first (npm test does it).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '@rwx/kube-sim';
import { rolloutObjects } from '../correlate/rollout-fixture.js';
import { writeSnapshot } from '../correlate/cli-run.js';
import { startGateSim } from '../gate/sim.js';
import { OWN } from '../policy/manifests.js';
import { scenarioPath, testSim } from '../support/sim.js';
import { toolGate } from '../tools.js';

const ROOT = join(import.meta.dirname, '../..');
const run = promisify(execFile);
const kubectl = toolGate('kubectl', ['version', '--client']);

/** Exit code, stdout and stderr of a command that may fail. */
async function exec(cmd: string, args: string[], env: NodeJS.ProcessEnv) {
  try {
    const r = await run(cmd, args, { env, timeout: 60_000, maxBuffer: 16 << 20 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

describe('the packed CLI installed with npm install -g', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rwx-pack-'));
  const prefix = join(dir, 'prefix');
  const bin = join(prefix, 'bin');
  // the installed commands first on PATH; HOME apart, so no kubeconfig of the machine is read
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir, KUBECONFIG: '' };
  const rwx = (...args: string[]) => exec(join(bin, 'rwx'), args, env);

  beforeAll(async () => {
    expect(existsSync(join(ROOT, 'dist/cli/main.js')), 'run `npm run build` first').toBe(true);
    // --ignore-scripts: dist is already built (prepare builds it on a plain `npm pack`)
    const packed = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
      cwd: ROOT,
    });
    const tgz = join(dir, packed.stdout.trim().split('\n').at(-1) ?? '');
    await run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tgz],
      { cwd: dir, env: { ...process.env, npm_config_engine_strict: 'false' }, timeout: 300_000 },
    );
  }, 360_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs both commands and production dependencies only', () => {
    expect(readdirSync(bin).sort()).toEqual(['kubectl-rwx', 'rwx']);
    const modules = join(prefix, 'lib/node_modules/rwx-incident-bot/node_modules');
    for (const dev of ['@rwx/kube-sim', 'vitest', 'typescript', 'eslint', 'prettier'])
      expect(existsSync(join(modules, dev)), dev).toBe(false);
    expect(existsSync(join(modules, '@kubernetes/client-node'))).toBe(true);
    const pkg = join(prefix, 'lib/node_modules/rwx-incident-bot');
    for (const f of ['LICENSE', 'README.md', 'CHANGELOG.md', 'dist/cli/main.js', 'scenarios'])
      expect(existsSync(join(pkg, f)), f).toBe(true);
    expect(existsSync(join(pkg, 'dist/bench')), 'benchmarks are not shipped').toBe(false);
  });

  it('rwx version, and the simulator-only commands say in one line that it is not shipped', async () => {
    const v = await rwx('version', '-o', 'json');
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ version: '0.1.0' });
    const demo = await rwx('demo');
    expect(demo.code).not.toBe(0);
    expect(demo.stderr.trim().split('\n')).toHaveLength(1);
  });

  describe('against the simulator', () => {
    let sim: Simulator;
    beforeAll(async () => {
      sim = (await testSim(scenarioPath('propagation-loss'))).sim;
    });

    it('rwx triage, scan, drain-check and diff read the live cluster', async () => {
      const kc = ['--kubeconfig', sim.kubeconfigPath];
      const triage = await rwx('triage', ...kc, '-o', 'json');
      expect(triage.code, triage.stderr).toBeLessThan(3);
      expect(JSON.parse(triage.stdout)).toHaveProperty('claims');
      const scan = await rwx('scan', ...kc);
      expect(scan.stdout).toContain('[FOLLOWS_ROLLOUT] rollout/kube-system/ebs-csi-node@2');
      const drain = await rwx('drain-check', 'node-19', ...kc);
      expect(drain.stdout).toMatch(/^BLOCK: node-19$/m);
      const diff = await rwx('diff', 'daemonset/ebs-csi-node', '-n', 'kube-system', ...kc);
      expect(diff.code, diff.stderr).toBe(0);
      expect(diff.stdout).toContain('mountPropagation Bidirectional -> none');
      // read-only: GETs, and the SelfSubjectAccessReviews triage's preflight asks
      expect(sim.audit.filter((a) => a.method !== 'GET' && !a.path.endsWith('/selfsubjectaccessreviews'))).toEqual([]);
    });
  });

  it('rwx scan and drain-check of a snapshot, and rwx policy check of a manifest', async () => {
    const snap = writeSnapshot(rolloutObjects());
    const scan = await rwx('scan', '--snapshot', snap, '--now', '2026-11-30T09:15:00Z');
    expect([scan.code, scan.stdout]).toEqual([2, expect.stringContaining('node-19  BLOCK  Do not drain')]);
    const policy = await rwx('policy', 'check', '-f', join(OWN.dir(), 'ebs-csi-node.yaml'));
    expect(policy.code, policy.stdout).toBe(0);
    expect(policy.stdout).toContain('1 CSI node plugin(s) checked in 1 file(s): 0 violation(s)');
  });

  it('rwx gate probes a node of the simulator', async () => {
    const { sim } = await startGateSim();
    // the simulator's kubelet moves the probe pods along as its time advances: a second of its time every 20 ms
    const tick = setInterval(() => void sim.advance(1000), 20);
    try {
      const g = await rwx(
        'gate',
        '--storage-class',
        'ebs-gp3',
        '--nodes',
        'gate-node-1',
        '--timeout',
        '30s',
        '--kubeconfig',
        sim.kubeconfigPath,
      );
      expect(g.code, g.stdout + g.stderr).toBe(0);
      expect(g.stdout).toMatch(/gate-node-1 +yes/);
    } finally {
      clearInterval(tick);
      await sim.stop();
    }
  });

  it('rwx agent reads a node once, and rwx node asks an agent', async () => {
    const a = await rwx(
      'agent',
      '--once',
      '-o',
      'json',
      '--kubelet-dir',
      join(dir, 'kubelet'),
      '--proc',
      join(dir, 'proc'),
    );
    expect(a.stdout + a.stderr).not.toMatch(/Cannot find (module|package)/);
    const n = await rwx('node', 'node-1', '--agent-url', 'http://127.0.0.1:1', '--timeout', '1s');
    expect(n.code).not.toBe(0);
    expect(n.stdout + n.stderr).not.toMatch(/Cannot find (module|package)/);
  });

  it(`kubectl-rwx is the kubectl plugin${kubectl.note}`, async () => {
    const direct = await exec(join(bin, 'kubectl-rwx'), ['version'], env);
    expect(direct.stdout).toContain('0.1.0');
    if (!kubectl.run) return;
    kubectl.check();
    const plugin = await exec('kubectl', ['rwx', 'version'], env);
    expect(plugin.code, plugin.stderr).toBe(0);
    expect(plugin.stdout).toContain('0.1.0');
  });
});
