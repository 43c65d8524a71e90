// A redis-server of the test's own on a free port, to stop, kill and restart (the shared one at 6379 is never
// touched): without persistence it comes back empty, with appendonly it comes back with everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { toolGate } from '../tools.js';
import { until } from '../support/until.js';
import { freePort } from '../support/free-port.js';

/** Whether redis-server runs here (required by .ci/run). */
export const redisServerTool = toolGate('redis-server', ['--version']);

/** A redis-server on its own port and directory. */
export interface OwnRedis {
  url: string;
  /** Starts it (again) on the same port; waits until it answers PING. */
  start(): Promise<void>;
  /** Stops it with `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * A stopped redis-server; `persistent` keeps an append-only file in its directory across restarts; `more`: further
 * redis-server arguments (a memory policy).
 */
export async function ownRedis(persistent = false, more: readonly string[] = []): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rwx-redis-'));
  let proc: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...more];
  return {
    url,
    async start() {
      proc = spawn('redis-server', [...args, '--appendonly', persistent ? 'yes' : 'no'], { stdio: 'ignore' });
      await until(async () => {
        const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        r.on('error', () => undefined);
        try {
          await r.connect();
          return (await r.ping()) === 'PONG';
        } catch {
          return false;
        } finally {
          r.disconnect();
        }
      }, 'redis-server answering');
    },
    async stop(signal = 'SIGKILL') {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return; // already ended (by a signal: no exitCode)
      await new Promise<void>((r) => {
        p.once('exit', () => r());
        p.kill(signal);
      });
    },
  };
}
