// ClusterWatcher: one reflector per kind, feeding the ClusterIndex (projected objects only) and a WorkQueue of
// dirty keys. It also owns the health picture: synced, API reachability (reported once per outage, not per
// retry), restarts, and the watchdog tick.
import type { Clock } from '../domain/clock.js';
import { ClusterIndex } from '../domain/cluster-index.js';
import { KINDS, type KindKey } from '../domain/kinds.js';
import type { KubeObject } from '../domain/objects.js';
import { objectKey } from '../domain/refs.js';
import type { ObjectsByKind } from '../domain/snapshot.js';
import type { RwxError } from '../errors.js';
import { formatAge } from '../domain/duration.js';
import { dirtyKeys } from './keys.js';
import {
  REFLECTOR_DEFAULTS,
  Reflector,
  type ReflectorOptions,
  type ReflectorSink,
  type RestartReason,
} from './reflector.js';
import type { ClusterSource } from './source.js';
import { Deferred, deferring } from './deferred.js';
import { realTimers, type Timers } from './timers.js';
import { WorkQueue } from './work-queue.js';

/** The logging calls the watcher makes (pino's Logger satisfies it). */
export interface WatchLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Counters the watcher reports into (the serve metrics implement it). */
export interface WatchMetrics {
  restart(kind: KindKey, reason: RestartReason): void;
  apiReachable(up: boolean): void;
  event(kind: KindKey): void;
}

/** Reduces an API object to the fields the bot reads (src/kube's projection in production). */
export type Projector = (kind: KindKey, obj: KubeObject) => KubeObject;

/** What a ClusterWatcher needs; only `source` is required. */
export interface WatcherOptions {
  source: ClusterSource;
  kinds?: readonly KindKey[];
  index?: ClusterIndex;
  queue?: WorkQueue;
  project?: Projector;
  clock?: Clock;
  timers?: Timers;
  log?: WatchLog;
  metrics?: WatchMetrics;
  reflector?: Partial<ReflectorOptions>;
}

/**
 * The kinds `rwx serve` watches: every kind the CLI reads, Leases included (the preflight's leader check, so `/rwx
 * triage` sees what `rwx triage` sees); node heartbeat Leases are left out by the kind's fieldSelector.
 */
export const WATCHED_KINDS: readonly KindKey[] = Object.keys(KINDS) as KindKey[];

/** Why a watched kind is unreadable before its first list completes. */
export const NOT_SYNCED = 'watch not synced yet';

/** Why a synced kind is unreadable while its watch is silent (half-open, or the API server blackholed). */
export const SILENT = 'watch silent';

/**
 * Failures after which the cache no longer shows a kind as it is, so the index marks it unreadable until the kind
 * is healthy again: not allowed to read it, or the API server not answering. Other errors (a 500, a watch that
 * closed) are retried while the cache still follows the cluster closely enough.
 */
const BLIND_CODES: ReadonlySet<string> = new Set([
  'KUBE_FORBIDDEN',
  'KUBE_UNAUTHORIZED',
  'KUBE_UNREACHABLE',
  'TIMEOUT',
]);

const silentLog: WatchLog = { info: () => undefined, warn: () => undefined };

/** Mirrors the cluster into `index` and marks work keys dirty in `queue`. */
export class ClusterWatcher {
  readonly index: ClusterIndex;
  readonly queue: WorkQueue;
  private readonly reflectors: Reflector[];
  private readonly project: Projector;
  private readonly clock: Clock;
  private readonly log: WatchLog;
  private readonly metrics: WatchMetrics | undefined;
  /** Keys delivered by a list in progress; null when the kind held nothing as it began (nothing can be gone). */
  private readonly seen = new Map<KindKey, Set<string> | null>();
  private readonly failing = new Map<KindKey, RwxError>();
  /** Kinds the watchdog marked unreadable because their watch went silent. */
  private readonly silent = new Set<KindKey>();
  private unreachableSince: number | undefined;
  private readonly keyBuf: string[] = [];
  /** Changes that came while a reader held the index, in arrival order (see `apply`). */
  private readonly deferred = new Deferred();

