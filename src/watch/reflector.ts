// Reflector: keeps one kind of the cluster mirrored into a sink by list + watch, and recovers on its own.
//
// Recovery rules (client-node 1.4's ListWatch does none of the last three):
// - 410 Gone (as an HTTP status, or as an ERROR event with code 410) -> relist from scratch.
// - a normal close (server-side timeoutSeconds) -> rewatch from the last resourceVersion.
// - any other error -> retry with exponential backoff (list or watch, wherever it failed); never give up.
// - no event and no bookmark for `stallMs` -> the watchdog (checkStalled, called on a tick) relists: a completed
//   list is the one proof the view is current again (a watch reopened through a half-open path can be as silent).
// - a list page not answered within `listTimeoutMs` -> a TIMEOUT failure (a blackholed API server never answers).
// Bookmarks are requested so a quiet kind still shows life and keeps its resourceVersion fresh.
import { DEFAULT_BACKOFF, defaultMs } from '../config/defaults.js';
import { backoffDelay } from '../domain/backoff.js';
import type { Clock } from '../domain/clock.js';
import type { KindKey } from '../domain/kinds.js';
import type { KubeObject } from '../domain/objects.js';
import { formatAge } from '../domain/duration.js';
import { RwxError, isRwxError, toRwxError } from '../errors.js';
import { pagesAhead } from '../kube/pages.js';
import type { ClusterSource, WatchEventType, WatchHandle } from './source.js';
import type { Timers } from './timers.js';

/** Why a watch was restarted (a metric label). */
export type RestartReason = 'gone' | 'stalled' | 'error' | 'closed';

/** Where a reflector delivers objects and reports its health. Called synchronously; must not throw. */
export interface ReflectorSink {
  /** A full list begins; pages follow, then listEnd. Objects not delivered by listEnd no longer exist. */
  listStart(kind: KindKey): void;
  /** A page's objects, projected by the reflector's `project`; upsert and remove get objects as the API sent them. */
  listPage(kind: KindKey, items: KubeObject[]): void;
  listEnd(kind: KindKey): void;
  upsert(kind: KindKey, obj: KubeObject): void;
  remove(kind: KindKey, obj: KubeObject): void;
  /** A list or watch failed; `attempt` counts consecutive failures (1 = first). */
  failed(kind: KindKey, err: RwxError, attempt: number): void;
  /** A list completed, or a watch delivered an event after failures: the kind is healthy again. */
  healthy(kind: KindKey): void;
  restarted(kind: KindKey, reason: RestartReason): void;
}

/** Tunables; defaults in REFLECTOR_DEFAULTS. */
export interface ReflectorOptions {
  pageSize: number;
  /** Watchdog: relist a kind whose watch was silent for this long. */
  stallMs: number;
  /** A list page not answered within this long fails with TIMEOUT (and is retried with backoff). */
  listTimeoutMs: number;
  /** The first wait after a failure (src/domain/backoff.ts). */
  backoffInitialMs: number;
  /** The longest wait between attempts: RWX_RETRY_MAX. */
  backoffMaxMs: number;
  /** Asked of the server so watches close and reopen regularly (client-go uses 5-10 minutes). */
  watchTimeoutSeconds: number;
  /** A watch that closes this soon with no event counts as a failure (avoids a hot reconnect loop). */
  minWatchMs: number;
}

/** Default reflector tunables (the idle limit and the backoff are the configuration's defaults). */
export const REFLECTOR_DEFAULTS: ReflectorOptions = {
  pageSize: 500,
  stallMs: defaultMs('watchIdleTimeout'),
  listTimeoutMs: 15_000,
  backoffInitialMs: DEFAULT_BACKOFF.initialMs,
  // 10 s, not client-go's 30 s: after an outage of any length the next attempt comes within 10 s of the API
  // answering again, so the bot is ready within 30 s of the fault ending (issue 12). 16 kinds retrying every 10 s
  // are 1.6 requests a second to a server that is down: nothing.
  backoffMaxMs: DEFAULT_BACKOFF.maxMs,
  watchTimeoutSeconds: 300,
  minWatchMs: 1_000,
};

