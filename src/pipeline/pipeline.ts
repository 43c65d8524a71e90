// The watch pipeline, in sample-controller's shape: queue (dirty keys from the watcher) -> sync (per-pod /
// per-CronJob detection, then one evaluation over the current findings: sync.ts) -> submit (the incidents handed
// on as the evaluation made them: submit.ts). Workers read the cache and never mutate it.
//
// Cost: a pod event costs one detectPod. Only candidates (pods not Running/Succeeded/Failed, or terminating) can
// become stuck by time alone; they and the CronJobs are re-evaluated on tick(), so a pod crossing stuckAfter with
// no new event is still found. Correlation runs over the findings (small), not the cluster.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { CronJobFinding, Finding, StuckPodFinding } from '../domain/findings.js';
import type { Incident } from '../domain/incident.js';
import type { CronJob, Pod } from '../domain/objects.js';
import { CORRELATE, CRONJOB, POD } from '../watch/keys.js';
import type { WorkQueue } from '../watch/work-queue.js';
import { turn } from '../watch/yielding.js';
import type { IncidentSink } from './submit.js';

/** The pure work of a sync, bound to its configuration (realSync in sync.ts builds the real one). */
export interface Sync {
  detectPod(index: ClusterIndex, pod: Pod, now: number): StuckPodFinding[];
  detectCronJob(index: ClusterIndex, cj: CronJob, now: number): CronJobFinding | undefined;
  /** Correlates and advises (src/evaluate): incidents with their next steps and drain advice. `openKeys`: the
   * incidents open before this pass (CorrelateOptions.openKeys). May hand the event loop back before resolving. */
  evaluate(
    index: ClusterIndex,
    findings: Finding[],
    now: number,
    openKeys: ReadonlySet<string>,
  ): Incident[] | Promise<Incident[]>;
}

/** Gauges the pipeline keeps current. */
export interface PipelineMetrics {
  findings(byKind: Record<string, number>): void;
  openIncidents(n: number): void;
}

/** Minimum wall time between two correlations under a stream of events (ms). */
export const FLUSH_EVERY_MS = 250;

/**
 * Keys evaluated between two turns of the event loop in tick(): a few milliseconds of work (detecting a candidate
 * costs 10 to 40 microseconds; at 1000 a batch held probes for 100 ms and more on a loaded machine).
 */
export const YIELD_EVERY = 250;

/** Whether a pod can still become stuck with no further event: not running or done, or being deleted. */
export function isCandidate(pod: Pod): boolean {
  if (pod.metadata?.deletionTimestamp) return true;
  const phase = pod.status?.phase;
  return phase !== 'Running' && phase !== 'Succeeded' && phase !== 'Failed';
}

/** One evaluation loop over a ClusterIndex and a WorkQueue. Single-threaded; see the file comment. */
export class Pipeline {
  private readonly findings = new Map<string, Finding>();
  private readonly byObject = new Map<string, string[]>();
  private readonly candidates = new Set<string>();
  private readonly cronJobs = new Set<string>();
  private dirty = true;
  private incidents: Incident[] = [];
  private inFlight: Promise<void> | undefined;
  private again = false;
  private submitted = 0;

  constructor(
    private readonly index: ClusterIndex,
    private readonly queue: WorkQueue,
    private readonly sync: Sync,
    private readonly sink: IncidentSink,
    private readonly clock: Clock,
    private readonly metrics?: PipelineMetrics,
    /** Correlation waits until this is true (every kind listed): a half-filled cache gives wrong verdicts. */
    private readonly ready: () => boolean = () => true,
  ) {}

  /** Incidents open before this pass that the last pass may not have seen (the store's unresolved records). */
  private assumedOpen: ReadonlySet<string> = new Set();

  /**
   * Treats `keys` as open in the next pass (then they stay open only if it reports them): at start-up and on taking
   * over evaluation, the store's unresolved records, so the first pass keeps them as they were.
   */
  assumeOpen(keys: Iterable<string>): void {
    this.assumedOpen = new Set([...this.assumedOpen, ...keys]);
    this.dirty = true;
  }

  /**
   * The incidents open going into the next pass: the last pass's and those the sink kept open though it did not
   * report them (the keep-firing window), or at start-up the store's. The correlator holds them to the weaker test
   * of an open incident, so a blip in its verdict does not change what the incident is.
   */
  openKeys(): ReadonlySet<string> {
    return new Set([...this.assumedOpen, ...this.kept, ...this.incidents.map((i) => i.key)]);
  }

  /** Keys the sink's last answer kept open though the last pass did not report them. */
  private kept: ReadonlySet<string> = new Set();

  /** How many evaluations the sink has accepted: 0 until the first pass over a synced cache is submitted. */
  get passes(): number {
    return this.submitted;
  }

  /** The incidents of the last correlation. */
  current(): readonly Incident[] {
    return this.incidents;
  }

  /** Current findings (for tests and /debug). */
  currentFindings(): Finding[] {
    return [...this.findings.values()];
  }

  /** Processes up to `max` dirty keys; returns how many. Correlation happens in flush(). */
  processKeys(max = Infinity, now = this.clock.now()): number {
    let n = 0;
    while (n < max) {
      const key = this.queue.get();
      if (key === undefined) break;
      try {
        this.evaluate(key, now);
      } finally {
        this.queue.done(key);
      }
      n++;
    }
    return n;
  }

