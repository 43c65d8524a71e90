// Startup: the commands that read a snapshot never load @kubernetes/client-node (about half a second of module
// loading), nor zod (the node agent's report schema: 95 modules), nor, for a JSON snapshot, the YAML library; the
// ones that connect still load client-node. Whole processes of the built CLI (bin/rwx.js) run with a module
// hook that makes importing client-node fail, so a stray static import anywhere on the path shows as a failure.
// (The time itself is measured by `npm run bench`, bench/cli.ts, not here.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { KIND_KEYS } from '../../src/domain/kinds.js';
import { rolloutObjects } from '../correlate/rollout-fixture.js';
import { baseCluster, healthyClaim } from '../triage/fixtures.js';

const BIN = fileURLToPath(new URL('../../bin/rwx.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rwx-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hooks = join(dir, 'hooks.mjs');
writeFileSync(
  hooks,
  `const blocked = (process.env.RWX_TEST_BLOCK ?? '').split(',');
export async function resolve(specifier, context, next) {
  if (blocked.includes(specifier)) throw new Error('BLOCKED: ' + specifier + ' was imported');
  return next(specifier, context);
}\n`,
);
const register = join(dir, 'register.mjs');
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);

function write(name: string, objects: readonly object[]): string {
  const f = join(dir, name);
  writeFileSync(f, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  return f;
}

const oneClaim = (() => {
  const s = baseCluster();
  healthyClaim(s, 'shop', 'data');
  return write(
    'one-claim.json',
    KIND_KEYS.flatMap((k) => s[k] as object[]),
  );
})();
const rolloutFile = write('rollout.json', rolloutObjects());

/** Runs bin/rwx.js with client-node and zod (and, for a JSON snapshot, the YAML library) blocked. */
function rwx(...argv: string[]) {
  const json = argv.some((a) => a.endsWith('.json'));
  return spawnSync(process.execPath, ['--import', register, BIN, ...argv], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: dir, RWX_TEST_BLOCK: `@kubernetes/client-node,zod${json ? ',yaml' : ''}` },
    timeout: 60_000,
  });
}

describe('commands on a snapshot do not load @kubernetes/client-node or zod, nor the YAML library for JSON', () => {
  it.each([
    ['triage', '--snapshot', oneClaim],
    ['triage', '--snapshot', oneClaim, '-o', 'json'],
    ['scan', '--snapshot', rolloutFile],
    ['drain-check', 'node-19', '--snapshot', rolloutFile],
    ['diff', 'daemonset/ebs-csi-node', '--snapshot', rolloutFile],
    ['completion', 'bash'],
    ['--version'],
  ])('rwx %s', (...argv) => {
    const r = rwx(...argv);
    expect(r.stderr).not.toMatch(/BLOCKED/);
    expect([0, 2, 3, 4]).toContain(r.status);
  });

  it('while a command that connects does (so the hook really blocks it)', () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    const r = rwx('triage', '--kubeconfig', kubeconfig);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/BLOCKED: @kubernetes\/client-node was imported/);
  });

  it('and a YAML snapshot loads the YAML library', () => {
    const f = join(dir, 'snap.yaml');
    writeFileSync(f, 'kind: Node\nmetadata:\n  name: n\n');
    const r = spawnSync(process.execPath, ['--import', register, BIN, 'triage', '--snapshot', f], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, RWX_TEST_BLOCK: 'yaml' },
    });
    expect(r.stderr).toMatch(/BLOCKED: yaml was imported/);
  });
});