/** Mirrors one kind into a sink; see the file comment for the recovery rules. */
export class Reflector {
  private gen = 0;
  private rv = '';
  private handle: WatchHandle | undefined;
  private timer: unknown;
  private lastActivity = 0;
  /** When the server was last heard from (a list completed, an event or a bookmark): a restart does not move it. */
  private lastHeard = 0;
  /** When a watch last delivered an event or bookmark (the first list counts as a start). */
  private lastStreamed = 0;
  /** The watchdog relisted this kind and no watch event or bookmark has come since. */
  private relistedSilent = false;
  private watchStarted = 0;
  private watchEvents = 0;
  private failures = 0;
  private gone = false;
  private stopped = true;
  /** Where the reflector is; 'waiting' means backing off after a failure. */
  state: 'idle' | 'listing' | 'watching' | 'waiting' | 'stopped' = 'idle';
  /** True once a first full list has been delivered; stays true through later failures (the cache still serves). */
  synced = false;

  constructor(
    readonly kind: KindKey,
    private readonly source: ClusterSource,
    private readonly sink: ReflectorSink,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly opts: ReflectorOptions = REFLECTOR_DEFAULTS,
    /** What the sink's listPage gets of each listed object, applied as each page arrives (src/kube/pages.ts). */
    private readonly project: (obj: KubeObject) => KubeObject = (o) => o,
  ) {}

  /** Starts listing then watching. Idempotent. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.relist();
  }

  /** Stops for good: aborts the watch, cancels backoff; later callbacks are ignored. */
  stop(): void {
    this.stopped = true;
    this.state = 'stopped';
    this.gen++;
    this.handle?.abort();
    this.handle = undefined;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
  }

  /** The watchdog: relists a kind whose watch saw no event or bookmark for stallMs. Returns whether it did. */
  checkStalled(now: number): boolean {
    if (this.state !== 'watching' || now - this.lastActivity < this.opts.stallMs) return false;
    this.sink.restarted(this.kind, 'stalled');
    this.relistedSilent = true;
    void this.relist();
    return true;
  }

  /**
   * Whether this kind's view is known to be current at `now`: the server was heard from (a list completed, an event
   * or a bookmark) within stallMs, the watchdog's limit (one definition of a stalled watch). Restarting a watch does
   * not make a view current: a half-open or blackholed connection restarted is just as silent.
   */
  current(now: number): boolean {
    return this.synced && this.state !== 'waiting' && now - this.lastHeard < this.opts.stallMs;
  }

  /**
   * Whether this kind's cache may be stale because its watch went silent: synced, not backing off after a failure
   * (that has its own reason), yet not current at `now`.
   */
  silent(now: number): boolean {
    return this.synced && this.state !== 'waiting' && this.state !== 'stopped' && !this.current(now);
  }

  /**
   * Whether this kind's watch is stalled: silent (above), or relisted by the watchdog and not heard from on a watch
   * since. A relist refreshes the cache, but changes reach it only once a watch streams again.
   */
  stalled(now: number): boolean {
    return this.silent(now) || (this.relistedSilent && this.state !== 'waiting' && this.state !== 'stopped');
  }

  /** How long since this kind's watch last delivered an event or bookmark (or its first list completed). */
  silentForMs(now: number): number {
    return now - this.lastStreamed;
  }

  /** The last resourceVersion seen ('' before the first list or after a 410). */
  get resourceVersion(): string {
    return this.rv;
  }

