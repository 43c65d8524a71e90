// Which build is running: the version from package.json and the git commit it was built from, for `rwx version`
// and the rwx_build_info metric. The commit is, first found: the RWX_COMMIT environment variable (the Dockerfile
// bakes it in from the build argument of the same name), else `git rev-parse HEAD` when running from a git
// checkout, else "unknown".
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The running build. */
export interface BuildInfo {
  /** package.json version, e.g. "0.1.0". */
  version: string;
  /** Full commit id, or "unknown". */
  commit: string;
}

/** The package root: this file is src/build-info.ts or dist/build-info.js, one level below it. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const COMMIT = /^[0-9a-f]{7,64}$/;

/** Reads the build info once per call (cheap: one small file, at most one `git` process). */
export function buildInfo(env: NodeJS.ProcessEnv = process.env, root: string = ROOT): BuildInfo {
  return { version: packageVersion(root), commit: commitOf(env, root) };
}

/** "rwx 0.1.0 (commit 0123abcd...)": the one line `rwx version` prints. */
export function versionLine(info: BuildInfo): string {
  return `rwx ${info.version} (commit ${info.commit})`;
}

function packageVersion(root: string): string {
  try {
    const v = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' && v !== '' ? v : 'unknown';
  } catch {
    return 'unknown';
  }
}

function commitOf(env: NodeJS.ProcessEnv, root: string): string {
  const given = env.RWX_COMMIT?.trim().toLowerCase();
  if (given && COMMIT.test(given)) return given;
  // Only the checkout this package lives in: a `git` above an installed package would name the wrong project.
  if (!existsSync(join(root, '.git'))) return 'unknown';
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    }).trim();
    return COMMIT.test(out) ? out : 'unknown';
  } catch {
    return 'unknown';
  }
}
