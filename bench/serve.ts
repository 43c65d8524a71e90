// `npm run bench` (serve part): the watch path of `rwx serve` on synthetic clusters of 15k and 150k pods.
// - throughput: watch events/s through reflector -> projection -> ClusterIndex -> work queue -> detectPod ->
//   correlate (per batch of 1000 keys), after an initial list of the whole cluster;
// - RSS after the initial list (raw objects released, GC'd): the bot's steady memory for that cluster;
// - latency from a pod crossing stuckAfter to the Slack call, with the real notifier on Redis (BullMQ) and a
//   Slack stand-in that records when chat.postMessage is called.
// Each size runs in its own child process so RSS is not polluted by the previous size. Throughput: a warm-up
// round, then ROUNDS rounds of EVENTS / ROUNDS pod MODIFIED events; the best round's wall and CPU rates are shown.
// Targets (issue 4): >= 20k events/s, <= 800 MB RSS at 150k pods, post within group_wait + 2s.
import { serveProjector } from '../src/watch/slim.js';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pino from 'pino';
import { systemClock } from '../src/domain/clock.js';
import { KIND_KEYS, type KindKey } from '../src/domain/kinds.js';
import type { KubeObject, Pod } from '../src/domain/objects.js';
import type { Snapshot } from '../src/domain/snapshot.js';
import { project } from '../src/kube/project.js';
import { createNotifier } from '../src/notify/notifier.js';
import { createWatcher, startServe } from '../src/serve/app.js';
import { ServeMetrics } from '../src/serve/metrics.js';
import { Pipeline } from '../src/pipeline/pipeline.js';
import { realSync } from '../src/pipeline/sync.js';
import { MemorySlack } from '../src/slack/memory-slack.js';
import type { PostMessageArgs } from '../src/slack/api.js';
import type { ClusterSource, ListPage, WatchCallbacks, WatchHandle } from '../src/watch/source.js';
import { ClusterWatcher, WATCHED_KINDS } from '../src/watch/watcher.js';
import { BENCH_SIZES, generateCluster } from './synthetic-cluster.js';
import { SnapshotSource } from './snapshot-source.js';
import { BURST, type ProbeFigures, TARGET_P99_MS, probeLatency } from './probes.js';

const NOW = Date.UTC(2026, 10, 30, 2, 0, 0);
const EVENTS = 200_000;
const ROUNDS = 4;
const TARGET_EPS = 20_000;
const TARGET_RSS_MB = 800;
const GROUP_WAIT_MS = 2_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** Writes a snapshot as JSON list pages (500 items, as the API pages), one file per page, under `dir`. */
function writePages(snap: Snapshot, dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const k of KIND_KEYS) {
    const items = snap[k] as unknown[];
    for (let i = 0, p = 0; i < items.length || p === 0; i += 500, p++) {
      writeFileSync(
        join(dir, `${k}-${p}.json`),
        JSON.stringify({ metadata: { resourceVersion: '1' }, items: items.slice(i, i + 500) }),
      );
    }
  }
}

/** Lists by reading and parsing the page files (so the bot's process never holds the raw cluster, as with a real
 * API server), and hands out watch callbacks for the bench to drive. */
class PagedSource implements ClusterSource {
  readonly callbacks = new Map<KindKey, WatchCallbacks>();
  constructor(private readonly dir: string) {}
  async list(kind: KindKey, opts: { continueToken?: string }): Promise<ListPage> {
    const p = Number(opts.continueToken ?? 0);
    const body = JSON.parse(readFileSync(join(this.dir, `${kind}-${p}.json`), 'utf8')) as { items: KubeObject[] };
    const page: ListPage = { items: body.items, resourceVersion: '1' };
    if (existsSync(join(this.dir, `${kind}-${p + 1}.json`))) page.continueToken = String(p + 1);
    return page;
  }
  watch(kind: KindKey, _o: unknown, cb: WatchCallbacks): WatchHandle {
    this.callbacks.set(kind, cb);
    return { abort: () => this.callbacks.delete(kind) };
  }
}

const mb = (n: number) => Math.round(n / 1e6);

