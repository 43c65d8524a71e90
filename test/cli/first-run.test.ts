// What a newcomer meets on a first run, as whole processes of the built CLI (bin/rwx.js). Each ends the process
// by itself with exit 1 and one line on stderr that names the fix; never a stack trace, never a process left hanging
// (which only a child process can show: the demo with an unreadable scenario hung after its error).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../serve/harness.js';

const BIN = fileURLToPath(new URL('../../bin/rwx.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rwx-first-run-'));
/** Long enough for a start-up on a loaded machine; a process still running then has hung. */
const HUNG_MS = 30_000;

interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
  hung: boolean;
}

/** Runs bin/rwx.js with only `env` (and PATH, a HOME without a kubeconfig); kills it after HUNG_MS. */
function rwx(argv: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, LOG_LEVEL: 'silent', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, HUNG_MS);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout, hung });
    }),
  );
}

/** The shape every first-run error has: the process ended by itself, exit 1, one line on stderr matching `line`. */
function expectOneLine(r: Run, line: RegExp): void {
  expect({ hung: r.hung, code: r.code, stdout: r.stdout }).toEqual({ hung: false, code: 1, stdout: '' });
  expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rwx demo, first run', () => {
  it('no Redis answering: names the URL and how to start one', async () => {
    expectOneLine(
      await rwx(['demo'], { REDIS_URL: 'redis://127.0.0.1:1' }),
      /^rwx demo: no Redis answers at .*start one/,
    );
  });

  it('a scenario file that cannot be read: one line, and the process ends (it hung with Redis open)', async () => {
    const r = await rwx(['demo', '--scenario', join(dir, 'no-such-scenario.yaml')], { REDIS_URL });
    expectOneLine(r, /^rwx demo: cannot read scenario .*no-such-scenario\.yaml/);
  });
});
