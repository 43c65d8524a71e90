// `npm run bench` (fleet part): what one cluster of a fleet costs the Redis it shares, and how fast /rwx is routed
// with 10 and 20 clusters on one Redis (issue 28 §6). Method:
// - a redis-server of the bench's own on a free port (the shared one carries other traffic), no persistence;
// - K clusters, each a simulator of its own and a whole `rwx serve` (in this process, RWX_FLEET on, production
//   timers but RWX_GROUP_WAIT 1s so an incident posts within the window; Slack is a terminal renderer writing
//   nowhere); "idle": a healthy 40-node cluster; "incident": the propagation-loss scenario (40 nodes, 4 stuck pods,
//   one incident thread);
// - Redis CPU: INFO cpu used_cpu_sys + used_cpu_user over the window, per cluster, in % of one core;
// - commands/s: the delta of INFO commandstats' calls over a WINDOW_MS window, once every bot is synced and has
//   published; per cluster = total / K. Memory: INFO memory used_memory after the window minus before the first
//   bot started, per cluster = delta / K; the published name sets are part of it (their size grows with the
//   cluster: MEMORY USAGE of one cluster's node set is shown per name);
// - routing: ROUTED commands `/rwx drain node-19 @<cluster>` handed to the first cluster's bot, each about
//   another cluster, answered by that cluster's worker through Redis; wall time from delivery to the answer, median
//   and p95. The machine is shared (see the load average in the header): read the figures as an upper bound.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseScenario, startSimulator, loadScenario, type Simulator } from '@rwx/kube-sim';
import { Redis } from 'ioredis';
import pino from 'pino';
import { loadConfig } from '../src/config/index.js';
import { connect } from '../src/kube/index.js';
import type { RunningServe } from '../src/serve/app.js';
import { DemoCommandApp, demoAnswers } from '../src/serve/demo-route.js';
import { runServe } from '../src/serve/main.js';
import { TerminalSlack } from '../src/slack/terminal-slack.js';
import { KubeClusterSource } from '../src/watch/kube-source.js';
import { freePort } from '../test/support/free-port.js';

const WINDOW_MS = 20_000;
const ROUTED = 20;
const SIZES = [10, 20];
const NODES = 40;

const nowhere = new Writable({ write: (_c, _e, cb) => cb() });
const log = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A redis-server of our own: its URL, a connection and the process. */
async function ownRedis(): Promise<{ url: string; redis: Redis; proc: ChildProcess }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rwx-bench-fleet-'));
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const redis = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return { url, redis, proc };
    } catch (e) {
      redis.disconnect();
      if (i > 100) throw e;
      await sleep(100);
    }
  }
}

/** Calls per command in INFO commandstats, most called first. */
async function calls(redis: Redis): Promise<[string, number][]> {
  const info = await redis.info('commandstats');
  const rows = [...info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)].map((m): [string, number] => [m[1]!, Number(m[2])]);
  return rows.sort((a, b) => b[1] - a[1]);
}
/** Redis' own CPU seconds (user + system, main thread and the rest). */
async function cpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  return ['used_cpu_sys', 'used_cpu_user'].reduce(
    (n, f) => n + Number(new RegExp(`${f}:([\\d.]+)`).exec(info)?.[1] ?? 0),
    0,
  );
}
const usedMemory = async (redis: Redis): Promise<number> =>
  Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);

/** A healthy cluster: NODES ready nodes, nothing stuck. */
const HEALTHY = parseScenario(
  {
    name: 'healthy',
    objects: Array.from({ length: NODES }, (_, i) => ({
      kind: 'Node',
      metadata: { name: `node-${String(i + 1).padStart(2, '0')}`, creationTimestamp: '-30d' },
    })),
  },
  'bench healthy cluster',
);

interface Member {
  name: string;
  sim: Simulator;
  serve: RunningServe;
  app: DemoCommandApp;
}