  private async relist(): Promise<void> {
    const gen = ++this.gen;
    this.handle?.abort();
    this.handle = undefined;
    this.state = 'listing';
    this.lastActivity = this.clock.now();
    this.sink.listStart(this.kind);
    let rv = '';
    try {
      // Each next page is asked for early (src/kube/pages.ts): the server prepares it while this one is parsed.
      const limit = this.opts.pageSize;
      const pages = pagesAhead(
        (token, onContinue) =>
          this.source
            .list(this.kind, { limit, onContinue, ...(token ? { continueToken: token } : {}) })
            .then((page) => ({ ...page, items: page.items.map(this.project) })),
        (page) => page.continueToken,
        (page) => this.answered(page),
      );
      for await (const page of pages) {
        if (gen !== this.gen) return;
        rv = page.resourceVersion;
        this.sink.listPage(this.kind, page.items);
      }
    } catch (e) {
      if (gen !== this.gen) return;
      // A 410 mid-pagination means the continue token expired: the relist after backoff starts over anyway.
      this.rv = '';
      this.fail(toRwxError(e, 'KUBE_API'));
      return;
    }
    this.rv = rv;
    this.lastHeard = this.clock.now();
    if (!this.synced) this.lastStreamed = this.lastHeard;
    this.synced = true; // before listEnd, so the sink sees this kind as synced when it checks all kinds
    this.sink.listEnd(this.kind);
    this.recovered();
    this.watch();
  }

  /** `p`, or a TIMEOUT failure once listTimeoutMs passes first (the request itself is left to its socket timeout). */
  private answered<T>(p: Promise<T>): Promise<T> {
    const ms = this.opts.listTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      const timer = this.timers.set(() => {
        const what = `list ${this.kind}: no answer from the API server within ${formatAge(ms)}`;
        reject(new RwxError('TIMEOUT', what));
      }, ms);
      p.then(resolve, reject).finally(() => this.timers.clear(timer));
    });
  }

  private watch(): void {
    const gen = ++this.gen;
    this.handle?.abort();
    this.state = 'watching';
    this.gone = false;
    this.watchStarted = this.lastActivity = this.clock.now();
    this.watchEvents = 0;
    this.handle = this.source.watch(
      this.kind,
      { resourceVersion: this.rv, timeoutSeconds: this.opts.watchTimeoutSeconds },
      {
        onOpen: () => {
          if (gen === this.gen && this.failures > 0) this.recovered();
        },
        onEvent: (type, obj) => {
          if (gen === this.gen) this.onEvent(type, obj);
        },
        onDone: (err) => {
          if (gen === this.gen) this.onDone(err);
        },
      },
    );
  }

  private onEvent(type: WatchEventType, obj: KubeObject): void {
    this.lastActivity = this.lastHeard = this.lastStreamed = this.clock.now();
    this.relistedSilent = false;
    if (type === 'ERROR') {
      // A Status object: 410 means our resourceVersion was compacted away; the stream ends next.
      if ((obj as { code?: number }).code === 410) this.gone = true;
      return;
    }
    this.watchEvents++;
    if (type === 'ADDED' || type === 'MODIFIED') this.sink.upsert(this.kind, obj);
    else if (type === 'DELETED') this.sink.remove(this.kind, obj);
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.rv = rv;
    if (this.failures > 0) this.recovered();
  }

  private onDone(err: unknown): void {
    this.handle = undefined;
    if (this.gone || isRwxError(err, 'KUBE_GONE')) {
      this.rv = '';
      this.sink.restarted(this.kind, 'gone');
      void this.relist();
      return;
    }
    if (err) {
      this.fail(toRwxError(err, 'KUBE_API'));
      return;
    }
    const quick = this.watchEvents === 0 && this.clock.now() - this.watchStarted < this.opts.minWatchMs;
    if (quick) {
      this.fail(toRwxError(new Error('watch closed immediately'), 'KUBE_API'));
      return;
    }
    this.sink.restarted(this.kind, 'closed');
    this.watch();
  }

  private fail(err: RwxError): void {
    this.gen++;
    this.failures++;
    this.state = 'waiting';
    this.sink.failed(this.kind, err, this.failures);
    const delay = backoffDelay({ initialMs: this.opts.backoffInitialMs, maxMs: this.opts.backoffMaxMs }, this.failures);
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.sink.restarted(this.kind, 'error');
      if (this.rv) this.watch();
      else void this.relist();
    }, delay);
  }

  private recovered(): void {
    this.failures = 0;
    this.sink.healthy(this.kind);
  }
}
