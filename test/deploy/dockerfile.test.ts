// The Dockerfile, checked without a Docker engine: it lints clean (dockerfile-utils), follows the image rules
// (slim Node 24 LTS pinned to an exact version, multi-stage, production dependencies only, numeric non-root user, exec-form entry point),
// every path it copies exists and is not ignored, and what it ships starts: the compiled CLI runs and imports
// only production dependencies. The Kubernetes API simulator is a test tool the image does not contain.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { sourceFilesWithExt } from './dist-files.js';
import { ROOT } from './manifests.js';

const TEXT = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const IGNORED = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

interface Instruction {
  op: string;
  args: string;
  stage: number;
}

/** Instructions with line continuations joined, each tagged with its stage index. */
function instructions(text: string): Instruction[] {
  let stage = -1;
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op = '', ...rest] = l.split(/\s+/);
      if (op.toUpperCase() === 'FROM') stage++;
      return { op: op.toUpperCase(), args: rest.join(' '), stage };
    });
}
const INS = instructions(TEXT);
const last = Math.max(...INS.map((i) => i.stage));
const final = INS.filter((i) => i.stage === last);

describe('Dockerfile', () => {
  it('lints clean with dockerfile-utils', () => {
    expect(validate(TEXT).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('builds in one stage and runs Node 24 LTS slim, pinned to an exact version, in another', () => {
    const froms = INS.filter((i) => i.op === 'FROM').map((i) => i.args);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f).toMatch(/^node:24\.\d+\.\d+-bookworm-slim( AS \w+)?$/);
    // package.json engines: node >= 24.11 (the first 24.x LTS); both stages run the same version
    const versions = new Set(froms.map((f) => /^node:(24\.\d+\.\d+)/.exec(f)?.[1]));
    expect(versions.size).toBe(1);
    const [minor] = [...versions].map((v) => Number(v?.split('.')[1]));
    expect(minor).toBeGreaterThanOrEqual(11);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node).toBe('>=24.11');
  });

  it('installs only production dependencies in the runtime stage, without install scripts', () => {
    const runs = final
      .filter((i) => i.op === 'RUN')
      .map((i) => i.args)
      .join('\n');
    expect(runs).toMatch(/npm ci --omit=dev --ignore-scripts/);
    expect(runs).not.toMatch(/npm (i|install)\b/);
  });

  it('runs as a numeric non-root user with an exec-form entry point', () => {
    const user = final.filter((i) => i.op === 'USER').at(-1)?.args ?? '';
    expect(user).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
    // the same uid as the Deployment's runAsUser
    expect(readFileSync(join(ROOT, 'deploy/base/deployment.yaml'), 'utf8')).toContain(
      `runAsUser: ${user.split(':')[0]}`,
    );
    expect(JSON.parse(final.find((i) => i.op === 'ENTRYPOINT')?.args ?? 'null')).toEqual([
      'node',
      '--max-semi-space-size=64',
      'bin/rwx.js',
    ]);
    expect(JSON.parse(final.find((i) => i.op === 'CMD')?.args ?? 'null')).toEqual(['serve']);
  });

  it('copies only paths that exist and that .dockerignore keeps', () => {
    const sources = INS.filter((i) => i.op === 'COPY' && !i.args.startsWith('--from')).flatMap((i) =>
      i.args.split(/\s+/).slice(0, -1),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) {
      expect(existsSync(join(ROOT, s)), `${s} exists`).toBe(true);
      expect(
        IGNORED.filter((p) => p === s || s.startsWith(`${p}/`)),
        `${s} is not ignored`,
      ).toEqual([]);
    }
    // what the runtime needs besides the build output
    expect(sources).toEqual(expect.arrayContaining(['bin', 'scenarios', 'package.json', 'package-lock.json']));
  });
});

/** What the image ships of dist/: the build stage compiles src/ only (tsconfig.build.json). */
function shippedFiles(dist: string): string[] {
  return sourceFilesWithExt(join(ROOT, 'src'), '.ts')
    .filter((f) => !f.endsWith('.d.ts'))
    .map((f) => join(dist, f.slice(join(ROOT, 'src').length + 1).replace(/\.ts$/, '.js')));
}

describe('what the image ships', () => {
  const dist = join(ROOT, 'dist');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
    files: string[];
    workspaces: string[];
  };

  it('has a build (npm test runs `npm run build` first)', () => {
    expect(existsSync(join(dist, 'cli/main.js')), 'dist/cli/main.js: run npm run build').toBe(true);
  });

  it('starts: the entry point with CMD answers --help, `--help` prints usage and `config check` validates', () => {
    const help = spawnSync(process.execPath, ['bin/rwx.js', '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^rwx: /);
    // ENTRYPOINT + CMD + --help: the image's own start command gets as far as parsing its flags
    const entry = JSON.parse(/^ENTRYPOINT (.*)$/m.exec(TEXT)?.[1] ?? '[]') as string[];
    const serve = spawnSync(process.execPath, [...entry.slice(1), 'serve', '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(serve.status, serve.stderr).toBe(0);
    expect(serve.stdout).toMatch(/^Usage: rwx serve/);
    const env = {
      PATH: process.env.PATH ?? '',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      SLACK_CHANNEL: 'C0123ABCD',
    };
    const out = execFileSync(process.execPath, ['bin/rwx.js', 'config', 'check'], { cwd: ROOT, encoding: 'utf8', env });
    expect(out).toContain('slackBotToken: xoxb-****');
  });

  it('compiled code imports only production dependencies and Node built-ins', () => {
    const allowed = new Set([...Object.keys(pkg.dependencies), ...builtinModules]);
    const bad: string[] = [];
    const seen = new Set<string>();
    // dist/bench and the like that a local `npm run bench` leaves behind are not part of the image.
    for (const f of shippedFiles(dist)) {
      if (!existsSync(f)) {
        bad.push(`${f.slice(ROOT.length + 1)}: not built (run npm run build)`);
        continue;
      }
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(
        /(?:^|\s)(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm,
      )) {
        const spec = m[1] ?? m[2] ?? m[3] ?? '';
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec);
        seen.add(name);
        if (!allowed.has(name)) bad.push(`${f.slice(ROOT.length + 1)}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
    expect([...seen]).toEqual(expect.arrayContaining(['zod', 'yaml'])); // the scan reads real imports
  });
});

describe('the simulator is a test tool, not in the image', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
    files: string[];
  };

  it('is a private workspace package the bot only has as a devDependency, outside src/ and the npm files', () => {
    const sim = JSON.parse(readFileSync(join(ROOT, 'packages/kube-sim/package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(sim).toMatchObject({ name: '@rwx/kube-sim', private: true });
    expect(pkg.devDependencies['@rwx/kube-sim']).toBeDefined();
    expect(pkg.dependencies['@rwx/kube-sim']).toBeUndefined();
    expect(existsSync(join(ROOT, 'src/sim'))).toBe(false);
    expect(pkg.files.filter((f) => f.startsWith('packages'))).toEqual([]);
    const packed = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const paths = (JSON.parse(packed) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => p.startsWith('packages/') || p.includes('kube-sim'))).toEqual([]);
  });

  it('is never copied into the image and the build context leaves it out', () => {
    expect(IGNORED).toContain('packages');
    const copies = INS.filter((i) => i.op === 'COPY').map((i) => i.args);
    expect(copies.filter((a) => /packages|kube-sim/.test(a))).toEqual([]);
    // the build stage compiles the bot alone (the workspace is not there to compile)
    expect(INS.filter((i) => i.op === 'RUN').map((i) => i.args)).toContain('npm run build:bot');
  });

  it('only the simulator loader names it, and only in a dynamic import', () => {
    const naming = sourceFilesWithExt(join(ROOT, 'src'), '.ts').filter((f) =>
      readFileSync(f, 'utf8').includes('@rwx/kube-sim'),
    );
    expect(naming.map((f) => f.slice(ROOT.length + 1))).toEqual(['src/serve/simulator.ts']);
    expect(readFileSync(join(ROOT, 'src/serve/simulator.ts'), 'utf8')).not.toMatch(/^import .*kube-sim/m);
  });

  it('without it, `rwx demo` and `rwx sim` say so in one line and the rest of the CLI works', () => {
    // The image's layout: bin, the compiled src/, scenarios, and node_modules without the workspace link.
    const image = mkdtempSync(join(tmpdir(), 'rwx-image-'));
    try {
      cpSync(join(ROOT, 'bin'), join(image, 'bin'), { recursive: true });
      cpSync(join(ROOT, 'scenarios'), join(image, 'scenarios'), { recursive: true });
      cpSync(join(ROOT, 'package.json'), join(image, 'package.json'));
      for (const f of shippedFiles(join(ROOT, 'dist'))) {
        const to = join(image, 'dist', f.slice(join(ROOT, 'dist').length + 1));
        mkdirSync(dirname(to), { recursive: true });
        cpSync(f, to);
      }
      mkdirSync(join(image, 'node_modules'));
      for (const name of readdirSync(join(ROOT, 'node_modules'))) {
        if (name === '@rwx' || name.startsWith('.')) continue;
        symlinkSync(join(ROOT, 'node_modules', name), join(image, 'node_modules', name));
      }
      const rwx = (...args: string[]) =>
        spawnSync(process.execPath, ['bin/rwx.js', ...args], { cwd: image, encoding: 'utf8', env: { PATH: '' } });
      for (const args of [['demo'], ['sim', 'scenarios/node-fault.yaml']]) {
        const r = rwx(...args);
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).toMatch(
          /^rwx (demo|sim): the Kubernetes API simulator is a test tool and is not shipped in this image/,
        );
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
      }
      expect(rwx('serve', '--help').status).toBe(0);
    } finally {
      rmSync(image, { recursive: true, force: true });
    }
  });
});
