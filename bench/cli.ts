// `npm run bench` (CLI part): whole processes of the built CLI (bin/rwx.js), timed from spawn to exit (wall time:
// what a user waits for, module loading included). Targets (issue 16):
// - startup: `rwx triage --snapshot` of a one-claim file <= 0.3 s (median of ROUNDS runs);
// - live: `rwx triage` against the simulator at 15k pods within 1.5x of a minimal process that fetches and parses
//   the same lists (node:http, bearer token, 500-item pages, kinds in parallel, JSON.parse; no client-node).
// Method: every round runs each measured process once, interleaved (floor, rwx, floor, rwx...), so both see the
// same background load; ratio = median over rounds of (rwx / floor) of the same round. The simulator runs in this
// process and serves both. Shown beside: `node -e 0` (Node's own start) and importing @kubernetes/client-node
// alone (what the snapshot commands no longer pay).
// Flags: --rounds N (default 9), --pods N (default 15000), --check (exit 1 when a target is missed).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { KIND_KEYS } from '../src/domain/kinds.js';
import { listPath } from '../src/kube/read.js';
import { NEEDED } from '../src/triage/preflight.js';
import { simulateCluster } from './cluster-sim.js';
import { generateCluster } from './synthetic-cluster.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'rwx.js');
const FLOOR = fileURLToPath(new URL('./fetch-floor.js', import.meta.url));
const CPU_REPORT = fileURLToPath(new URL('./cpu-report.js', import.meta.url));
const NOW = Date.UTC(2026, 10, 30, 2, 0, 0);
const STARTUP_TARGET_MS = 300;
const LIVE_RATIO_TARGET = 1.5;

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(flag('--rounds') ?? 9);
const PODS = Number(flag('--pods') ?? 15_000);

/** One run: wall ms from spawn to exit, and the process's own CPU ms (user + system). */
interface Run {
  wall: number;
  cpu: number;
}

/** Runs `node args...` once; fails the bench on an unexpected exit code. */
function timed(args: string[], ok: readonly number[] = [0, 2]): Promise<Run> {
  const cpuFile = join(tmp, 'cpu');
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, ['--import', CPU_REPORT, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, HOME: tmp, RWX_BENCH_CPU_FILE: cpuFile },
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = performance.now() - t;
      if (ok.includes(code ?? -1)) resolve({ wall, cpu: Number(readFileSync(cpuFile, 'utf8')) });
      else reject(new Error(`node ${args.join(' ')} exited ${code}: ${err.trim()}`));
    });
  });
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Runs every case once per round, interleaved; returns each case's times. */
async function rounds<K extends string>(cases: Record<K, () => Promise<Run>>): Promise<Record<K, Run[]>> {
  const out = Object.fromEntries(Object.keys(cases).map((k) => [k, [] as Run[]])) as unknown as Record<K, Run[]>;
  for (const k of Object.keys(cases) as K[]) await cases[k](); // warm-up: file cache, JIT of the simulator
  for (let r = 0; r < ROUNDS; r++) for (const k of Object.keys(cases) as K[]) out[k].push(await cases[k]());
  return out;
}

const ms = (x: number): string => `${x.toFixed(0)} ms`;
const tmp = mkdtempSync(join(tmpdir(), 'rwx-bench-cli-'));
const misses: string[] = [];

/** A one-claim cluster as a snapshot file, and one of its nodes. */
function oneClaim(): { file: string; node: string } {
  const s = generateCluster({ pods: 3, nodes: 1, claims: 1 }, NOW);
  const file = join(tmp, 'one-claim.json');
  writeFileSync(
    file,
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: KIND_KEYS.flatMap((k) => s[k] as unknown[]) }),
  );
  return { file, node: s.nodes[0]?.metadata?.name ?? 'node-0' };
}

async function startup(): Promise<void> {
  const { file, node } = oneClaim();
  const t = await rounds({
    'node -e 0': () => timed(['-e', '0']),
    'import @kubernetes/client-node': () => timed(['-e', "await import('@kubernetes/client-node')"]),
    'rwx --version': () => timed([BIN, '--version']),
    'rwx triage --snapshot (1 claim)': () => timed([BIN, 'triage', '--snapshot', file]),
    'rwx drain-check --snapshot (1 claim)': () => timed([BIN, 'drain-check', node, '--snapshot', file], [0, 3, 4, 5]),
  });
  console.log(`\nStartup: whole processes, median of ${ROUNDS} rounds: wall (min), CPU`);
  for (const [k, runs] of Object.entries(t) as [string, Run[]][]) console.log(`  ${k.padEnd(40)} ${row(runs)}`);
  const triage = median(t['rwx triage --snapshot (1 claim)'].map((r) => r.wall));
  const bare = median(t['node -e 0'].map((r) => r.wall));
  const verdict = triage <= STARTUP_TARGET_MS ? 'ok' : 'MISSED';
  console.log(`  target: triage of a one-claim snapshot <= ${STARTUP_TARGET_MS} ms (wall): ${ms(triage)} ${verdict}`);
  console.log(`  of which Node's own start (node -e 0): ${ms(bare)}; rwx's share: ${ms(triage - bare)}`);
  if (verdict !== 'ok') misses.push('startup');
}

/** "1234 ms (1100 ms)   567 ms CPU" for a case's runs. */
function row(runs: readonly Run[]): string {
  const wall = runs.map((r) => r.wall);
  return `${ms(median(wall)).padStart(8)} (${ms(Math.min(...wall))})  ${ms(median(runs.map((r) => r.cpu))).padStart(8)} CPU`;
}

async function live(): Promise<void> {
  const size = { pods: PODS, nodes: Math.round(PODS / 30), claims: Math.round(PODS / 5) };
  const cluster = generateCluster(size, NOW);
  const sim = await simulateCluster('bench-cli', cluster);
  try {
    const paths = NEEDED.map((n) => listPath(n.kind));
    const t = await rounds({
      floor: () => timed([FLOOR, sim.url, sim.token, ...paths]),
      'rwx triage': () => timed([BIN, 'triage', '--kubeconfig', sim.kubeconfigPath, '-o', 'json']),
    });
    const ratio = (k: keyof Run) => median(t.floor.map((f, i) => (t['rwx triage'][i] as Run)[k] / f[k]));
    console.log(
      `\nLive: rwx triage against the simulator, ${size.pods} pods, ${size.nodes} nodes, ${size.claims} claims`,
    );
    console.log(`  median of ${ROUNDS} rounds: wall (min), CPU of the process itself`);
    console.log(`  fetch and parse the same lists (floor)   ${row(t.floor)}`);
    console.log(`  rwx triage --kubeconfig -o json          ${row(t['rwx triage'])}`);
    const verdict = ratio('wall') <= LIVE_RATIO_TARGET ? 'ok' : 'MISSED';
    console.log(
      `  ratio, median of per-round ratios: wall ${ratio('wall').toFixed(2)}x (target <= ${LIVE_RATIO_TARGET}x: ${verdict}), CPU ${ratio('cpu').toFixed(2)}x`,
    );
    if (verdict !== 'ok') misses.push('live');
  } finally {
    await sim.stop();
  }
}

console.log(`rwx CLI bench: node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(2)}`);
try {
  await startup();
  await live();
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
if (misses.length > 0 && process.argv.includes('--check')) process.exitCode = 1;
