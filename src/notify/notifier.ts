// The notifier: turns each evaluation's incidents into one Slack thread per incident. submit() records what the
// evaluation saw and enqueues a BullMQ job per new / changed / cleared incident (deduplicated by incident key);
// workers run the steps (steps-run.ts) under the per-incident lock. Any number of processes may share one Redis.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type Clock, systemClock } from '../domain/clock.js';
import { toRwxError } from '../errors.js';
import { defaultMs } from '../config/defaults.js';
import type { Incident, Submitted } from '../domain/incident.js';
import type { IncidentStore } from '../store/incident-store.js';
import { RedisIncidentStore } from '../store/redis-store.js';
import type { ObserveResolution, ResolutionFacts } from '../domain/resolution.js';
import type { SlackApi } from '../slack/api.js';
import { DEFAULT_TIMERS, type NotifyTimers } from './decide.js';
import type { ActionResult, IncidentActions } from '../domain/actions.js';
import { type TeamRoute, splitChannelKey } from '../domain/teams.js';
import { createIncidentActions } from './actions.js';
import { DEFAULT_MESSAGE_OPTIONS, type MessageOptions } from './deps.js';
import { channelRecords, recordChannels, teamKeysOf, teamPrefix } from './channels.js';
import { markStale } from './stale.js';
import { type Reconciled, reconcile } from './reconcile.js';
import { type LockIdentity, isPredecessors, lockIdentity, resumeInterrupted } from './resume.js';
import { type NotifierObserver, type StepDeps, type StepOutcome, processIncident } from './steps-run.js';
import { type Enqueue, type JobData, type NotifierLogger, notifyQueue, startWorker, within } from './worker.js';

export type { NotifierObserver } from './steps-run.js';

export type { NotifierLogger } from './worker.js';

/** Options of createNotifier. Only redis, prefix, slack and channel are required. */
export interface NotifierOptions {
  /** An ioredis connection; the notifier duplicates it for BullMQ and closes only its duplicates. */
  redis: Redis;
  /** Namespaces the records, locks and the BullMQ queue (`<prefix>:notify`). */
  prefix: string;
  slack: SlackApi;
  /** Channel id the incident threads go to. */
  channel: string;
  /** RWX_TEAM_CHANNELS: the team channels an incident is also posted in, by namespace (channels.ts). */
  teams?: readonly TeamRoute[];
  /** Link buttons, the user group a new root mentions, the resolution broadcast (default DEFAULT_MESSAGE_OPTIONS). */
  messages?: Partial<MessageOptions>;
  /** Overrides of DEFAULT_TIMERS (30s / 5m / 4h, kept firing for 60s). */
  timers?: Partial<NotifyTimers>;
  clock?: Clock;
  /** Default: RedisIncidentStore(redis, prefix). */
  store?: IncidentStore;
  /** Run a BullMQ worker in this process (default true); false for a submit-only process. */
  worker?: boolean;
  /**
   * Retryable failures (Slack 5xx, a dropped connection, Redis away) are retried until the step is delivered, with
   * the backoff of src/domain/backoff.ts from backoffMs (default 500 ms) capped at maxBackoffMs (default RWX_RETRY_MAX's,
   * 10 s: back within seconds of an outage ending): an outage longer than any fixed number of attempts must not lose
   * the incident. `attempts` (default 8) and backoffMs (as BullMQ's own exponential delay) only bound errors BullMQ
   * itself sees.
   */
  attempts?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long close() waits for an in-flight step before abandoning it (default 5 s, under the Slack request
   * timeout, so a hung call is abandoned rather than waited out; see close). */
  closeTimeoutMs?: number;
  /** Delay before retrying a job whose incident lock was busy (default 250 ms). */
  lockRetryMs?: number;
  /** Delay before retrying a job whose channel the bot cannot use, e.g. not invited (default 5 min, worker.ts). */
  channelRetryMs?: number;
  /** Lock TTL of the incident and of its job (default RWX_LOCK_TTL's, 30 s) and how long resolved records are kept (default 7 days). */
  lockTtlMs?: number;
  closedTtlMs?: number;
  /**
   * What the cluster says, when an incident clears or is resolved by hand, about every member it ever had (the
   * record's history): pods recovered / deleted, CronJobs completed since. See resolutionFacts in pipeline/resolution.ts.
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
   * as cleared (resolution posted), unless it is kept through the keep-firing window (NotifyTimers.keepFiring). New
   * incidents are created (first post after group_wait); changed and cleared ones get a job; unchanged ones cost one
   * Redis read. `resolutions` (by key) overrides observeResolution. Resolves once the records are written and the
   * jobs enqueued, with the keys of the incidents kept open though not reported.
   */
  submit(
    incidents: readonly Incident[],
    now: number,
    resolutions?: ReadonlyMap<string, ResolutionFacts>,
  ): Promise<Submitted>;
  /**
   * Records that the bot cannot see the cluster since `since` (undefined: it sees again) on every open incident,
   * and runs their jobs now, so each root gets or loses its stale line (stale.ts). Resolves with the keys marked.
   */
  markStale(since: number | undefined): Promise<string[]>;
  /** After Redis was away: every open root redrawn from its record, every open record's job run now (reconcile.ts). */
  reconcile(): Promise<Reconciled>;
  /** Runs the steps for one key right now, without the queue (tests, one-shot CLI use). */
  process(key: string): Promise<StepOutcome>;
  /** Jobs waiting or running (not the delayed ones: every open incident keeps one for its next timer). */
  queueDepth(): Promise<number>;
  /**
   * The store the notifier writes (e.g. for /rwx status): the incident channel's records and the team channels'
   * (their keys `<incident key>#<channel>`, domain/teams.ts isChannelKey), one open set over both.
   */
  readonly store: IncidentStore;
  /**
   * Stops the worker and closes the queue and the duplicated connections, within closeTimeoutMs: a step still in
   * flight then (a hung Slack call, Redis away) is abandoned; what it started is marked in its record, so the next
   * process looks it up instead of repeating it (resume.ts breaks the lock it leaves).
   */
  close(): Promise<void>;
  /** Settles once the start-up resume (resume.ts) is done: the keys it resumed (none without a worker). */
  readonly resumed: Promise<string[]>;
  /** This notifier's name in its locks, and which names are its dead predecessors' (the evaluator lease uses both). */
  readonly identity: { owner: string; predecessor(owner: string): boolean };
}