  constructor(opts: WatcherOptions) {
    this.index = opts.index ?? new ClusterIndex().indexEverything();
    this.queue = opts.queue ?? new WorkQueue();
    this.project = opts.project ?? ((_k, o) => o);
    this.clock = opts.clock ?? { now: () => Date.now() };
    this.log = opts.log ?? silentLog;
    this.metrics = opts.metrics;
    const ropts = { ...REFLECTOR_DEFAULTS, ...opts.reflector };
    const timers = opts.timers ?? realTimers;
    const sink = deferring(this.sink, (change) => this.apply(change));
    this.reflectors = (opts.kinds ?? WATCHED_KINDS).map(
      (k) => new Reflector(k, opts.source, sink, this.clock, timers, ropts, (o) => this.project(k, o)),
    );
    // Until its first list completes, a kind's absence from the cache proves nothing (see BLIND_CODES).
    for (const r of this.reflectors) this.index.markUnreadable(r.kind, NOT_SYNCED);
  }

  /** Starts every reflector. */
  start(): void {
    for (const r of this.reflectors) r.start();
  }

  /** Stops every reflector and the queue. */
  stop(): void {
    for (const r of this.reflectors) r.stop();
    this.deferred.clear();
    this.queue.shutdown();
  }

  /**
   * The watchdog: restarts silent watches, and marks a kind whose watch stays silent unreadable (so an answer that
   * needs it is UNKNOWN, not OK from a frozen cache) until it is heard from again. Call on a tick; returns how many
   * watches it restarted.
   */
  tick(now = this.clock.now()): number {
    let n = 0;
    for (const r of this.reflectors) {
      if (r.checkStalled(now)) n++;
      this.apply(() => this.markSilence(r, now));
    }
    return n;
  }

  /** The kinds whose watch is stalled (Reflector.stalled) and for how long it has been silent, for /readyz. */
  stalled(now = this.clock.now()): { kind: KindKey; silentMs: number }[] {
    return this.reflectors.filter((r) => r.stalled(now)).map((r) => ({ kind: r.kind, silentMs: r.silentForMs(now) }));
  }

  /** Every kind has completed a first list. */
  synced(): boolean {
    return this.reflectors.every((r) => r.synced);
  }

  /** The API server is answering (false from the first connection failure until a list or event succeeds). */
  reachable(): boolean {
    return this.unreachableSince === undefined;
  }

  /**
   * Whether the whole cache is known to be current at `now`: every kind synced, the API answering, and every watch
   * heard from recently (Reflector.current). What a replica must be to record incidents (src/serve/lease.ts).
   */
  current(now = this.clock.now()): boolean {
    return this.synced() && this.reachable() && this.reflectors.every((r) => r.current(now));
  }

  /** Per-kind state, for /readyz and debugging. */
  status(): { kind: KindKey; state: string; synced: boolean; error?: string }[] {
    return this.reflectors.map((r) => {
      const err = this.failing.get(r.kind);
      return { kind: r.kind, state: r.state, synced: r.synced, ...(err ? { error: err.message } : {}) };
    });
  }

  /** Resolves once synced() (checked on every list completion); rejects after `timeoutMs`. */
  async waitSynced(timeoutMs: number, timers: Timers = realTimers): Promise<void> {
    if (this.synced()) return;
    await new Promise<void>((resolve, reject) => {
      const h = timers.set(() => reject(new Error(`watches not synced within ${timeoutMs} ms`)), timeoutMs);
      this.syncWaiters.push(() => {
        timers.clear(h);
        resolve();
      });
    });
  }
  private syncWaiters: (() => void)[] = [];

  // A failure's reason (failed) stands while it lasts; silence only marks kinds that fail nothing, and unmarks
  // only what it marked.
  private markSilence(r: Reflector, now: number): void {
    if (r.silent(now)) {
      this.silent.add(r.kind);
      this.index.markUnreadable(r.kind, `${SILENT}: no event or bookmark for ${formatAge(r.silentForMs(now))}`);
    } else if (this.silent.delete(r.kind) && !this.failing.has(r.kind)) {
      this.index.markReadable(r.kind);
    }
  }

