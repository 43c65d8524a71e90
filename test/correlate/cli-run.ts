// Runs the CLI in-process with captured output, and writes fixture snapshots as `kubectl get -o json` Lists.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';

/** Output and exit code of one in-process CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `rwx ...argv` in-process. */
export async function rwx(...argv: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: {
      write: (s: string) => {
        stdout += s;
      },
    },
    stderr: {
      write: (s: string) => {
        stderr += s;
      },
    },
    stdin: Readable.from([]),
    env: {},
  });
  return { code, stdout, stderr };
}

/** Writes objects as one `kind: List` JSON file in a fresh temp dir; returns its path. */
export function writeSnapshot(objects: readonly object[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'rwx-cli-'));
  const file = join(dir, 'snapshot.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  return file;
}
