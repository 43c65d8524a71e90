// `npm run bench` (recovery part): how long a restarted `rwx serve` takes to be ready again on a 150k-pod cluster,
// as a ratio to the least any process can do: fetch and JSON-parse the same lists. Target (issue 12): <= 1.5x.
// - floor: bench/fetch-floor.ts, a whole process: node:http, bearer token, every watched kind in parallel, 500-item
//   pages with continue tokens, the kinds' fieldSelectors, JSON.parse of every page; nothing else;
// - restart: a whole process (bench/recovery-child.ts, which loads the bot and nothing of the bench) running
//   runServe (src/serve/main.ts) against the simulator's kubeconfig and the real Redis, on a prefix a first run
//   already filled with incident records (so it is a restart, not a first start);
//   ready = /readyz's checks all pass (watches synced, API reachable, Redis) AND the first evaluation was handed
//   to the notifier. Slack is the in-memory fake (no Socket Mode: a Slack round trip is not the cluster's cost).
//   It runs with the node flags the image runs the bot with (the Dockerfile's ENTRYPOINT) and the heap Node gives
//   it under the chart's default memory limit; the floor with neither.
// Both are timed from spawn (module loading included) and run interleaved, so both see the same background load
// on a shared machine; ratio = median over rounds of (restart / floor) of the same round. The simulator runs in
// this process and serves both. Each also reports its own CPU (less sensitive to the machine's load than wall
// time), and the restart when its modules were loaded, every kind listed, and its heap at ready (after a full GC).
// Flags: --rounds N (default 3), --pods N (default 150000), --check (exit 1 when the target is missed).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { PAGE_LIMIT, listPath, listQuery } from '../src/kube/read.js';
import { WATCHED_KINDS } from '../src/watch/watcher.js';
import { simulateCluster } from './cluster-sim.js';
import type { ReadyLine } from './recovery-child.js';
import { BENCH_SIZES, generateCluster } from './synthetic-cluster.js';

const FLOOR = fileURLToPath(new URL('./fetch-floor.js', import.meta.url));
const CHILD = fileURLToPath(new URL('./recovery-child.js', import.meta.url));
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TARGET_RATIO = 1.5;

/**
 * The old-space heap Node gives the bot under the chart's default memory limit: V8 sizes it from the cgroup's
 * limit, half of it on 64-bit (1Gi: 512 MB, 2Gi: 1024 MB, plus the young generation). The restart runs with it, so
 * it pays the garbage collection a pod pays (with 4 GB it ran as if memory were free).
 */
const CONTAINER_HEAP_MB = ((): number => {
  const values = parse(
    readFileSync(fileURLToPath(new URL('../../../charts/rwx/values.yaml', import.meta.url)), 'utf8'),
  );
  const limit = String((values as { resources?: { limits?: { memory?: unknown } } }).resources?.limits?.memory);
  const m = /^(\d+)(Mi|Gi)$/.exec(limit);
  if (!m) throw new Error(`charts/rwx/values.yaml: resources.limits.memory ${limit} is not N Mi or N Gi`);
  return (Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1)) / 2;
})();

/** The node flags the image runs the bot with (the Dockerfile's ENTRYPOINT between node and bin/rwx.js). */
const IMAGE_NODE_FLAGS = ((): string[] => {
  const text = readFileSync(fileURLToPath(new URL('../../../Dockerfile', import.meta.url)), 'utf8');
  const entry = JSON.parse(/^ENTRYPOINT (.*)$/m.exec(text)?.[1] ?? '[]') as string[];
  const end = entry.indexOf('bin/rwx.js');
  if (end < 1) throw new Error(`the Dockerfile's ENTRYPOINT does not run node bin/rwx.js: ${JSON.stringify(entry)}`);
  return entry.slice(1, end);
})();

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

/** One timed process: wall ms from spawn to exit (floor) or to its ReadyLine (restart), and its own CPU ms. */
interface Run {
  wall: number;
  cpu: number;
  ready?: ReadyLine;
}

