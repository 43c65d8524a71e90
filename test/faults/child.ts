// `rwx serve` as a real child process (the compiled CLI), for faults that only a process can have: kill -9 in the
// middle of a Slack call, SIGTERM with a call in flight. Its JSON log lines are kept; /readyz tells when it is up.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { until } from '../support/until.js';
import { freePort } from '../support/free-port.js';

const BIN = join(import.meta.dirname, '../../bin/rwx.js');

/** A running `rwx serve` child. */
export interface ServeChild {
  process: ChildProcess;
  port: number;
  lines: string[];
  /** Resolves with the exit code (or the signal) once it ended. */
  exited: Promise<number | NodeJS.Signals>;
  /** GET on its ops port: the status, or 0 when nothing answers. */
  status(path: string): Promise<number>;
  /** GET on its ops port: the status and body, status 0 (body the error) when nothing answers. */
  get(path: string): Promise<{ status: number; body: string }>;
}

/** Starts `rwx serve --kubeconfig <kubeconfig>` with `env` (over a minimal PATH) and waits for /readyz 200. */
export async function startServeChild(
  kubeconfig: string,
  env: Record<string, string>,
  readyWithinMs = 30_000,
): Promise<ServeChild> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--kubeconfig', kubeconfig], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (c: Buffer): void =>
    void lines.push(
      ...c
        .toString()
        .split('\n')
        .filter((l) => l.trim() !== ''),
    );
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | NodeJS.Signals>((r) => child.once('exit', (code, sig) => r(code ?? sig!)));
  const get = async (path: string): Promise<{ status: number; body: string }> => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2500) });
      return { status: res.status, body: await res.text() };
    } catch (e) {
      return { status: 0, body: String(e) };
    }
  };
  const status = async (path: string): Promise<number> => (await get(path)).status;
  try {
    await until(async () => (await status('/readyz')) === 200, 'the child ready', readyWithinMs);
  } catch (e) {
    child.kill('SIGKILL');
    // What it said and what /readyz still names, so a slow or failed start can be told apart.
    throw new Error(`${(e as Error).message}: ${(await get('/readyz')).body}\n${lines.slice(-10).join('\n')}`);
  }
  return { process: child, port, lines, exited, status, get };
}
