// The notifier: turns each evaluation's incidents into one Slack thread per incident. submit() records what the
// evaluation saw and enqueues a BullMQ job per new / changed / cleared incident (deduplicated by incident key);
// workers run the steps (stages.ts) under the per-incident lock. Any number of processes may share one Redis.
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { type Clock, systemClock } from '../domain/clock.js';
import { toRwxError } from '../errors.js';
import type { Incident } from '../domain/incident.js';
import type { IncidentStore } from '../store/incident-store.js';
import { RedisIncidentStore } from '../store/redis-store.js';
import type { ObserveResolution, ResolutionFacts } from '../domain/resolution.js';
import type { SlackApi } from '../slack/api.js';
import { DEFAULT_TIMERS, type StepName, type Timers, decide } from './decide.js';
import type { IncidentActions } from '../domain/actions.js';
import { createIncidentActions } from './actions.js';
import { DEFAULT_MESSAGE_OPTIONS, type MessageOptions } from './deps.js';
import { recordEvaluation } from './record.js';
import { type LockIdentity, lockIdentity, resumeInterrupted } from './resume.js';
import { type NotifierObserver, type StageDeps, type StageOutcome, processIncident } from './stages.js';

export type { NotifierObserver } from './stages.js';

/** Minimal logger (pino-compatible). Never given tokens. */
export interface NotifierLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of createNotifier. Only redis, prefix, slack and channel are required. */
export interface NotifierOptions {
  /** An ioredis connection; the notifier duplicates it for BullMQ and closes only its duplicates. */
  redis: Redis;
  /** Namespaces the records, locks and the BullMQ queue (`<prefix>:notify`). */
  prefix: string;
  slack: SlackApi;
  /** Channel id the incident threads go to. */
  channel: string;
  /** Link buttons, the user group a new root mentions, the resolution broadcast (default DEFAULT_MESSAGE_OPTIONS). */
  messages?: Partial<MessageOptions>;
  /** Overrides of DEFAULT_TIMERS (30s / 5m / 4h). */
  timers?: Partial<Timers>;
  clock?: Clock;
  /** Default: RedisIncidentStore(redis, prefix). */
  store?: IncidentStore;
  /** Run a BullMQ worker in this process (default true); false for a submit-only process. */
  worker?: boolean;
  /** Attempts per job for retryable errors, and the first exponential backoff delay (default 8, 1000 ms). */
  attempts?: number;
  backoffMs?: number;
  /** Delay before retrying a job whose incident lock was busy (default 250 ms). */
  lockRetryMs?: number;
  /** Lock TTL (default 30 s) and how long resolved records are kept (default 7 days). */
  lockTtlMs?: number;
  closedTtlMs?: number;
  /**
   * What the cluster says, when an incident clears or is resolved by hand, about every member it ever had (the
   * record's history): pods recovered / deleted, CronJobs completed since. See observeResolution in serve/stages.
   */
  observeResolution?: ObserveResolution;
  logger?: NotifierLogger;
  /** Told what was posted (metrics: incidents opened, time from stuck to posted). */
  observer?: NotifierObserver;
  /**
   * This replica's name in its incident locks (RWX_REPLICA_ID; default host/pid, resume.ts). With a worker, the
   * notifier resumes at start what an earlier incarnation of the same replica was killed in (see resumed).
   */
  replica?: string;
}

/** The notifier; the button operations (IncidentActions) act on the same records. */
export interface Notifier extends IncidentActions {
  /**
   * Records one evaluation. `incidents` must be the COMPLETE current set: an open incident missing from it counts
   * as cleared (resolution posted). New incidents are created (first post after group_wait); changed and cleared
   * ones get a job; unchanged ones cost one Redis read. `resolutions` (by key) overrides observeResolution.
   * Resolves once the records are written and the jobs enqueued.
   */
  submit(
    incidents: readonly Incident[],
    now: number,
    resolutions?: ReadonlyMap<string, ResolutionFacts>,
  ): Promise<void>;
  /** Runs the steps for one key right now, without the queue (tests, one-shot CLI use). */
  process(key: string): Promise<StageOutcome>;
  /** Jobs waiting or running (not the delayed ones: every open incident keeps one for its next timer). */
  queueDepth(): Promise<number>;
  /** The store the notifier writes (e.g. for /rwx status). */
  readonly store: IncidentStore;
  /** Stops the worker (finishing the current job) and closes the queue and the duplicated connections. */
  close(): Promise<void>;
  /** Settles once the start-up resume (resume.ts) is done: the keys it resumed (none without a worker). */
  readonly resumed: Promise<string[]>;
}

