// The notify worker: a BullMQ worker that runs the steps (steps-run.ts) for each job's incident, and what it does
// with each outcome: wait, a busy lock, Slack's rate limit, retryable failures (retried until delivered, capped
// backoff), failures for good. Split from notifier.ts, which wires it to the queue and the store.
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { DEFAULT_BACKOFF } from '../config/defaults.js';
import { type Backoff, backoffDelay } from '../domain/backoff.js';
import { toRwxError } from '../errors.js';
import { idempotentWorkerOptions, redisDown } from '../store/ride-out.js';
import { type StepName, decide } from './decide.js';
import type { Redis } from 'ioredis';
import { type StepDeps, type StepOutcome, processIncident } from './steps-run.js';

/** Minimal logger (pino-compatible). Never given tokens. */
export interface NotifierLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The notifier options the worker reads (NotifierOptions documents each). */
export interface WorkerOptions {
  redis: Redis;
  prefix: string;
  logger?: NotifierLogger;
  lockRetryMs?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  channelRetryMs?: number;
}

/** How long a job waits after Slack said the bot cannot use its channel (not invited, archived) before it asks again. */
export const CHANNEL_RETRY_MS = 5 * 60_000;

/** What a notify job carries: the incident key (the worker reads the latest record). */
export interface JobData {
  key: string;
  /** Consecutive retryable failures of this job (the backoff grows with them). */
  failures?: number;
}

/** The BullMQ queue's name (under the prefix: `<prefix>:notify`). */
export const QUEUE = 'notify';

/** A running BullMQ worker with its own connection. */
export interface RunningWorker {
  /** Waits for the job in flight, then closes. */
  close(): Promise<void>;
  /**
   * Stops at once: the jobs in flight go back to wait for the next process (rather than staying active until
   * BullMQ's stalled sweep), their incident locks left to expire or be broken (resume.ts).
   */
  abandon(): Promise<void>;
}

/** Whether `p` settled within `ms` (its failure counts as settled: close errors are not worth waiting for). */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// A BullMQ worker that runs the steps for each job's incident (at most 4 incidents at once).
export function startWorker(opts: WorkerOptions, deps: StepDeps, enqueue: Enqueue): RunningWorker {
  const log = opts.logger;
  const conn = opts.redis.duplicate({ maxRetriesPerRequest: null });
  const backoff: Backoff = {
    initialMs: opts.backoffMs ?? DEFAULT_BACKOFF.initialMs,
    maxMs: opts.maxBackoffMs ?? DEFAULT_BACKOFF.maxMs,
  };
  const inFlight = new Map<Job<JobData>, string | undefined>();
  const retry = { lockMs: opts.lockRetryMs ?? 250, channelMs: opts.channelRetryMs ?? CHANNEL_RETRY_MS };
  const run = jobProcessor(deps, enqueue, log, retry, backoff);
  const tracked = async (job: Job<JobData>, token?: string): Promise<StepName[]> => {
    inFlight.set(job, token);
    try {
      return await run(job, token);
    } finally {
      inFlight.delete(job);
    }
  };
  const worker = new Worker<JobData>(QUEUE, tracked, {
    connection: conn,
    prefix: opts.prefix,
    concurrency: 4,
    // BullMQ writes the name on every job it takes (processedBy): a restarted replica finds the jobs its predecessor
    // was killed holding by it, as it finds its locks (resume.ts).
    ...(deps.lockOwner ? { name: deps.lockOwner } : {}),
    ...idempotentWorkerOptions,
    // The job's lock lasts as long as its incident's (RWX_LOCK_TTL): a step cut off from Redis longer has lost both.
    lockDuration: deps.lockTtlMs,
  });
  worker.on('error', (e) => redisDown(e) || log?.error({ err: e.message }, 'notify worker error'));
  worker.on('failed', (job, e) => {
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1))
      log?.error({ key: job.data.key, err: e.message }, 'notify gave up');
  });
  return {
    async close() {
      await worker.close();
      conn.disconnect();
    },
    async abandon() {
      const jobs = [...inFlight];
      inFlight.clear();
      void worker.close(true).catch(() => undefined);
      await within(Promise.all(jobs.map(([job, token]) => job.moveToWait(token).catch(() => undefined))), 2_000);
      conn.disconnect();
    },
  };
}

