// `npm run bench` (probes part): /healthz and /readyz latency while `rwx serve` takes a burst of 5000 pods stuck at
// once (a storage backend failing under a synthetic cluster of 15k pods): the watch delivers the 5000 MODIFIED
// events within a few turns of the event loop, the pipeline detects, correlates and submits them to the real
// notifier (BullMQ on Redis, a Slack stand-in). The probes come from a separate process (as the kubelet's do),
// every 10 ms each, for the burst and until the pipeline has caught up; their p99 must stay under 1 s (a kubelet
// probe timeout is 1 s by default). The same prober probes a trivial Node HTTP server in a process of its own over
// the same window: what it measures there is the machine's (its load, the prober's own delays), so the bot's share
// is the difference.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import pino from 'pino';
import { systemClock } from '../src/domain/clock.js';
import type { Pod } from '../src/domain/objects.js';
import { project } from '../src/kube/project.js';
import { createNotifier } from '../src/notify/notifier.js';
import { createWatcher, startServe } from '../src/serve/app.js';
import { ServeMetrics } from '../src/serve/metrics.js';
import { realSync } from '../src/pipeline/sync.js';
import { MemorySlack } from '../src/slack/memory-slack.js';
import { BENCH_SIZES, generateCluster } from './synthetic-cluster.js';
import { SnapshotSource } from './snapshot-source.js';

/** How many pods get stuck at once. */
export const BURST = 5_000;
/** The target: a kubelet probe's default timeoutSeconds. */
export const TARGET_P99_MS = 1_000;

/** Latency figures of one target (ms). */
export interface Latency {
  probes: number;
  p50: number;
  p99: number;
  max: number;
}

/** What one run measured (ms). */
export interface ProbeFigures extends Latency {
  /** The trivial server, probed over the same window. */
  trivial: Latency;
  /** The event loop's delay over the same window (perf_hooks), p99 and max. */
  loopP99: number;
  loopMax: number;
  /** From the burst to the pipeline's last incident submitted and the work queue empty. */
  caughtUpMs: number;
  incidents: number;
}

// The prober: a child process that GETs the bot's two paths and the trivial server's every 10 ms without waiting
// for answers, and prints each answer's latency (ms) per target when its stdin closes; a request still unanswered
// then counts with its time so far.
const PROBER = `
const [bot, trivial] = process.argv.slice(1); const lat = { bot: [], trivial: [] }; const pending = new Set();
const once = (who, url) => {
  const p = { who, t: performance.now() }; pending.add(p);
  fetch(url).then((r) => r.arrayBuffer()).then(() => { pending.delete(p); lat[who].push(performance.now() - p.t); }, () => undefined);
};
const timer = setInterval(() => { once('bot', bot + '/healthz'); once('bot', bot + '/readyz'); once('trivial', trivial + '/healthz'); }, 10);
process.stdin.on('data', () => undefined);
process.stdin.on('end', () => {
  clearInterval(timer);
  setTimeout(() => { const end = performance.now(); for (const p of pending) lat[p.who].push(end - p.t); process.stdout.write(JSON.stringify(lat)); process.exit(0); }, 1500);
});
`;

// The trivial server: answers every request at once; prints its port.
const TRIVIAL = `
const s = require('node:http').createServer((q, r) => r.end('ok'));
s.listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'));
process.stdin.on('data', () => undefined); process.stdin.on('end', () => process.exit(0));
`;

// A running pod with a claim as it reads once stuck creating: Pending, ContainerCreating, scheduled 10 minutes ago.
function stuck(p: Pod, rv: number, now: number): Pod {
  const at = new Date(now - 600_000).toISOString();
  const c = p.status!.containerStatuses![0]!;
  return {
    ...p,
    metadata: { ...p.metadata, resourceVersion: String(rv) },
    status: {
      ...p.status,
      phase: 'Pending',
      startTime: at,
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: at }],
      containerStatuses: [{ ...c, ready: false, started: false, state: { waiting: { reason: 'ContainerCreating' } } }],
    },
  } as unknown as Pod;
}

const quantile = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

function latency(raw: (number | null)[]): Latency {
  const lat = raw.map((x) => x ?? Infinity).sort((a, b) => a - b);
  return {
    probes: lat.length,
    p50: Math.round(quantile(lat, 0.5)),
    p99: Math.round(quantile(lat, 0.99)),
    max: Math.round(lat[lat.length - 1] ?? NaN),
  };
}

/** Starts the trivial server; resolves with its base URL and a stop function. */
async function trivialServer(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['-e', TRIVIAL], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.stdin.end() };
}

/** One run, in this process. */
export async function probeLatency(): Promise<ProbeFigures> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  const prefix = `rwx-bench-probes-${randomBytes(4).toString('hex')}`;
  const now = Date.now();
  const snap = generateCluster(BENCH_SIZES[0]!, now);
  snap.pods = snap.pods.filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp);
  const withClaim = snap.pods.filter((p) => p.spec?.volumes?.some((v) => v.persistentVolumeClaim));
  if (withClaim.length < BURST) throw new Error(`only ${withClaim.length} pods with a claim`);
  const notifier = createNotifier({ redis, prefix, slack: new MemorySlack(), channel: 'C0BENCH' });
  const source = new SnapshotSource(snap);
  const cache = {
    source,
    project,
    log: pino({ level: 'silent' }),
    metrics: new ServeMetrics({ processMetrics: true }),
    clock: systemClock,
    watchIdleMs: 300_000,
  };
  const running = await startServe({
    ...cache,
    watcher: createWatcher(cache),
    notifier,
    port: 0,
    sync: realSync({ stuckAfterMs: 300_000, cronJobGraceMs: 600_000, driverDaemonSets: {} }),
  });
  try {
    await running.watcher.waitSynced(60_000);
    while (running.watcher.queue.length) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1_000));
    const trivial = await trivialServer();
    const prober = spawn(process.execPath, ['-e', PROBER, `http://127.0.0.1:${running.port}`, trivial.url], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    prober.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => setTimeout(r, 500)); // the prober is up and probing
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const pods = source.callbacks.get('pods')!;
    const t0 = Date.now();
    // As a watch stream hands them over: chunks of 100 events, each chunk one turn of the event loop.
    for (let i = 0; i < BURST; i += 100) {
      for (const [j, p] of withClaim.slice(i, i + 100).entries())
        pods.onEvent('MODIFIED', stuck(p, 10_000 + i + j, t0));
      await new Promise((r) => setImmediate(r));
    }
    // Caught up: the work queue drained and the same incidents evaluated twice in a row (a tick apart).
    let last = '';
    for (;;) {
      await new Promise((r) => setTimeout(r, 1_000));
      const seen = running.pipeline
        .current()
        .map((i) => `${i.key}:${i.pods.length}`)
        .join();
      if (running.watcher.queue.length === 0 && seen !== '' && seen === last) break;
      last = seen;
    }
    const caughtUpMs = Date.now() - t0 - 1_000;
    loop.disable();
    prober.stdin.end();
    await new Promise((r) => prober.on('exit', r));
    trivial.stop();
    const lat = JSON.parse(out) as { bot: (number | null)[]; trivial: (number | null)[] };
    const ms = (ns: number) => Math.round(ns / 1e6);
    return {
      ...latency(lat.bot),
      trivial: latency(lat.trivial),
      loopP99: ms(loop.percentile(99)),
      loopMax: ms(loop.max),
      caughtUpMs,
      incidents: running.pipeline.current().length,
    };
  } finally {
    await running.stop();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
}
