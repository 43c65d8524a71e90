// The restarted process of bench/recovery.ts: `rwx serve` (runServe, src/serve/main.ts) against the simulator's
// kubeconfig and the real Redis, Slack the in-memory fake. It loads what the bot loads and nothing of the bench
// (the simulator, the cluster generator), so its time from spawn is the bot's own. Prints a ReadyLine once ready.
// Usage: node recovery-child.js KUBECONFIG PREFIX [--first] (--first: wait until the roots are posted, so the
// next runs are restarts with records).
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { loadConfig } from '../src/config/index.js';
import { runServe } from '../src/serve/main.js';
import { MemorySlack } from '../src/slack/memory-slack.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** What the child prints when ready (one JSON line); times are ms since the child's start. */
export interface ReadyLine {
  /** Modules loaded (the child's code starts). */
  loadedMs: number;
  /** Every kind listed (watcher.synced()). */
  syncedMs: number;
  readyMs: number;
  /** The process's own CPU (user + system, every thread) until ready. */
  cpuMs: number;
  heapMb: number;
  /** Resident set size at ready, before the full GC that heapMb is measured after. */
  rssMb: number;
  passes: number;
  incidents: number;
}

/** Starts the bot, waits until ready, prints a ReadyLine, and stops it. */
async function child(kubeconfig: string, prefix: string, waitPosted: boolean): Promise<void> {
  const loadedMs = performance.now();
  const config = loadConfig({
    env: {
      KUBECONFIG: kubeconfig,
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_CHANNEL: 'C0BENCH',
      SLACK_SIGNING_SECRET: 'bench',
      REDIS_URL,
      RWX_REDIS_PREFIX: prefix,
      RWX_GROUP_WAIT: '1s',
      LOG_LEVEL: 'warn',
    },
  });
  const slack = new MemorySlack();
  const running = await runServe(config, pino({ level: 'silent' }), { slack, bolt: false, port: 0, env: {} });
  let syncedMs = 0;
  while (running.pipeline.passes === 0 || (await running.notReady()).length > 0) {
    if (!syncedMs && running.watcher.synced()) syncedMs = performance.now();
    await new Promise((r) => setTimeout(r, 10));
  }
  const readyMs = performance.now();
  const cpu = process.cpuUsage();
  const rss = process.memoryUsage().rss;
  gc();
  const heap = process.memoryUsage().heapUsed;
  // The first run leaves records behind for the restarts: it waits until the roots are posted.
  const end = Date.now() + 20_000;
  while (waitPosted && slack.messages.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  const line: ReadyLine = {
    loadedMs: Math.round(loadedMs),
    syncedMs: Math.round(syncedMs || readyMs),
    readyMs: Math.round(readyMs),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    heapMb: Math.round(heap / 1e6),
    rssMb: Math.round(rss / 1e6),
    passes: running.pipeline.passes,
    incidents: running.pipeline.current().length,
  };
  await running.stop();
  process.stdout.write(`${JSON.stringify(line)}\n`, () => process.exit(0));
}

const [kubeconfig = '', prefix = ''] = process.argv.slice(2);
await child(kubeconfig, prefix, process.argv.includes('--first'));