/** Enqueues the job of an incident key, to run after `delayMs` (notifier clock). */
export type Enqueue = (key: string, delayMs?: number) => Promise<void>;

/**
 * What the worker does with one job: the steps for its incident. A wait or a busy lock moves the job back to
 * delayed; Slack's rate limit delays it by Retry-After; a channel the bot cannot use (not invited: a team channel
 * nobody invited it to) delays it by `retry.channelMs`, so it posts once invited, and touches no other channel's
 * record; any other retryable error delays it by the capped backoff, for as long as it takes; a non-retryable
 * error fails it for good.
 */
function jobProcessor(
  deps: StepDeps,
  enqueue: Enqueue,
  log: NotifierLogger | undefined,
  retry: { lockMs: number; channelMs: number },
  backoff: Backoff,
): (job: Job<JobData>, token?: string) => Promise<StepName[]> {
  const delay = async (job: Job<JobData>, token: string | undefined, untilWallMs: number): Promise<never> => {
    await job.moveToDelayed(Math.max(Date.now(), untilWallMs), token);
    throw new DelayedError();
  };
  return async (job, token) => {
    const key = job.data.key;
    let out: StepOutcome;
    try {
      out = await processIncident(deps, key);
    } catch (e) {
      const err = toRwxError(e);
      if (err.code === 'SLACK_RATE_LIMITED') {
        log?.warn({ key, retryAfterSeconds: err.retryAfterSeconds }, 'slack rate limited: job delayed');
        return delay(job, token, Date.now() + (err.retryAfterSeconds ?? 1) * 1000);
      }
      if (err.code === 'SLACK_CHANNEL') {
        const why =
          'the bot cannot post in this channel: invite it there (/invite @rwx); other channels are not affected';
        log?.warn({ key, retryInMs: retry.channelMs, err: err.message }, why);
        return delay(job, token, Date.now() + retry.channelMs);
      }
      if (!err.retryable) {
        log?.error({ key, code: err.code, err: err.message }, 'notify failed for good');
        throw new UnrecoverableError(`${err.code}: ${err.message}`);
      }
      const failures = (job.data.failures ?? 0) + 1;
      const waitMs = backoffDelay(backoff, failures);
      log?.warn({ key, code: err.code, failures, retryInMs: waitMs, err: err.message }, 'notify failed: will retry');
      await job.updateData({ key, failures });
      return delay(job, token, Date.now() + waitMs);
    }
    if (job.data.failures) await job.updateData({ key });
    // Timers run on the injected clock; BullMQ delays run on the wall clock: convert the remaining time.
    if (out.kind === 'locked') return delay(job, token, Date.now() + retry.lockMs);
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
async function nextDue(deps: StepDeps, key: string): Promise<number | undefined> {
  const r = await deps.store.get(key);
  if (!r) return undefined;
  const now = deps.clock.now();
  const next = decide(r, now, deps.timers);
  return next.step === 'none' ? undefined : next.step === 'wait' ? next.until : now;
}

/** What notifyQueue reads of the notifier's options. */
export interface QueueOptions {
  redis: Redis;
  prefix: string;
  attempts?: number;
  backoffMs?: number;
  logger?: NotifierLogger;
}

/**
 * The notify queue on its own connection (BullMQ's: no per-request retry limit), its errors logged but Redis
 * being away (the bot's own connection says that once).
 */
export function notifyQueue(opts: QueueOptions): { queue: Queue<JobData>; queueConn: Redis } {
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
  // Without a listener BullMQ prints every error to the console (each reconnect attempt during an outage).
  queue.on('error', (e) => redisDown(e) || opts.logger?.error({ err: e.message }, 'notify queue error'));
  return { queue, queueConn };
}
