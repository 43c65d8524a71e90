// Highly available Redis of the test's own, real processes on loopback: a primary with two replicas watched by three
// sentinels, or a Redis Cluster of three primaries (each with a replica). Timers are scaled so a failover takes
// about a second: down-after 500 ms for the sentinels, a node timeout of 1 s for the cluster. No persistence, and
// diskless sync without its 5 s default delay, so a replica (re)syncs at once.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { until } from '../support/until.js';
import { freePort } from '../support/free-port.js';

/** One redis-server (or sentinel) process of a set. */
export interface Node {
  port: number;
  proc: ChildProcess;
  /** kill -9, awaited. */
  kill(): Promise<void>;
}

const DATA = ['--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0', '--bind', '127.0.0.1'];

async function spawnNode(args: string[], port: number): Promise<Node> {
  const proc = spawn('redis-server', args, { stdio: 'ignore' });
  await until(async () => (await ask(port, ['PING']).catch(() => undefined)) === 'PONG', `redis on ${port}`, 20_000);
  return {
    port,
    proc,
    kill: () =>
      new Promise<void>((r) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return r();
        proc.once('exit', () => r());
        proc.kill('SIGKILL');
      }),
  };
}

/** One command on a short-lived connection (no retries): its answer. */
export async function ask(port: number, cmd: string[]): Promise<unknown> {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await r.call(cmd[0]!, ...cmd.slice(1));
  } finally {
    r.disconnect();
  }
}

/** A primary, two replicas and three sentinels monitoring it as `name`. */
export interface SentinelSet {
  name: string;
  primary: Node;
  replicas: Node[];
  sentinels: Node[];
  /** REDIS_SENTINELS for the bot. */
  env: Record<string, string>;
  /** The port the sentinels name as primary now. */
  primaryPort(): Promise<number>;
  /** Subscribes to the sentinels' +switch-master; `at` resolves with the time (ms) the first announces it. */
  watchSwitch(): Promise<{ at: Promise<number> }>;
  /** Replication stops: each replica fails to authenticate to the primary, so what the primary writes is its own. */
  cutReplication(): Promise<void>;
  /** Replication can resume (to whichever primary the sentinels name). */
  restoreReplication(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the set and waits until every sentinel knows both replicas and the two other sentinels. */
export async function sentinelSet(name = 'rwxm', downAfterMs = 500): Promise<SentinelSet> {
  const dir = mkdtempSync(join(tmpdir(), 'rwx-sentinel-'));
  const pp = await freePort();
  const primary = await spawnNode(['--port', String(pp), '--dir', dir, ...DATA], pp);
  const replicas: Node[] = [];
  for (let i = 0; i < 2; i++) {
    const p = await freePort();
    const args = ['--port', String(p), '--dir', dir, '--replicaof', '127.0.0.1', String(pp), ...DATA];
    replicas.push(await spawnNode(args, p));
  }
  const sentinels: Node[] = [];
  for (let i = 0; i < 3; i++) {
    const p = await freePort();
    const conf = join(dir, `sentinel-${p}.conf`);
    writeFileSync(
      conf,
      [
        `port ${p}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${pp} 2`,
        `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 2`,
      ].join('\n'),
    );
    sentinels.push(await spawnNode([conf, '--sentinel'], p));
  }
  const known = async (s: Node): Promise<boolean> =>
    ((await ask(s.port, ['SENTINEL', 'REPLICAS', name])) as unknown[]).length === 2 &&
    ((await ask(s.port, ['SENTINEL', 'SENTINELS', name])) as unknown[]).length === 2;
  await until(async () => (await Promise.all(sentinels.map(known))).every(Boolean), 'sentinels know the set', 30_000);
  const all = [primary, ...replicas, ...sentinels];
  return {
    name,
    primary,
    replicas,
    sentinels,
    env: {
      REDIS_SENTINELS: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
      REDIS_SENTINEL_NAME: name,
    },
    primaryPort: async () =>
      Number(((await ask(sentinels[0]!.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name])) as string[])[1]),
    watchSwitch: () => switchedAt(sentinels.map((n) => n.port)),
    cutReplication: async () => {
      for (const r of replicas) {
        await ask(r.port, ['CONFIG', 'SET', 'masterauth', 'not-the-password']);
        await ask(r.port, ['CLIENT', 'KILL', 'TYPE', 'master']);
      }
      const down = async (r: Node): Promise<boolean> =>
        /master_link_status:down/.test(String(await ask(r.port, ['INFO', 'replication'])));
      await until(async () => (await Promise.all(replicas.map(down))).every(Boolean), 'replication cut');
    },
    restoreReplication: async () => {
      for (const r of replicas) await ask(r.port, ['CONFIG', 'SET', 'masterauth', '']).catch(() => undefined);
    },
    stop: async () => void (await Promise.all(all.map((n) => n.kill()))),
  };
}

/** The time the first of `ports` (sentinels) publishes +switch-master, subscribed before this returns. */
async function switchedAt(ports: number[]): Promise<{ at: Promise<number> }> {
  const subs = ports.map((port) => new Redis({ port, host: '127.0.0.1', lazyConnect: true }));
  for (const s of subs) s.on('error', () => undefined);
  await Promise.all(subs.map((s) => s.connect().then(() => s.subscribe('+switch-master'))));
  const at = new Promise<number>((r, reject) => {
    subs.forEach((s) => s.on('message', () => r(Date.now())));
    setTimeout(() => reject(new Error('no +switch-master within 60 s')), 60_000).unref();
  });
  return { at: at.finally(() => subs.forEach((s) => s.disconnect())) };
}

/** A port whose cluster bus port (+10000) is free and valid too. */
async function clusterPort(): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (p + 10_000 > 65_535) continue;
    const s = createServer();
    const free = await new Promise<boolean>((r) => {
      s.once('error', () => r(false));
      s.listen(p + 10_000, '127.0.0.1', () => s.close(() => r(true)));
    });
    if (free) return p;
  }
}

