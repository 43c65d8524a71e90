// The chart stands on its own: its files/ are regular files (no links into deploy/), each the same bytes as its
// source in deploy/ (the one source of truth), and the chart directory copied alone to an empty place lints,
// renders and packages with every ci/ values file, and the packaged chart renders the same objects.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEPLOY } from '../deploy/manifests.js';
import { CHART, HELM, RELEASE, ciValuesFiles, helm } from './helm.js';

/** Each chart file copied from deploy/, by its source. */
const COPIES: Record<string, string> = {
  'clusterrole.yaml': 'base/clusterrole.yaml',
  'csi-node-plugin-propagation.yaml': 'policy/csi-node-plugin-propagation.yaml',
  'gate-rbac.yaml': 'gate/rbac.yaml',
  'redis.conf': 'components/redis/redis.conf',
  'valkey-start.sh': 'components/redis/start.sh',
};

describe('charts/rwx/files', () => {
  it("are regular files, each a copy of its deploy/ source (dashboard.json is the chart's own)", () => {
    const files = readdirSync(join(CHART, 'files')).sort();
    expect(files).toEqual([...Object.keys(COPIES), 'dashboard.json'].sort());
    for (const f of files) expect(lstatSync(join(CHART, 'files', f)).isSymbolicLink(), f).toBe(false);
    for (const [copy, source] of Object.entries(COPIES))
      expect(
        readFileSync(join(CHART, 'files', copy), 'utf8'),
        `files/${copy} differs from deploy/${source}: copy it again`,
      ).toBe(readFileSync(join(DEPLOY, source), 'utf8'));
  });
});

describe.runIf(HELM.run)(`the chart directory alone${HELM.note}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'rwx-chart-'));
  const alone = join(dir, 'rwx');
  cpSync(CHART, alone, { recursive: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const render = (chart: string, values: string) =>
    helm(['template', RELEASE.name, chart, '-n', RELEASE.namespace, '-f', join(alone, 'ci', values)]);

  it('packages, without its ci/ values or the icon source, and with every file it reads', () => {
    HELM.check();
    const r = helm(['package', alone, '--destination', dir]);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const tgz = join(dir, 'rwx-0.1.0.tgz');
    const listed = spawnSync('tar', ['tzf', tgz], { encoding: 'utf8' }).stdout.split('\n');
    expect(listed).toEqual(
      expect.arrayContaining(['rwx/files/valkey-start.sh', 'rwx/README.md', 'rwx/values.schema.json']),
    );
    expect(listed.filter((l) => l.startsWith('rwx/ci/') || l === 'rwx/icon.svg')).toEqual([]);
  });

  it.each(ciValuesFiles())('%s: lints (--strict) and renders from the copy and from the package, the same', (f) => {
    HELM.check();
    const lint = helm(['lint', '--strict', alone, '-n', RELEASE.namespace, '-f', join(alone, 'ci', f)]);
    expect(lint.stdout + lint.stderr).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    expect(lint.stdout + lint.stderr).not.toMatch(/symbolic link/);
    const fromDir = render(alone, f);
    expect(fromDir.status, fromDir.stderr).toBe(0);
    if (!existsSync(join(dir, 'rwx-0.1.0.tgz'))) helm(['package', alone, '--destination', dir]);
    const fromPackage = render(join(dir, 'rwx-0.1.0.tgz'), f);
    expect(fromPackage.status, fromPackage.stderr).toBe(0);
    // the generated Valkey password differs per render; everything else is the same
    const strip = (s: string) => s.replace(/REDIS_PASSWORD: \S+/g, 'REDIS_PASSWORD: x');
    expect(strip(fromPackage.stdout)).toBe(strip(fromDir.stdout));
  });
});
