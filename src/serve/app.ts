// The composition of `rwx serve` (and `rwx demo`): watcher -> work queue -> pipeline (src/pipeline: sync, then
// submit through the lease gate to the notifier), a tick for the watchdog and time-based re-evaluation, the ops
// HTTP server, and an orderly stop. The caller builds the watcher first (createWatcher), then what reads its cache
// (the notifier's resolution facts, the node agents), and hands them in.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';
import type { ClusterSource } from '../watch/source.js';
import { realTimers, type Timers } from '../watch/timers.js';
import { ClusterWatcher, type Projector } from '../watch/watcher.js';
import { closeServer, listen, opsHandler, readiness, type ReadyCheck } from './http.js';
import type { ServeMetrics } from './metrics.js';
import type { EvaluatorLease } from './lease.js';
import { AskedNodes, type OpenIncidentNodes } from '../pipeline/agents.js';
import { Pipeline, type Sync } from '../pipeline/pipeline.js';
import { submitStep, whenRedisDown, type NotifierPort, type SubmitObserver } from '../pipeline/submit.js';
import { NodeProofs, agentsInIndex, type NodeProofOptions } from './proof.js';
import { CORRELATE } from '../watch/keys.js';
import { REFLECTOR_DEFAULTS } from '../watch/reflector.js';
import { formatAge } from '../domain/duration.js';

/** What the watcher is built from (createWatcher). */
export interface WatcherParts {
  source: ClusterSource;
  project: Projector;
  log: Logger;
  metrics: ServeMetrics;
  /** Watchdog: restart a watch silent this long (config timers.watchIdleTimeoutMs). */
  watchIdleMs: number;
  /** The cap of the watches' backoff (config timers.retryMaxMs); default RWX_RETRY_MAX's. */
  retryMaxMs?: number;
  clock?: Clock;
  timers?: Timers;
  /** Reflector tunables for tests (backoff, page size). */
  reflector?: ConstructorParameters<typeof ClusterWatcher>[0]['reflector'];
}

/** Everything startServe wires together. */
export interface ServeParts {
  /** The cluster's cache and work queue (createWatcher), not started yet. */
  watcher: ClusterWatcher;
  sync: Sync;
  notifier: NotifierPort;
  log: Logger;
  metrics: ServeMetrics;
  clock?: Clock;
  /**
   * The notifier's clock, when it differs from the cluster's (the demo: the simulator runs faster than the wall
   * clock, and group timers are wall time). Submissions are stamped with it. Default: `clock`.
   */
  notifyClock?: Clock;
  /** Period of the watchdog + re-evaluation tick; 0 = never (tests call tick()). Default 1000, so a pod crossing
   * stuckAfter reaches the notifier within a second (post within group_wait + 2s). */
  tickMs?: number;
  /** Extra readiness checks (Redis). Watches synced and API reachable are always checked. */
  checks?: ReadyCheck[];
  /** Port for /healthz, /readyz, /metrics; undefined = no HTTP server. */
  port?: number;
  /** Other paths on the same port (Bolt's HTTP receiver). */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Closed last, in order, on stop (Bolt app, Redis connections). */
  closers?: { name: string; close: () => Promise<unknown> }[];
  /** The store's unresolved incidents (Pipeline.assumeOpen): read at start and when this process takes over. */
  openKeys?: () => Promise<readonly string[]>;
  /** The nodes of the store's unresolved incidents (pipeline/agents.ts): asked again when they clear. */
  openNodes?: OpenIncidentNodes;
  /** Told after each recorded evaluation (a fleet member's correlator). */
  observe?: SubmitObserver;
  /** One active evaluator per cluster (lease.ts): without one, this process always submits (demo, one replica). */
  lease?: EvaluatorLease;
  /** The node agents (nodeProofs), asked about incident nodes (docs/agent.md), the same the sync reads; or none. */
  proofs?: NodeProofs;
  /** The dead-man notice (dead-man.ts), told on every tick whether the cluster is seen; undefined: none. */
  deadMan?: { check(seen: boolean, now: number): Promise<void> };
  /** The Redis notice (redis-notice.ts), told on every tick after the evaluation; undefined: none. */
  redisNotice?: { check(now: number): Promise<void> };
}

