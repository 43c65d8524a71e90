// The composition of `rwx serve` (and `rwx demo`): watcher -> work queue -> pipeline -> notifier, a tick for the
// watchdog and time-based re-evaluation, the ops HTTP server, and an orderly stop. Entry points (src/cli) build
// the parts that touch the outside (cluster source, notifier with Redis and Slack, logger) and hand them in.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';
import type { Incident } from '../domain/incident.js';
import type { ClusterSource } from '../watch/source.js';
import { realTimers, type Timers } from '../watch/timers.js';
import { ClusterWatcher, type Projector } from '../watch/watcher.js';
import { closeServer, listen, opsHandler, readiness, type ReadyCheck } from './http.js';
import type { ServeMetrics } from './metrics.js';
import { Pipeline, type Stages } from './pipeline.js';

/** The notifier as the pipeline uses it: incidents in (the full current set), close on shutdown. */
export interface NotifierPort {
  submit(incidents: Incident[], now: number): Promise<unknown>;
  close(): Promise<void>;
}

/** Everything startServe wires together. */
export interface ServeParts {
  source: ClusterSource;
  stages: Stages;
  notifier: NotifierPort;
  project: Projector;
  log: Logger;
  metrics: ServeMetrics;
  /** Watchdog: restart a watch silent this long (config timers.watchIdleTimeoutMs). */
  watchIdleMs: number;
  clock?: Clock;
  /**
   * The notifier's clock, when it differs from the cluster's (the demo: the simulator runs faster than the wall
   * clock, and group timers are wall time). Submissions are stamped with it. Default: `clock`.
   */
  notifyClock?: Clock;
  timers?: Timers;
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
  /** Incidents open before this process started (the store's unresolved records): see Pipeline.openKeys. */
  openKeys?: readonly string[];
  /** Reflector tunables for tests (backoff, page size). */
  reflector?: ConstructorParameters<typeof ClusterWatcher>[0]['reflector'];
}

/** A running pipeline. */
export interface RunningServe {
  watcher: ClusterWatcher;
  pipeline: Pipeline;
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
  const watcher = newWatcher(parts, clock);
  const pipeline = newPipeline(parts, watcher, clock);
  parts.metrics.queueDepthFrom({ work: () => watcher.queue.length });
  parts.metrics.watchStatusFrom(() => watcher.status());

  let alive = true;
  const checks = readyChecks(watcher, parts.checks ?? []);
  const fallback = parts.fallback ? { fallback: parts.fallback } : {};
  const ops = opsHandler({ registry: parts.metrics.registry, checks, alive: () => alive, ...fallback });
  const http = parts.port === undefined ? undefined : await listen(ops, parts.port);
  if (http) log.info({ port: http.port }, 'serving /healthz /readyz /metrics');

  const tick = async (): Promise<void> => {
    const restarted = watcher.tick(clock.now());
    if (restarted) log.debug({ restarted }, 'watchdog restarted watches');
    await pipeline.tick(clock.now());
  };
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
    ...(http ? { port: http.port } : {}),
    notReady: () => readiness(checks),
  };
}

function newWatcher(parts: ServeParts, clock: Clock): ClusterWatcher {
  return new ClusterWatcher({
    source: parts.source,
    project: parts.project,
    clock,
    timers: parts.timers ?? realTimers,
    log: parts.log,
    metrics: parts.metrics.watch(),
    reflector: { stallMs: parts.watchIdleMs, ...parts.reflector },
  });
}

// The pipeline over the watcher's cache; it correlates only once every watch has synced. One evaluation = the
// correlated incidents handed to the notifier (records written, jobs enqueued), counted as it succeeds or fails.
function newPipeline(parts: ServeParts, watcher: ClusterWatcher, clock: Clock): Pipeline {
  const { metrics, notifyClock } = parts;
  const sink = {
    submit: async (inc: Incident[], now: number) => {
      try {
        await parts.notifier.submit(inc, notifyClock ? notifyClock.now() : now);
      } catch (e) {
        metrics.evaluated(false);
        throw e;
      }
      metrics.evaluated(true);
    },
  };
  const gauges = metrics.pipeline();
  const open = new Set(parts.openKeys ?? []);
  return new Pipeline(
    watcher.index,
    watcher.queue,
    parts.stages,
    sink,
    clock,
    gauges,
    () => watcher.synced(),
    undefined,
    open,
  );
}

// Watches synced and the API reachable, then the caller's checks (Redis).
function readyChecks(watcher: ClusterWatcher, extra: readonly ReadyCheck[]): ReadyCheck[] {
  const unsynced = (): string =>
    watcher
      .status()
      .filter((s) => !s.synced)
      .map((s) => s.kind)
      .join(', ');
  return [
    { name: 'watches', probe: () => watcher.synced() || `not synced: ${unsynced()}` },
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