  /**
   * Applies a change to the cache (and its work keys) now, or, while a reader holds the index (an evaluation that
   * hands the event loop back: src/domain/holds.ts), once none does; in arrival order either way.
   */
  private apply(change: () => void): void {
    if (!this.index.holds.held && this.deferred.empty) return change();
    this.deferred.push(change, this.index.holds);
  }

  private enqueue(kind: KindKey, obj: KubeObject): void {
    this.keyBuf.length = 0;
    dirtyKeys(kind, obj, this.keyBuf);
    for (const k of this.keyBuf) this.queue.add(k);
  }

  private readonly sink: ReflectorSink = {
    listStart: (kind) => {
      // A first list (a start or restart) needs no record of what it delivered: no second pass over the objects.
      this.seen.set(kind, this.index.count(kind) > 0 ? new Set() : null);
    },
    listPage: (kind, items) => {
      const seen = this.seen.get(kind);
      for (const obj of items) {
        this.index.upsert(kind, obj as ObjectsByKind[typeof kind]);
        seen?.add(objectKey(obj));
        this.enqueue(kind, obj);
      }
    },
    listEnd: (kind) => {
      const seen = this.seen.get(kind);
      if (seen === undefined) return;
      this.seen.delete(kind);
      this.index.markReadable(kind);
      const gone: KubeObject[] = [];
      if (seen) for (const o of this.index.all(kind)) if (!seen.has(objectKey(o))) gone.push(o);
      for (const o of gone) {
        this.index.remove(kind, o as never);
        this.enqueue(kind, o);
      }
      if (this.synced()) {
        const waiters = this.syncWaiters;
        this.syncWaiters = [];
        for (const w of waiters) w();
      }
    },
    upsert: (kind, raw) => {
      const obj = this.project(kind, raw);
      this.index.upsert(kind, obj as ObjectsByKind[typeof kind]);
      this.metrics?.event(kind);
      this.enqueue(kind, obj);
    },
    remove: (kind, raw) => {
      const obj = this.project(kind, raw);
      this.index.remove(kind, obj as ObjectsByKind[typeof kind]);
      this.metrics?.event(kind);
      this.enqueue(kind, obj);
    },
    failed: (kind, err, attempt) => {
      const before = this.failing.get(kind);
      this.failing.set(kind, err);
      if (BLIND_CODES.has(err.code)) this.index.markUnreadable(kind, blindReason(err));
      if (err.code === 'KUBE_UNREACHABLE' || err.code === 'TIMEOUT') {
        if (this.unreachableSince === undefined) {
          // One line per outage, however many kinds and retries fail during it.
          this.unreachableSince = this.clock.now();
          this.metrics?.apiReachable(false);
          this.log.warn(
            { err: err.message },
            'Kubernetes API unreachable; retrying with backoff (logged once until it answers)',
          );
        }
      } else if (!before || before.code !== err.code || attempt === 1) {
        this.log.warn({ kind, code: err.code, err: err.message }, `watch ${kind} failed; retrying with backoff`);
      }
    },
    healthy: (kind) => {
      this.failing.delete(kind);
      this.index.markReadable(kind);
      if (this.unreachableSince !== undefined) {
        const downMs = this.clock.now() - this.unreachableSince;
        this.unreachableSince = undefined;
        this.metrics?.apiReachable(true);
        this.log.info({ downMs }, 'Kubernetes API reachable again');
      }
    },
    restarted: (kind, reason) => {
      this.metrics?.restart(kind, reason);
      if (reason === 'stalled') this.log.warn({ kind }, 'watch silent too long; the watchdog relists it');
      else if (reason === 'gone') this.log.info({ kind }, 'watch expired (410 Gone): relisting');
    },
  };
}

/** The reason an unreadable kind gives: "forbidden: ...", "API server unreachable: ...". */
function blindReason(err: RwxError): string {
  if (err.code === 'KUBE_UNREACHABLE' || err.code === 'TIMEOUT') return `API server unreachable: ${err.message}`;
  if (err.code === 'KUBE_UNAUTHORIZED') return `unauthorized: ${err.message}`;
  // "list pods: forbidden: pods is forbidden: ..." reads "forbidden: pods is forbidden: ...", as a live CLI read says.
  return `forbidden: ${err.message.replace(/^.*?forbidden:\s*/i, '')}`;
}