/** A running pipeline. */
export interface RunningServe {
  watcher: ClusterWatcher;
  pipeline: Pipeline;
  /** The node agents' answers, when they are asked (/rwx node reads them). */
  proofs?: NodeProofs;
  /** Bound port of the ops server, when one was asked for. */
  port?: number;
  /** The /healthz /readyz /metrics handler, for mounting on another server (Bolt's customRoutes in HTTP mode). */
  ops: (req: IncomingMessage, res: ServerResponse) => void;
  /** Adds something to close on stop, before the closers given at start (e.g. the Bolt app). */
  addCloser(name: string, close: () => Promise<unknown>): void;
  /** One watchdog + re-evaluation round (what the interval runs). */
  tick(): Promise<void>;
  /** Readiness failures ("name: reason"), empty when ready. */
  notReady(): Promise<string[]>;
  /** Stops in order: tick, watches, pipeline, notifier, HTTP, closers. Idempotent. */
  stop(): Promise<void>;
  /** Resolves when the pipeline loop ends (after stop, or on a fatal error, which it rejects with). */
  done: Promise<void>;
}

/** Starts the pipeline; the caller awaits `watcher.waitSynced` if it needs the first list. */
export async function startServe(parts: ServeParts): Promise<RunningServe> {
  const clock = parts.clock ?? systemClock;
  const log = parts.log;
  const { watcher, proofs } = parts;
  const turn = evaluatorTurn(parts, watcher);
  proofs?.onUpdate(() => watcher.queue.add(CORRELATE));
  const pipeline = newPipeline(parts, clock, turn.active);
  turn.pipeline = pipeline;
  if (parts.openKeys) pipeline.assumeOpen(await parts.openKeys());
  parts.metrics.queueDepthFrom({ work: () => watcher.queue.length });
  parts.metrics.watchStatusFrom(() => watcher.status());

  let alive = true;
  const checks = readyChecks(watcher, parts.checks ?? []);
  const fallback = parts.fallback ? { fallback: parts.fallback } : {};
  const ops = opsHandler({ registry: parts.metrics.registry, checks, alive: () => alive, ...fallback });
  const http = parts.port === undefined ? undefined : await listen(ops, parts.port);
  if (http) log.info({ port: http.port }, 'serving /healthz /readyz /metrics');

  const tick = serveTick(parts, turn, pipeline, clock);
  const interval = parts.tickMs === 0 ? undefined : everyTick(tick, parts.tickMs ?? 1000, log);
  watcher.start();
  const done = pipeline.run().catch((e: unknown) => {
    log.error({ err: e }, 'pipeline stopped');
    throw e;
  });

  const closers = [...(parts.closers ?? [])];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      alive = false;
      if (interval) clearInterval(interval);
      watcher.stop();
      await done.catch(() => undefined);
      await pipeline.flush().catch((e: unknown) => log.warn({ err: e }, 'last flush failed'));
      await parts.lease?.release(); // the standby takes over at its next tick, not after the TTL
      await parts.notifier.close().catch((e: unknown) => log.warn({ err: e }, 'notifier close failed'));
      if (http) await closeServer(http.server);
      for (const c of closers)
        await c.close().catch((e: unknown) => log.warn({ err: e, what: c.name }, 'close failed'));
    })();
    return stopping;
  };

  return {
    watcher,
    pipeline,
    tick,
    stop,
    done,
    ops,
    addCloser: (name, close) => closers.unshift({ name, close }),
    ...(proofs ? { proofs } : {}),
    ...(http ? { port: http.port } : {}),
    notReady: () => readiness(checks),
  };
}

/** The cluster's cache and work queue, watched once startServe starts it. */
export function createWatcher(parts: WatcherParts): ClusterWatcher {
  return new ClusterWatcher({
    source: parts.source,
    project: parts.project,
    clock: parts.clock ?? systemClock,
    timers: parts.timers ?? realTimers,
    log: parts.log,
    metrics: parts.metrics.watch(),
    // A list page gets as long as a silent watch does (the idle limit), at most the reflector's default: an API
    // server that accepts and never answers is then found by the same limit, in tests with short settings too.
    reflector: {
      stallMs: parts.watchIdleMs,
      listTimeoutMs: Math.min(parts.watchIdleMs, REFLECTOR_DEFAULTS.listTimeoutMs),
      ...(parts.retryMaxMs === undefined ? {} : { backoffMaxMs: parts.retryMaxMs }),
      ...parts.reflector,
    },
  });
}

/** The node agents, found among the watched pods unless `opts.locate` says otherwise (the demo's). */
export function nodeProofs(watcher: ClusterWatcher, opts: Partial<NodeProofOptions> = {}): NodeProofs {
  return new NodeProofs({ locate: agentsInIndex(() => watcher.index), ...opts });
}