/** K members on `url` under `base`, each on `scenario`; every one synced before this returns. */
async function startMembers(k: number, url: string, base: string, incident: boolean, slack: TerminalSlack) {
  const scenario = incident
    ? await loadScenario(fileURLToPath(new URL('../../../scenarios/propagation-loss.yaml', import.meta.url)))
    : HEALTHY;
  const members: Member[] = [];
  const answers: string[] = [];
  for (let i = 0; i < k; i++) {
    const name = `bench-${String(i + 1).padStart(2, '0')}`;
    const sim = await startSimulator({ scenario });
    const config = loadConfig({
      env: {
        SLACK_BOT_TOKEN: 'xoxb-bench',
        SLACK_APP_TOKEN: 'xapp-bench',
        SLACK_CHANNEL: 'C0BENCH',
        REDIS_URL: url,
        RWX_REDIS_PREFIX: base,
        RWX_FLEET: 'true',
        RWX_CLUSTER_NAME: name,
        RWX_GROUP_WAIT: '1s',
        RWX_ALLOWED_CHANNELS: '*',
      },
    });
    const app = new DemoCommandApp();
    const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
    const serve = await runServe(config, log, {
      source: new KubeClusterSource(conn),
      slack,
      bolt: false,
      commands: { app: app.asApp(), sender: demoAnswers(slack, (t) => answers.push(t)) },
      port: 0,
    });
    await serve.watcher.waitSynced(30_000);
    members.push({ name, sim, serve, app });
  }
  return { members, answers };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

/** One run: K clusters, idle or in an incident; prints the per-cluster cost and (idle) the routing latency. */
async function run(k: number, incident: boolean): Promise<void> {
  const { url, redis, proc } = await ownRedis();
  const base = `rwx-bench-${randomBytes(3).toString('hex')}`;
  const slack = new TerminalSlack({ out: nowhere, stamp: () => '' });
  const memBefore = await usedMemory(redis);
  const { members, answers } = await startMembers(k, url, base, incident, slack);
  try {
    await sleep(3_000); // every member's first names, heartbeat and (incident) root are out
    await redis.config('RESETSTAT');
    const t0 = Date.now();
    const cpu0 = await cpuSeconds(redis);
    await sleep(WINDOW_MS);
    const secs = (Date.now() - t0) / 1000;
    const byCommand = await calls(redis);
    const perSec = byCommand.reduce((n, [, c]) => n + c, 0) / secs;
    const clients = Number(/connected_clients:(\d+)/.exec(await redis.info('clients'))?.[1] ?? 0);
    const cpu = (await cpuSeconds(redis)) - cpu0;
    const mem = (await usedMemory(redis)) - memBefore;
    const names = Number(await redis.memory('USAGE', `${base}:fleet:names:${members[0]!.name}:nodes`));
    const what = incident ? 'incident' : 'idle';
    console.log(
      `${String(k).padStart(2)} clusters, ${what.padEnd(8)}: ${(perSec / k).toFixed(1).padStart(6)} commands/s per cluster ` +
        `(${perSec.toFixed(0)} in all), ${(mem / k / 1024).toFixed(0)} KiB per cluster (${(mem / 1048576).toFixed(1)} MiB in all); ` +
        `Redis CPU ${((cpu / secs / k) * 100).toFixed(2)}% of a core per cluster; ` +
        `${(clients / k).toFixed(1)} connections per cluster; names: ${(names / (NODES + 1)).toFixed(0)} B per node name`,
    );
    const top = byCommand.slice(0, 4).map(([c, n]) => `${c} ${(n / secs / k).toFixed(1)}/s`);
    console.log(`${' '.repeat(22)}most called, per cluster: ${top.join(', ')}`);
    if (incident) return;
    const took: number[] = [];
    for (let i = 0; i < ROUTED; i++) {
      const owner = members[1 + (i % (k - 1))]!;
      const before = answers.length;
      const t = performance.now();
      await members[0]!.app.deliver(`drain node-19 @${owner.name}`, 'C0BENCH', slack);
      while (answers.length === before) await sleep(1);
      took.push(performance.now() - t);
      if (!answers[before]!.startsWith(`From cluster *${owner.name}*`))
        throw new Error(`not routed: ${answers[before]}`);
    }
    console.log(
      `${String(k).padStart(2)} clusters, routing: /rwx drain node-19 @<another cluster> answered in ` +
        `${median(took).toFixed(0)} ms median, ${p95(took).toFixed(0)} ms p95 (${ROUTED} commands)`,
    );
  } finally {
    for (const m of members) await m.serve.stop().catch(() => undefined);
    for (const m of members) await m.sim.stop().catch(() => undefined);
    redis.disconnect();
    proc.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  console.log(
    `\nfleet: one Redis (7.0, own process) shared by K simulated clusters; window ${WINDOW_MS / 1000} s; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  for (const k of SIZES) await run(k, false);
  await run(SIZES[0]!, true);
}

await main();