/** A Redis Cluster: three primaries, each with one replica. */
export interface ClusterSet {
  nodes: Node[];
  /** REDIS_CLUSTER_NODES for the bot. */
  env: Record<string, string>;
  /** The node serving `slot` as primary now, by CLUSTER SLOTS on any live node. */
  primaryOf(slot: number): Promise<number>;
  stop(): Promise<void>;
}

/** Starts six nodes, joins them with `redis-cli --cluster create` and waits for cluster_state:ok everywhere. */
export async function clusterSet(): Promise<ClusterSet> {
  const dir = mkdtempSync(join(tmpdir(), 'rwx-cluster-'));
  const nodes: Node[] = [];
  for (let i = 0; i < 6; i++) {
    const p = await clusterPort();
    const own = mkdtempSync(join(dir, 'n'));
    const args = ['--port', String(p), '--dir', own, '--cluster-enabled', 'yes', '--cluster-node-timeout', '1000'];
    nodes.push(await spawnNode([...args, ...DATA], p));
  }
  const addrs = nodes.map((n) => `127.0.0.1:${n.port}`);
  const made = spawnSync('redis-cli', ['--cluster', 'create', ...addrs, '--cluster-replicas', '1', '--cluster-yes'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (made.status !== 0) throw new Error(`redis-cli --cluster create failed: ${made.stdout}${made.stderr}`);
  const ok = async (n: Node): Promise<boolean> =>
    /cluster_state:ok/.test(String(await ask(n.port, ['CLUSTER', 'INFO'])));
  await until(async () => (await Promise.all(nodes.map(ok))).every(Boolean), 'cluster_state:ok', 30_000);
  const live = (): Node[] => nodes.filter((n) => n.proc.exitCode === null && n.proc.signalCode === null);
  return {
    nodes,
    env: { REDIS_CLUSTER_NODES: addrs.join(',') },
    primaryOf: async (slot) => {
      const ranges = (await ask(live()[0]!.port, ['CLUSTER', 'SLOTS'])) as [number, number, [string, number]][];
      const r = ranges.find(([from, to]) => slot >= from && slot <= to);
      return r ? Number(r[2][1]) : 0;
    },
    stop: async () => void (await Promise.all(nodes.map((n) => n.kill()))),
  };
}
