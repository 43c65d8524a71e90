// `npm run bench` (recovery part): how long a restarted `rwx serve` takes to be ready again on a 150k-pod cluster,
// as a ratio to the least any process can do: fetch and JSON-parse the same lists. Target (issue 12): <= 1.5x.
// - floor: bench/fetch-floor.ts, a whole process: node:http, bearer token, every watched kind in parallel, 500-item
//   pages with continue tokens, the kinds' fieldSelectors, JSON.parse of every page; nothing else;
// - restart: a whole process running runServe (src/serve/main.ts) against the simulator's kubeconfig and the real
//   Redis, on a prefix a first run already filled with incident records (so it is a restart, not a first start);
//   ready = /readyz's checks all pass (watches synced, API reachable, Redis) AND the first evaluation was handed
//   to the notifier. Slack is the in-memory fake (no Socket Mode: a Slack round trip is not the cluster's cost).
// Both are timed from spawn (module loading included) and run interleaved, so both see the same background load
// on a shared machine; ratio = median over rounds of (restart / floor) of the same round. The simulator runs in
// this process and serves both. The restart also reports its heap used at ready (after a full GC).
// Flags: --rounds N (default 3), --pods N (default 150000), --check (exit 1 when the target is missed).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pino from 'pino';
import { loadConfig } from '../src/config/index.js';
import { PAGE_LIMIT, listPath, listQuery } from '../src/kube/read.js';
import { runServe } from '../src/serve/main.js';
import { MemorySlack } from '../src/slack/memory-slack.js';
import { WATCHED_KINDS } from '../src/watch/watcher.js';
import { simulateCluster } from './cluster-sim.js';
import { BENCH_SIZES, generateCluster } from './synthetic-cluster.js';

const FLOOR = fileURLToPath(new URL('./fetch-floor.js', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TARGET_RATIO = 1.5;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

/** What the restart child prints when ready (one JSON line). */
interface ReadyLine {
  readyMs: number;
  heapMb: number;
  passes: number;
  incidents: number;
}

/** In the child: starts the bot, waits until ready, prints a ReadyLine, and stops it. */
async function child(kubeconfig: string, prefix: string, waitPosted: boolean): Promise<void> {
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
  while (running.pipeline.passes === 0 || (await running.notReady()).length > 0)
    await new Promise((r) => setTimeout(r, 10));
  const readyMs = performance.now();
  gc();
  const heap = process.memoryUsage().heapUsed;
  // The first run leaves records behind for the restarts: it waits until the roots are posted.
  const end = Date.now() + 20_000;
  while (waitPosted && slack.messages.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  const line: ReadyLine = {
    readyMs: Math.round(readyMs),
    heapMb: Math.round(heap / 1e6),
    passes: running.pipeline.passes,
    incidents: running.pipeline.current().length,
  };
  await running.stop();
  process.stdout.write(`${JSON.stringify(line)}\n`, () => process.exit(0));
}

/** Runs `node args...`; resolves with wall ms from spawn to exit (floor) or to the child's ReadyLine (restart). */
function timed(args: string[]): Promise<{ wall: number; ready?: ReadyLine }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let wall: number | undefined;
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (wall === undefined && out.includes('\n')) wall = performance.now() - t;
    });
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`node ${args.join(' ')} exited ${code}: ${err.trim()}`));
      const last = out.trim().split('\n').pop() ?? '';
      if (last.startsWith('{')) resolve({ wall: wall ?? performance.now() - t, ready: JSON.parse(last) as ReadyLine });
      else resolve({ wall: performance.now() - t });
    });
  });
}

/** Deletes the bench's Redis keys. */
async function cleanPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Every watched kind's list path and query (fieldSelector, page size), as the reflectors list them. */
function floorPaths(): string[] {
  return WATCHED_KINDS.map((k) => `${listPath(k)}?${listQuery(k, PAGE_LIMIT)}`);
}

async function parent(): Promise<number> {
  const rounds = Number(flag('--rounds') ?? 3);
  const pods = Number(flag('--pods') ?? 150_000);
  const size = BENCH_SIZES.find((s) => s.pods === pods) ?? {
    pods,
    nodes: Math.round(pods / 30),
    claims: Math.round(pods / 5),
  };
  const t0 = performance.now();
  const cluster = generateCluster(size, Date.now());
  const sim = await simulateCluster('bench-recovery', cluster);
  const prefix = `rwx-bench-${randomBytes(4).toString('hex')}`;
  const heap = [
    '--expose-gc',
    '--max-old-space-size=4096',
    ...(process.env.RWX_BENCH_PROF ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.RWX_BENCH_PROF}`] : []),
  ];
  const restart = (first = false) =>
    timed([...heap, SELF, '--child', sim.kubeconfigPath, prefix, ...(first ? ['--first'] : [])]);
  const floor = () => timed([FLOOR, sim.url, sim.token, ...floorPaths()]);
  console.log(`  simulator ready after ${(performance.now() - t0).toFixed(0)} ms`);
  try {
    console.log(
      `\nRecovery: rwx serve restarted against the simulator, ${size.pods} pods, ${size.nodes} nodes, ${size.claims} claims`,
    );
    // Warm-up (JIT of the simulator, page cache) and the first start that leaves incident records behind.
    await floor();
    const first = await restart(true);
    console.log(
      `  first start (fills Redis): ready after ${first.wall.toFixed(0)} ms, ${first.ready?.incidents} incidents`,
    );
    const f: number[] = [];
    const r: number[] = [];
    const heaps: number[] = [];
    for (let i = 0; i < rounds; i++) {
      f.push((await floor()).wall);
      const run = await restart();
      r.push(run.wall);
      heaps.push(run.ready?.heapMb ?? NaN);
    }
    const ratio = median(r.map((x, i) => x / (f[i] as number)));
    const ok = ratio <= TARGET_RATIO;
    console.log(`  median of ${rounds} rounds, whole processes from spawn (min in brackets):`);
    console.log(
      `  fetch and parse the same lists (floor)   ${median(f).toFixed(0)} ms (${Math.min(...f).toFixed(0)} ms)`,
    );
    console.log(
      `  restart until ready + first evaluation  ${median(r).toFixed(0)} ms (${Math.min(...r).toFixed(0)} ms)`,
    );
    console.log(`  heap used at ready (after a full GC)     ${median(heaps)} MB`);
    console.log(
      `  ratio ready / floor, median of per-round ratios: ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x: ${ok ? 'ok' : 'MISSED'})`,
    );
    console.log(`  load average ${loadavg()[0]?.toFixed(2)} on ${cpus().length} CPUs`);
    return ok || !process.argv.includes('--check') ? 0 : 1;
  } finally {
    await sim.stop();
    await cleanPrefix(REDIS_URL, prefix);
  }
}

const ci = process.argv.indexOf('--child');
if (ci > 0) await child(process.argv[ci + 1] ?? '', process.argv[ci + 2] ?? '', process.argv.includes('--first'));
else process.exitCode = await parent();