// The pipeline over the watcher's cache; it correlates only once every watch has synced. One evaluation = the
// correlated incidents handed to the notifier (records written, jobs enqueued), counted as it succeeds or fails.
function newPipeline(parts: ServeParts, clock: Clock, active: () => Promise<boolean>): Pipeline {
  const { metrics, watcher } = parts;
  const sink = submitStep({
    notifier: parts.notifier,
    active,
    taken: async () => (await parts.lease?.taken()) ?? false,
    evaluated: (outcome) => metrics.evaluated(outcome),
    index: watcher.index,
    ...(parts.notifyClock ? { notifyClock: parts.notifyClock } : {}),
    ...(parts.proofs ? { asked: new AskedNodes(parts.proofs, parts.openNodes) } : {}),
    ...(parts.observe ? { observe: parts.observe } : {}),
  });
  const gauges = metrics.pipeline();
  const ready = (): boolean => watcher.synced();
  return new Pipeline(watcher.index, watcher.queue, parts.sync, sink, clock, gauges, ready);
}

// One round: the watchdog, the lease, the dead-man notice, time-based re-evaluation, then the Redis notice.
function serveTick(parts: ServeParts, turn: EvaluatorTurn, pipeline: Pipeline, clock: Clock): () => Promise<void> {
  const { watcher, log } = parts;
  return async () => {
    const restarted = watcher.tick(clock.now());
    if (restarted) log.debug({ restarted }, 'watchdog restarted watches');
    await turn.renew();
    await parts.deadMan?.check(await turn.seen(), clock.now());
    try {
      await pipeline.tick(clock.now());
    } finally {
      await parts.redisNotice?.check(clock.now());
    }
  };
}

/** The lease side of the serve loop: renewed every tick, checked before every submit. */
interface EvaluatorTurn {
  pipeline?: Pipeline;
  renew(): Promise<void>;
  active(): Promise<boolean>;
  /** Whether the cluster is seen: this replica's view is current, or some replica holds the lease (and so is). */
  seen(): Promise<boolean>;
}

// Holds the lease while this process's view is known to be current (watcher.current: every watch synced and
// heard from lately, the API answering); on
// taking over, the store's open incidents are assumed open so the first pass keeps them as the last holder had them.
function evaluatorTurn(parts: ServeParts, watcher: ClusterWatcher): EvaluatorTurn {
  const lease = parts.lease;
  let held = lease === undefined;
  if (lease) parts.metrics.evaluatorActiveIs(false);
  const t: EvaluatorTurn = {
    async renew() {
      if (!lease) return;
      const now = await lease.renew(watcher.current());
      if (now === held) return;
      held = now;
      parts.metrics.evaluatorActiveIs(now);
      parts.log.info(
        { lease: lease.id },
        now ? 'evaluator lease taken: this replica evaluates' : 'evaluator lease given up: standby',
      );
      // Redis away: taken over with no records read, as at a start with an empty store; anything else is a fault.
      if (now && parts.openKeys) t.pipeline?.assumeOpen(await parts.openKeys().catch(whenRedisDown([])));
    },
    active: async () => (lease ? held && (await lease.holds()) : true),
    seen: async () => watcher.current() || (lease !== undefined && (await lease.taken())),
  };
  return t;
}

// Watches synced and the API reachable, then the caller's checks (Redis).
function readyChecks(watcher: ClusterWatcher, extra: readonly ReadyCheck[]): ReadyCheck[] {
  const unsynced = (): string =>
    watcher
      .status()
      .filter((s) => !s.synced)
      .map((s) => s.kind)
      .join(', ');
  // A watch silent past the idle limit: its kind's cache may be stale, so the bot is not ready (it names them).
  const stalled = (): true | string => {
    const s = watcher.stalled();
    if (s.length === 0) return true;
    return `stalled: ${s.map((k) => `${k.kind} (silent ${formatAge(k.silentMs)})`).join(', ')}`;
  };
  return [
    { name: 'watches', probe: () => (watcher.synced() ? stalled() : `not synced: ${unsynced()}`) },
    { name: 'kubernetes', probe: () => watcher.reachable() || 'API server unreachable' },
    ...extra,
  ];
}

// Runs `tick` every `ms`, skipping a beat while the last one still runs (a slow submit must not stack ticks).
function everyTick(tick: () => Promise<void>, ms: number, log: Logger): NodeJS.Timeout {
  let ticking = false;
  return setInterval(() => {
    if (ticking) return;
    ticking = true;
    tick()
      .catch((e: unknown) => log.error({ err: e }, 'tick failed'))
      .finally(() => (ticking = false));
  }, ms);
}
