// The Dockerfile, checked without a Docker engine: it lints clean (dockerfile-utils), follows the image rules
// (pinned slim Node 20, multi-stage, production dependencies only, numeric non-root user, exec-form entry point),
// every path it copies exists and is not ignored, and what it ships starts: the compiled CLI runs and imports
// only production dependencies.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
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

  it('builds in one stage and runs Node 20 slim, pinned, in another', () => {
    const froms = INS.filter((i) => i.op === 'FROM').map((i) => i.args);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f).toMatch(/^node:20\.\d+-bookworm-slim( AS \w+)?$/);
    const minor = Number(/^node:20\.(\d+)/.exec(froms[last] ?? '')?.[1]);
    expect(minor).toBeGreaterThanOrEqual(19); // package.json engines: node >= 20.19
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
    expect(JSON.parse(final.find((i) => i.op === 'ENTRYPOINT')?.args ?? 'null')).toEqual(['node', 'bin/rwx.js']);
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

describe('what the image ships', () => {
  const dist = join(ROOT, 'dist');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

  it('has a build (npm test runs `npm run build` first)', () => {
    expect(existsSync(join(dist, 'cli/main.js')), 'dist/cli/main.js: run npm run build').toBe(true);
  });

  it('starts: the entry point with CMD answers --help, `--help` prints usage and `config check` validates', () => {
    const help = spawnSync(process.execPath, ['bin/rwx.js', '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^rwx: /);
    // ENTRYPOINT + CMD + --help: the image's own start command gets as far as parsing its flags
    const serve = spawnSync(process.execPath, ['bin/rwx.js', 'serve', '--help'], { cwd: ROOT, encoding: 'utf8' });
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
    // What the image ships: the build stage compiles src/ only (tsconfig.build.json), so dist/bench and the like
    // that a local `npm run bench` leaves behind are not part of it.
    const shipped = sourceFilesWithExt(join(ROOT, 'src'), '.ts')
      .filter((f) => !f.endsWith('.d.ts'))
      .map((f) => join(dist, f.slice(join(ROOT, 'src').length + 1).replace(/\.ts$/, '.js')));
    for (const f of shipped) {
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
