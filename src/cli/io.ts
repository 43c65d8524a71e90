// What a CLI command may touch: its arguments, standard streams and environment. Passed in so tests can run
// commands in-process and read what they printed.
import type { Clock } from '../domain/clock.js';

/** Streams and environment of one command run. */
export interface CliIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  /** Time source; tests inject a ManualClock so output about ages is deterministic. Default: the system clock. */
  clock?: Clock;
  /** After how long without an answer a command says it is waiting for the API server (default 3 s). */
  waitNoticeMs?: number;
}

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/** A command: parses its own argv, returns the exit code. Errors it throws are printed as one line by main. */
export type Command = (argv: string[], io: CliIo) => Promise<number>;
