// Fault-suite harness: one world (test/support/world.ts: simulated cluster, fake Slack, Redis prefix) and any number
// of `rwx serve` replicas in process, each reading the cluster as its own simulator client (so a fault can single one
// out), on a shared ManualClock. Time moves only through advance(), which ticks every running replica.
import type { Simulator } from '@rwx/kube-sim';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { connect } from '../../src/kube/index.js';
import type { RunningServe, ServeParts } from '../../src/serve/app.js';
import { runServe } from '../../src/serve/main.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { REDIS_URL, openWorld } from '../support/world.js';
import { memoryLogger } from '../serve/harness.js';

/** What a replica may be started with. */
export interface ReplicaOptions {
  /** RWX_WATCH_IDLE_TIMEOUT for this replica (default: the product default). */
  watchIdle?: string;
  /** Extra startServe parts (e.g. a lease stand-in). */
  parts?: Partial<ServeParts>;
  /** REDIS_URL for this replica (default the shared one). */
  redisUrl?: string;
  /** Evaluator lease TTL (default the product's 10 s). */
  leaseTtlMs?: number;
  /** More settings (e.g. RWX_BLIND_AFTER). */
  env?: Record<string, string>;
}

/** The cluster, Slack and Redis shared by the replicas. */
export interface Replicas {
  clock: ManualClock;
  sim: Simulator;
  slack: FakeSlack;
  prefix: string;
  lines: string[];
  running: Map<string, RunningServe>;
  /** Starts replica `name` (its own simulator client) and waits for its first list. */
  start(name: string, o?: ReplicaOptions): Promise<RunningServe>;
  /** Stops replica `name` in order (SIGTERM). */
  stop(name: string): Promise<void>;
  /** Moves sim time, then ticks every running replica in start order. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the simulator for `scenario` and the fake Slack; replicas come with start(). */
export async function replicas(
  scenario: string,
  timers = { groupWait: '200ms', groupInterval: '300ms' },
  /** The Redis to clean up afterwards (default the shared one). */
  redisUrl = REDIS_URL,
): Promise<Replicas> {
  const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
  const world = await openWorld({ name: 'fault', scenario, clock, timers, redisUrl: () => redisUrl });
  const { sim, slack, prefix } = world;
  const { log, lines } = memoryLogger();
  const clients = new Map<string, string>();
  const running = new Map<string, RunningServe>();
  const r: Replicas = {
    clock,
    sim,
    slack,
    prefix,
    lines,
    running,
    async start(name, o = {}) {
      if (!clients.has(name)) clients.set(name, (await sim.addClient(name)).kubeconfigPath);
      const config = loadConfig({
        env: world.env({
          REDIS_URL: o.redisUrl ?? REDIS_URL,
          ...(o.watchIdle ? { RWX_WATCH_IDLE_TIMEOUT: o.watchIdle } : {}),
          ...o.env,
        }),
      });
      const conn = await connect({ kubeconfig: clients.get(name)!, env: {} });
      const serve = await runServe(config, log.child({ replica: name }), {
        source: new KubeClusterSource(conn),
        bolt: false,
        port: 0,
        parts: { clock, tickMs: 0, ...o.parts },
        notifier: { backoffMs: 50, lockTtlMs: 2000 },
        ...(o.leaseTtlMs ? { leaseTtlMs: o.leaseTtlMs } : {}),
      });
      running.set(name, serve);
      await serve.watcher.waitSynced(10_000);
      await serve.tick();
      return serve;
    },
    async stop(name) {
      await running.get(name)?.stop();
      running.delete(name);
    },
    async advance(ms) {
      await sim.advance(ms);
      await new Promise((res) => setTimeout(res, 50)); // the watch events of the advance arrive first
      for (const s of running.values()) await s.tick();
    },
    async close() {
      for (const name of [...running.keys()]) await r.stop(name);
      await world.close();
    },
  };
  return r;
}

/** The stuck-pod count each edit (and the post) of a root showed, in order. */
export function stuckCounts(slack: FakeSlack, ts: string): number[] {
  const shown = [
    ...slack.callsOf('chat.postMessage').filter((c) => !c.args.thread_ts && c.handled),
    ...slack.callsOf('chat.update').filter((c) => c.args.ts === ts && c.handled),
  ];
  return shown
    .map((c) => /(\d+) stuck pods?/.exec(String(c.args.text ?? '') + JSON.stringify(c.args.blocks ?? ''))?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
}