  /** Time-based re-evaluation: pending keys, then every candidate pod and every CronJob, then flush. */
  async tick(now = this.clock.now()): Promise<void> {
    // In batches with a turn of the event loop between them: after a relist of a large cluster the queue holds
    // every pod, and /healthz, /readyz and the watch streams must still be served meanwhile (issue 12).
    while (this.processKeys(YIELD_EVERY, now) === YIELD_EVERY) await turn();
    let n = 0;
    for (const k of this.candidates) {
      this.evaluate(POD + k, now);
      if (++n % YIELD_EVERY === 0) await turn();
    }
    for (const k of this.cronJobs) this.evaluate(CRONJOB + k, now);
    this.dirty = true; // stuck durations and timers moved on: let the notifier see the current picture
    await this.flush(now);
  }

  /**
   * Findings were detected while some kind was not listed yet (a pod before its Job: credited to the Job, not its
   * CronJob), so the first correlation after the cache is whole detects every object with findings, every candidate
   * and every CronJob again. Otherwise each restart would report a "change" that is only the listing order.
   */
  private unsettled = false;

  private async redetect(now: number): Promise<void> {
    this.unsettled = false;
    const keys = new Set([
      ...this.byObject.keys(),
      ...[...this.candidates].map((k) => POD + k),
      ...[...this.cronJobs].map((k) => CRONJOB + k),
    ]);
    let n = 0;
    for (const k of keys) {
      this.evaluate(k, now);
      if (++n % YIELD_EVERY === 0) await turn();
    }
  }

  /** Correlates if anything changed and submits the incidents; serialised so submits never overlap. */
  async flush(now = this.clock.now()): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    if (!this.ready()) {
      this.unsettled = true;
      return;
    }
    if (!this.dirty) return;
    this.inFlight = (async () => {
      try {
        do {
          this.again = false;
          if (this.unsettled) await this.redetect(now);
          this.dirty = false;
          const assumed = this.assumedOpen;
          const open = this.openKeys();
          this.incidents = await this.sync.evaluate(this.index, [...this.findings.values()], now, open);
          // Kept if assumeOpen() came while the evaluation had the event loop handed back: the next pass uses it.
          if (this.assumedOpen === assumed) this.assumedOpen = new Set();
          try {
            this.kept = new Set((await this.sink.submit(this.incidents, now))?.kept.map((i) => i.key));
          } finally {
            this.report();
          }
          this.submitted++;
        } while (this.again && this.dirty);
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }

  /**
   * One batch of the worker loop: up to `batch` keys, then a flush if the last one is `flushEveryMs` old.
   * Correlation reads more than one pod (plugin rows, drain advice), so under a burst of events it runs a few
   * times a second, not once per batch; run() flushes what is left once the burst ends.
   */
  async pump(batch = YIELD_EVERY, flushEveryMs = FLUSH_EVERY_MS): Promise<number> {
    const n = this.processKeys(batch);
    if (performance.now() - this.lastFlush >= this.flushGap(flushEveryMs)) await this.timedFlush();
    return n;
  }

  /** Time between flushes: at least flushEveryMs, and four times the last correlation's cost, so on a big
   * cluster correlation never takes more than a fifth of the worker's time under a stream of events. */
  private flushGap(flushEveryMs: number): number {
    return Math.max(flushEveryMs, 4 * this.lastFlushCost);
  }

  /** Drains the queue in batches until shut down (see pump). For `rwx serve`. */
  async run(batch = YIELD_EVERY, flushEveryMs = FLUSH_EVERY_MS): Promise<void> {
    while (!this.queue.isShutDown) {
      if (this.queue.length === 0) {
        const wait = this.flushGap(flushEveryMs) - (performance.now() - this.lastFlush);
        if (this.dirty && wait <= 0) await this.timedFlush();
        else if (this.dirty) await Promise.race([this.queue.wait(), new Promise((r) => setTimeout(r, wait))]);
        else await this.queue.wait();
        continue;
      }
      await this.pump(batch, flushEveryMs);
      // Let I/O (watch streams, HTTP) run between batches during a large initial list.
      await turn();
    }
  }

  private lastFlush = 0;
  private lastFlushCost = 0;
  private async timedFlush(): Promise<void> {
    const t = performance.now();
    await this.flush();
    this.lastFlush = performance.now();
    this.lastFlushCost = this.lastFlush - t;
  }

  private evaluate(key: string, now: number): void {
    if (key === CORRELATE) {
      this.dirty = true;
    } else if (key.startsWith(POD)) {
      const k = key.slice(POD.length);
      const pod = this.index.get('pods', k);
      if (pod && isCandidate(pod)) this.candidates.add(k);
      else this.candidates.delete(k);
      this.replace(key, pod && isCandidate(pod) ? this.sync.detectPod(this.index, pod, now) : []);
    } else if (key.startsWith(CRONJOB)) {
      const k = key.slice(CRONJOB.length);
      const cj = this.index.get('cronJobs', k);
      if (cj) this.cronJobs.add(k);
      else this.cronJobs.delete(k);
      const f = cj ? this.sync.detectCronJob(this.index, cj, now) : undefined;
      this.replace(key, f ? [f] : []);
    }
  }

  /** Replaces the findings an object produced; marks correlation dirty only when the set or a member changed. */
  private replace(objectKey: string, next: Finding[]): void {
    const old = this.byObject.get(objectKey);
    if (!old && next.length === 0) return;
    for (const k of old ?? []) this.findings.delete(k);
    for (const f of next) this.findings.set(f.key, f);
    if (next.length)
      this.byObject.set(
        objectKey,
        next.map((f) => f.key),
      );
    else this.byObject.delete(objectKey);
    this.dirty = true;
  }

  private report(): void {
    if (!this.metrics) return;
    const byKind: Record<string, number> = { 'stuck-creating': 0, 'stuck-terminating': 0, 'cronjob-missed': 0 };
    for (const f of this.findings.values()) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
    this.metrics.findings(byKind);
    this.metrics.openIncidents(this.incidents.length + this.kept.size);
  }
}