/** One size, in this process: prints one JSON line. */
async function runSize(pods: number, dir: string): Promise<void> {
  // Event templates: raw pod objects as the API would send them in MODIFIED events (2000 of them).
  const templates: Pod[] = [];
  for (let p = 0; existsSync(join(dir, `pods-${p}.json`)) && templates.length < 2000; p += 5) {
    const items = (JSON.parse(readFileSync(join(dir, `pods-${p}.json`), 'utf8')) as { items: Pod[] }).items;
    templates.push(...items.slice(0, 2000 / Math.ceil(pods / 2500)));
  }
  const source = new PagedSource(dir);
  const clock = { now: () => NOW };
  const watcher = new ClusterWatcher({ source, project: serveProjector(project), clock, kinds: WATCHED_KINDS });
  let submits = 0;
  const pipeline = new Pipeline(
    watcher.index,
    watcher.queue,
    realSync({ stuckAfterMs: 300_000, cronJobGraceMs: 600_000, driverDaemonSets: {} }),
    { submit: async () => void submits++ },
    clock,
    undefined,
    () => watcher.synced(),
  );
  const t0 = performance.now();
  watcher.start();
  while (!watcher.synced()) await new Promise((r) => setImmediate(r));
  while (watcher.queue.length) await pipeline.pump(1000);
  await pipeline.flush();
  const syncMs = performance.now() - t0;
  gc();
  gc();
  const rss = process.memoryUsage().rss;
  const heap = process.memoryUsage().heapUsed;

  const podWatch = source.callbacks.get('pods');
  if (!podWatch) throw new Error('no pod watch');
  // Each event is a fresh top-level object with a new resourceVersion (as the JSON parser would hand over), made
  // just before delivery so, as in production, nothing holds on to raw events. ROUNDS rounds of EVENTS / ROUNDS
  // events after a warm-up round; the best round is reported (a shared machine only ever makes a round slower).
  let eps = 0;
  let epsCpu = 0;
  let seq = 0;
  const perRound = EVENTS / ROUNDS;
  for (let round = 0; round <= ROUNDS; round++) {
    const n = round === 0 ? perRound / 4 : perRound;
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    for (let i = 0; i < n; i += 1000) {
      for (let j = i; j < i + 1000 && j < n; j++, seq++) {
        const t = templates[seq % templates.length]!;
        podWatch.onEvent('MODIFIED', { ...t, metadata: { ...t.metadata, resourceVersion: String(1000 + seq) } });
      }
      while (watcher.queue.length) await pipeline.pump(1000);
    }
    await pipeline.flush();
    if (round === 0) continue; // warm-up: JIT, and the first replace of each pod builds the lazy indexes
    eps = Math.max(eps, n / ((performance.now() - t1) / 1000));
    // Per CPU-second of this process: what the path costs, independent of other load on a shared machine.
    const cpu = process.cpuUsage(c1);
    epsCpu = Math.max(epsCpu, n / ((cpu.user + cpu.system) / 1e6));
  }
  console.log(
    JSON.stringify({
      pods,
      rssMb: mb(rss),
      heapMb: mb(heap),
      syncMs: Math.round(syncMs),
      eps: Math.round(eps),
      epsCpu: Math.round(epsCpu),
      findings: pipeline.currentFindings().length,
      incidents: pipeline.current().length,
      submits,
    }),
  );
  watcher.stop();
}

/** Time from a pod crossing stuckAfter to chat.postMessage, through the real notifier on Redis. */
async function latency(): Promise<number> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  const prefix = `rwx-bench-${randomBytes(4).toString('hex')}`;
  let postedAt: number | undefined;
  class RecordingSlack extends MemorySlack {
    override async postMessage(a: PostMessageArgs) {
      if (!a.threadTs && postedAt === undefined) postedAt = Date.now();
      return super.postMessage(a);
    }
  }
  const stuckAfterMs = 3_000;
  const notifier = createNotifier({
    redis,
    prefix,
    slack: new RecordingSlack(),
    channel: 'C0BENCH',
    timers: { groupWait: GROUP_WAIT_MS },
  });
  // The synthetic cluster minus its own stuck pods, so the first root posted is for the pod below.
  const snap = generateCluster(BENCH_SIZES[0]!, Date.now());
  snap.pods = snap.pods.filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp);
  const source = new SnapshotSource(snap);
  // One pod scheduled now on a node, waiting on its volume: it crosses stuckAfter in 3s with no further event.
  const scheduled = Date.now();
  const crossesAt = scheduled + stuckAfterMs;
  const pod: Pod = {
    kind: 'Pod',
    metadata: { name: 'bench-stuck', namespace: 'team-1', uid: 'bench-uid' },
    spec: { nodeName: 'node-00001', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-1' } }] },
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: new Date(scheduled).toISOString() }],
      containerStatuses: [{ name: 'app', state: { waiting: { reason: 'ContainerCreating' } } }],
    },
  };
  source.snap!.pods.push(pod);
  source.snap!.events.push({
    kind: 'Event',
    metadata: { name: 'bench-stuck.1', namespace: 'team-1' },
    involvedObject: { kind: 'Pod', namespace: 'team-1', name: 'bench-stuck' },
    reason: 'FailedMount',
    type: 'Warning',
    message: 'MountVolume.SetUp failed for volume "data" : rpc error: code = DeadlineExceeded',
    count: 1,
    lastTimestamp: new Date(scheduled).toISOString(),
  } as KubeObject);
  const cache = {
    source,
    project,
    log: pino({ level: 'silent' }),
    metrics: new ServeMetrics(),
    clock: systemClock,
    watchIdleMs: 300_000,
  };
  const running = await startServe({
    ...cache,
    watcher: createWatcher(cache),
    notifier,
    sync: realSync({ stuckAfterMs, cronJobGraceMs: 600_000, driverDaemonSets: {} }),
  });
  const deadline = Date.now() + 30_000;
  while (postedAt === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await running.stop();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  return postedAt === undefined ? Infinity : postedAt - crossesAt;
}