interface JobData {
  key: string;
}

/** The BullMQ queue's name (under the prefix: `<prefix>:notify`). */
const QUEUE = 'notify';

/**
 * Creates the notifier: `const n = createNotifier({ redis, prefix: 'rwx', slack, channel })`, then after each
 * evaluation `await n.submit(incidents, clock.now())`, and `await n.close()` on shutdown.
 */
export function createNotifier(opts: NotifierOptions): Notifier {
  const identity = lockIdentity(opts.replica || undefined);
  const deps = { ...stageDeps(opts), lockOwner: identity.owner };
  const timers = deps.timers;
  const queueConn = opts.redis.duplicate({ maxRetriesPerRequest: null });
  const queue = new Queue<JobData>(QUEUE, {
    connection: queueConn,
    prefix: opts.prefix,
    defaultJobOptions: {
      attempts: opts.attempts ?? 8,
      backoff: { type: 'exponential', delay: opts.backoffMs ?? 1000 },
      removeOnComplete: true,
      removeOnFail: 1000,
    },
  });
  // One job per key: while one waits (delayed), a new submit replaces it; while one runs, the latest is kept and
  // runs after it. The job carries only the key: the worker reads the latest record.
  const enqueue = async (key: string, delayMs = 0): Promise<void> => {
    const delay = Math.max(0, Math.round(delayMs));
    await queue.add('incident', { key }, { delay, deduplication: { id: key, replace: true, keepLastIfActive: true } });
  };
  const worker = (opts.worker ?? true) ? startWorker(opts, deps, enqueue) : undefined;
  const resumed = worker ? resume(opts, deps.store, queue, enqueue, identity) : Promise.resolve([]);

  const submit: Notifier['submit'] = async (incidents, now, resolutions) => {
    const ctx = { store: deps.store, channel: opts.channel, groupWait: timers.groupWait, resolutions };
    const jobs = await recordEvaluation({ ...ctx, observe: opts.observeResolution }, incidents, now);
    for (const j of jobs) await enqueue(j.key, j.delayMs);
  };

  const actions = createIncidentActions(deps);
  return {
    ...actions,
    // After a Resolve click the incident's job decides what is left: close, or follow up its CronJobs.
    resolve: async (key, user, now) => {
      const res = await actions.resolve(key, user, now);
      if (res.status !== 'unknown') await enqueue(key);
      return res;
    },
    store: deps.store,
    submit,
    process: (key) => processIncident(deps, key),
    queueDepth: () => queue.getJobCountByTypes('waiting', 'active', 'prioritized'),
    resumed,
    async close() {
      await resumed;
      await worker?.close();
      await queue.close();
      queueConn.disconnect();
      identity.retire();
    },
  };
}

// The start-up resume, logged; a failure (Redis away) leaves the work to BullMQ's stalled sweep, as before.
async function resume(
  opts: NotifierOptions,
  store: IncidentStore,
  queue: Queue<JobData>,
  enqueue: Enqueue,
  identity: LockIdentity,
): Promise<string[]> {
  try {
    const keys = await resumeInterrupted({ store, queue, enqueue: (k) => enqueue(k) }, identity);
    if (keys.length > 0) opts.logger?.warn({ keys, replica: identity.replica }, 'resumed work interrupted by a crash');
    return keys;
  } catch (e) {
    opts.logger?.warn({ err: toRwxError(e).message }, 'could not resume interrupted work; BullMQ will');
    return [];
  }
}

