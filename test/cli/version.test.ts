// `rwx --version` and `rwx version` print the same build info that rwx_build_info exports: the package.json
// version, and the commit from RWX_COMMIT, else the checkout's HEAD, else "unknown".
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildInfo } from '../../src/build-info.js';
import { main } from '../../src/cli/main.js';

const ROOT = join(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

async function rwx(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
    stdin: Readable.from([]),
    env,
  });
  return { code, out };
}

describe('rwx version', () => {
  it('--version, -V and version print the same line', async () => {
    const env = { RWX_COMMIT: '0123456789abcdef0123456789abcdef01234567' };
    const want = { code: 0, out: `rwx ${VERSION} (commit 0123456789abcdef0123456789abcdef01234567)\n` };
    expect(await rwx(['--version'], env)).toEqual(want);
    expect(await rwx(['-V'], env)).toEqual(want);
    expect(await rwx(['version'], env)).toEqual(want);
  });

  it('-o json', async () => {
    const r = await rwx(['version', '-o', 'json'], { RWX_COMMIT: 'abc1234' });
    expect(JSON.parse(r.out)).toEqual({ version: VERSION, commit: 'abc1234' });
  });

  it("from this checkout without RWX_COMMIT: git's HEAD", async () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect((await rwx(['--version'])).out).toBe(`rwx ${VERSION} (commit ${head})\n`);
  });

  it('outside a checkout, or with a malformed RWX_COMMIT: unknown', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rwx-build-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ version: '9.9.9' }));
    expect(buildInfo({}, dir)).toEqual({ version: '9.9.9', commit: 'unknown' });
    expect(buildInfo({ RWX_COMMIT: 'not a commit; rm -rf' }, dir)).toEqual({ version: '9.9.9', commit: 'unknown' });
    expect(buildInfo({}, join(dir, 'missing'))).toEqual({ version: 'unknown', commit: 'unknown' });
  });
});