// The probes run (probes.ts) in its own process; prints its line, false when it missed its target or failed.
function probes(self: string): boolean {
  const r = spawnSync(process.execPath, [self, '--probes'], { encoding: 'utf8' });
  let f: ProbeFigures;
  try {
    f = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as ProbeFigures;
  } catch {
    console.log(`  probes run failed: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    return false;
  }
  const ok = f.p99 <= TARGET_P99_MS;
  const t = f.trivial;
  console.log(
    `/healthz + /readyz during ${BURST} pods stuck at once (15k-pod cluster, ${f.incidents} incidents, caught up in ${f.caughtUpMs} ms): ` +
      `${f.probes} probes, p50 ${f.p50} ms, p99 ${f.p99} ms, max ${f.max} ms; event loop delay p99 ${f.loopP99} ms, max ${f.loopMax} ms ` +
      `(target p99 <= ${TARGET_P99_MS} ms)${ok ? '' : '  MISSED TARGET'}`,
  );
  console.log(
    `  a trivial Node HTTP server probed the same way over the same window: ${t.probes} probes, p50 ${t.p50} ms, p99 ${t.p99} ms, max ${t.max} ms ` +
      `(the machine's share; the bot's p99 is ${(f.p99 / Math.max(1, t.p99)).toFixed(1)}x it)`,
  );
  return ok;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const sizeIdx = args.indexOf('--size');
  if (sizeIdx >= 0) {
    await runSize(Number(args[sizeIdx + 1]), args[args.indexOf('--pages') + 1] ?? '');
    return 0;
  }
  if (args.includes('--latency')) {
    console.log(JSON.stringify({ latencyMs: await latency() }));
    return 0;
  }
  if (args.includes('--probes')) {
    console.log(JSON.stringify(await probeLatency()));
    return 0;
  }
  const self = fileURLToPath(import.meta.url);
  let failed = false;
  console.log(
    `serve watch path: ${EVENTS} pod MODIFIED events in ${ROUNDS} rounds after a warm-up; events/s = best round (wall), events/CPU-s = best round (process CPU)`,
  );
  console.log('serve watch path: pods  RSS MB  heap MB  initial sync ms  events/s  events/CPU-s  findings  incidents');
  for (const pods of [15_000, 150_000]) {
    const size = BENCH_SIZES.find((s) => s.pods === pods)!;
    const dir = mkdtempSync(join(tmpdir(), 'rwx-bench-'));
    writePages(generateCluster(size, NOW), dir);
    gc();
    const r = spawnSync(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=4096', self, '--size', String(pods), '--pages', dir],
      { encoding: 'utf8' },
    );
    rmSync(dir, { recursive: true, force: true });
    const line = r.stdout.trim().split('\n').pop() ?? '';
    let row: {
      rssMb: number;
      heapMb: number;
      syncMs: number;
      eps: number;
      epsCpu: number;
      findings: number;
      incidents: number;
    };
    try {
      row = JSON.parse(line);
    } catch {
      console.log(`  ${pods}: failed: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
      failed = true;
      continue;
    }
    // Judged on wall throughput; events/CPU-s (GC threads included) is shown because on a shared machine the wall
    // figure measures the other tenants too (load average printed below).
    const ok = row.eps >= TARGET_EPS && (pods < 150_000 || row.rssMb <= TARGET_RSS_MB);
    if (!ok) failed = true;
    console.log(
      `                  ${String(pods).padEnd(7)} ${String(row.rssMb).padStart(6)} ${String(row.heapMb).padStart(8)} ${String(row.syncMs).padStart(16)} ${String(row.eps).padStart(9)} ${String(row.epsCpu).padStart(13)} ${String(row.findings).padStart(10)} ${String(row.incidents).padStart(10)}${ok ? '' : '  MISSED TARGET'}`,
    );
  }
  const l = spawnSync(process.execPath, [self, '--latency'], { encoding: 'utf8' });
  let lat = Infinity;
  try {
    lat = (JSON.parse(l.stdout.trim().split('\n').pop() ?? '') as { latencyMs: number }).latencyMs;
  } catch {
    console.log(`  latency run failed: ${l.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
  const latOk = lat <= GROUP_WAIT_MS + 2_000;
  if (!latOk) failed = true;
  console.log(
    `stuckAfter crossed -> chat.postMessage: ${lat === Infinity ? 'no post' : `${lat} ms`} (group_wait ${GROUP_WAIT_MS} ms, target <= ${GROUP_WAIT_MS + 2000} ms)${latOk ? '' : '  MISSED TARGET'}`,
  );
  if (!probes(self)) failed = true;
  console.log(
    `load average during the run: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${cpus().length} CPUs`,
  );
  console.log(
    `targets: >= ${TARGET_EPS} events/s, <= ${TARGET_RSS_MB} MB RSS at 150k pods, post within group_wait + 2s`,
  );
  return args.includes('--check') && failed ? 1 : 0;
}

process.exitCode = await main();