// The steps' dependencies from the options, with the defaults.
function stageDeps(opts: NotifierOptions): StageDeps {
  return {
    store: opts.store ?? new RedisIncidentStore(opts.redis, opts.prefix),
    slack: opts.slack,
    messages: { ...DEFAULT_MESSAGE_OPTIONS, ...opts.messages },
    timers: { ...DEFAULT_TIMERS, ...opts.timers },
    clock: opts.clock ?? systemClock,
    lockTtlMs: opts.lockTtlMs ?? 30_000,
    closedTtlMs: opts.closedTtlMs ?? 7 * 86_400_000,
    ...(opts.observeResolution ? { observe: opts.observeResolution } : {}),
    ...(opts.observer ? { observer: opts.observer } : {}),
  };
}

/** A running BullMQ worker with its own connection. */
interface RunningWorker {
  close(): Promise<void>;
}

// A BullMQ worker that runs the steps for each job's incident (at most 4 incidents at once).
function startWorker(opts: NotifierOptions, deps: StageDeps, enqueue: Enqueue): RunningWorker {
  const log = opts.logger;
  const conn = opts.redis.duplicate({ maxRetriesPerRequest: null });
  const worker = new Worker<JobData>(QUEUE, jobProcessor(deps, enqueue, log, opts.lockRetryMs ?? 250), {
    connection: conn,
    prefix: opts.prefix,
    concurrency: 4,
  });
  worker.on('error', (e) => log?.error({ err: e.message }, 'notify worker error'));
  worker.on('failed', (job, e) => {
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1))
      log?.error({ key: job.data.key, err: e.message }, 'notify gave up');
  });
  return {
    async close() {
      await worker.close();
      conn.disconnect();
    },
  };
}

/** Enqueues the job of an incident key, to run after `delayMs` (notifier clock). */
type Enqueue = (key: string, delayMs?: number) => Promise<void>;

/**
 * What the worker does with one job: the steps for its incident. A wait or a busy lock moves the job back to
 * delayed; Slack's rate limit delays it by Retry-After; a non-retryable error fails it for good.
 */
function jobProcessor(
  deps: StageDeps,
  enqueue: Enqueue,
  log: NotifierLogger | undefined,
  lockRetryMs: number,
): (job: Job<JobData>, token?: string) => Promise<StepName[]> {
  const delay = async (job: Job<JobData>, token: string | undefined, untilWallMs: number): Promise<never> => {
    await job.moveToDelayed(Math.max(Date.now(), untilWallMs), token);
    throw new DelayedError();
  };
  return async (job, token) => {
    const key = job.data.key;
    let out: StageOutcome;
    try {
      out = await processIncident(deps, key);
    } catch (e) {
      const err = toRwxError(e);
      if (err.code === 'SLACK_RATE_LIMITED') {
        log?.warn({ key, retryAfterSeconds: err.retryAfterSeconds }, 'slack rate limited: job delayed');
        return delay(job, token, Date.now() + (err.retryAfterSeconds ?? 1) * 1000);
      }
      log?.error({ key, code: err.code, retryable: err.retryable, err: err.message }, 'notify failed');
      if (!err.retryable) throw new UnrecoverableError(`${err.code}: ${err.message}`);
      throw err;
    }
    // Timers run on the injected clock; BullMQ delays run on the wall clock: convert the remaining time.
    if (out.kind === 'locked') return delay(job, token, Date.now() + lockRetryMs);
    if (out.kind === 'wait') {
      await job.moveToDelayed(Date.now() + Math.max(0, out.until - deps.clock.now()), token);
      // An evaluation recorded after this run's last read and enqueued before the move waits behind this job (BullMQ
      // holds it until the job finishes, which may be hours away): read the record again now that a new job would
      // replace this delayed one, and run it sooner if it has something to do sooner.
      const due = await nextDue(deps, key);
      if (due !== undefined && due < out.until) await enqueue(key, due - deps.clock.now());
      throw new DelayedError();
    }
    if (out.steps.length > 0) log?.info({ key, steps: out.steps }, 'notified');
    return out.steps;
  };
}

// When the incident's record next needs a run (notifier clock): now for a step, the time of a wait, never for none.
async function nextDue(deps: StageDeps, key: string): Promise<number | undefined> {
  const r = await deps.store.get(key);
  if (!r) return undefined;
  const now = deps.clock.now();
  const next = decide(r, now, deps.timers);
  return next.step === 'none' ? undefined : next.step === 'wait' ? next.until : now;
}
