// Runs the CLI in-process through main() with captured output: the test's own environment, clock and waiting
// notice in `io` (HOME defaults to a directory with no kubeconfig, so nothing of the machine's is read).
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

/** Exit code and what one run printed. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `rwx ...argv` in-process; `io` overrides env (default { HOME: tmpdir() }), clock, waitNoticeMs. */
export async function runRwx(
  argv: string[],
  io: Partial<Pick<CliIo, 'env' | 'clock' | 'waitNoticeMs'>> = {},
): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([]),
    env: { HOME: tmpdir() },
    ...io,
  });
  return { code, stdout, stderr };
}