/** Runs `node args...` and times it (see Run). The floor prints its CPU last: "N objects, C ms CPU". */
function timed(args: string[]): Promise<Run> {
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
      if (!last.startsWith('{'))
        return resolve({ wall: performance.now() - t, cpu: Number(/(\d+) ms CPU/.exec(last)?.[1]) });
      const ready = JSON.parse(last) as ReadyLine;
      resolve({ wall: wall ?? performance.now() - t, cpu: ready.cpuMs, ready });
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

/** "1234 ms (1100 ms)   567 ms CPU" for a case's runs. */
function row(runs: readonly Run[]): string {
  const wall = runs.map((x) => x.wall);
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return `${ms(median(wall)).padStart(8)} (${ms(Math.min(...wall))})  ${ms(median(runs.map((x) => x.cpu))).padStart(8)} CPU`;
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
    `--max-old-space-size=${CONTAINER_HEAP_MB}`,
    ...IMAGE_NODE_FLAGS,
    ...(process.env.RWX_BENCH_PROF ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.RWX_BENCH_PROF}`] : []),
    ...(process.env.RWX_BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
  ];
  const restart = (first = false) => timed([...heap, CHILD, sim.kubeconfigPath, prefix, ...(first ? ['--first'] : [])]);
  const floor = () => timed([FLOOR, sim.url, sim.token, ...floorPaths()]);
  console.log(`  simulator ready after ${(performance.now() - t0).toFixed(0)} ms`);
  try {
    console.log(
      `\nRecovery: rwx serve restarted against the simulator, ${size.pods} pods, ${size.nodes} nodes, ${size.claims} claims`,
    );
    console.log(
      `  the restart runs with the image's node flags (${IMAGE_NODE_FLAGS.join(' ') || 'none'}) and the heap of` +
        ` the chart's default memory limit (--max-old-space-size=${CONTAINER_HEAP_MB})`,
    );
    // Warm-up (JIT of the simulator, page cache) and the first start that leaves incident records behind.
    await floor();
    const first = await restart(true);
    console.log(
      `  first start (fills Redis): ready after ${first.wall.toFixed(0)} ms, ${first.ready?.incidents} incidents`,
    );
    const f: Run[] = [];
    const r: Run[] = [];
    for (let i = 0; i < rounds; i++) {
      f.push(await floor());
      r.push(await restart());
    }
    const ratio = median(r.map((x, i) => x.wall / (f[i] as Run).wall));
    const cpuRatio = median(r.map((x, i) => x.cpu / (f[i] as Run).cpu));
    const ok = ratio <= TARGET_RATIO;
    const at = (k: keyof ReadyLine) => `${median(r.map((x) => x.ready?.[k] ?? NaN)).toFixed(0)} ms`;
    console.log(`  median of ${rounds} rounds, whole processes from spawn: wall (min), the process's own CPU`);
    console.log(`  fetch and parse the same lists (floor)   ${row(f)}`);
    console.log(`  restart until ready + first evaluation   ${row(r)}`);
    console.log(`    modules loaded ${at('loadedMs')}, every kind listed ${at('syncedMs')}, ready ${at('readyMs')}`);
    console.log(`  heap used at ready (after a full GC)     ${median(r.map((x) => x.ready?.heapMb ?? NaN))} MB`);
    console.log(`  resident memory at ready (before it)     ${median(r.map((x) => x.ready?.rssMb ?? NaN))} MB`);
    console.log(
      `  ratio ready / floor, median of per-round ratios: ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x: ${ok ? 'ok' : 'MISSED'}); CPU ${cpuRatio.toFixed(2)}x`,
    );
    console.log(`  load average ${loadavg()[0]?.toFixed(2)} on ${cpus().length} CPUs`);
    return ok || !process.argv.includes('--check') ? 0 : 1;
  } finally {
    await sim.stop();
    await cleanPrefix(REDIS_URL, prefix);
  }
}

process.exitCode = await parent();