/**
 * Creates the notifier: `const n = createNotifier({ redis, prefix: 'rwx', slack, channel })`, then after each
 * evaluation `await n.submit(incidents, clock.now())`, and `await n.close()` on shutdown.
 */
export function createNotifier(opts: NotifierOptions): Notifier {
  const identity = lockIdentity(opts.replica || undefined);
  const deps = { ...stageDeps(opts), lockOwner: identity.owner };
  const timers = deps.timers;
  const { queue, queueConn } = notifyQueue(opts);
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
    const recorded = await recordChannels(
      { ...ctx, keepFiring: timers.keepFiring, observe: opts.observeResolution },
      deps.teams,
      incidents,
      now,
    );
    for (const j of recorded.jobs) await enqueue(j.key, j.delayMs);
    return { kept: recorded.kept };
  };

  const actions = createIncidentActions(deps);
  // After a click the jobs decide what is left: after a Resolve, close or follow up the CronJobs; in a team
  // channel whose root the click could not edit at once (its lock busy, Slack failing), show it.
  const thenJobs = async (key: string, res: ActionResult, self: boolean): Promise<ActionResult> => {
    if (res.status === 'unknown') return res;
    const incident = splitChannelKey(key).incident;
    for (const k of [...(self ? [incident] : []), ...(await teamKeysOf(deps.store, incident))]) await enqueue(k);
    return res;
  };
  return {
    acknowledge: async (key, user, now) => thenJobs(key, await actions.acknowledge(key, user, now), false),
    mute: async (key, user, ms, now) => thenJobs(key, await actions.mute(key, user, ms, now), false),
    resolve: async (key, user, now) => thenJobs(key, await actions.resolve(key, user, now), true),
    store: deps.store,
    submit,
    markStale: (since) => markStale(deps.store, enqueue, since),
    reconcile: () => reconcile(deps, enqueue),
    process: (key) => processIncident(deps, key),
    queueDepth: () => queue.getJobCountByTypes('waiting', 'active', 'prioritized'),
    resumed,
    identity: { owner: identity.owner, predecessor: (owner) => isPredecessors(owner, identity) },
    close: () => closeWithin(opts, { resumed, worker, queue, queueConn, identity }),
  };
}

// Notifier.close: within closeTimeoutMs, the step still in flight is abandoned (see the interface).
async function closeWithin(
  opts: NotifierOptions,
  p: {
    resumed: Promise<unknown>;
    worker: ReturnType<typeof startWorker> | undefined;
    queue: Queue<JobData>;
    queueConn: Redis;
    identity: LockIdentity;
  },
): Promise<void> {
  const deadline = Date.now() + (opts.closeTimeoutMs ?? 5_000);
  const left = (): number => Math.max(0, deadline - Date.now());
  await within(p.resumed, left());
  if (p.worker && !(await within(p.worker.close(), left()))) {
    opts.logger?.warn({}, 'notify worker did not stop in time: in-flight step abandoned');
    await p.worker.abandon();
  }
  await within(p.queue.close(), left());
  p.queueConn.disconnect();
  p.identity.retire();
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
function stageDeps(opts: NotifierOptions): StepDeps & { teams: readonly TeamRoute[] } {
  return {
    // Team channels' records are kept apart and read with their incident's buttons and thread (channels.ts).
    store: opts.store
      ? channelRecords(opts.store)
      : channelRecords(
          new RedisIncidentStore(opts.redis, opts.prefix),
          new RedisIncidentStore(opts.redis, teamPrefix(opts.prefix)),
        ),
    teams: opts.teams ?? [],
    slack: opts.slack,
    messages: { ...DEFAULT_MESSAGE_OPTIONS, ...opts.messages },
    timers: { ...DEFAULT_TIMERS, ...opts.timers },
    clock: opts.clock ?? systemClock,
    lockTtlMs: opts.lockTtlMs ?? defaultMs('lockTtl'),
    closedTtlMs: opts.closedTtlMs ?? 7 * 86_400_000,
    ...(opts.observeResolution ? { observe: opts.observeResolution } : {}),
    ...(opts.observer ? { observer: opts.observer } : {}),
  };
}
