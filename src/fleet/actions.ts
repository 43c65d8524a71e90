// The incident buttons in a fleet. A button's value is its incident's key, qualified by the cluster that owns it
// (`prod-eu-1:rollout/...`, see domain/cluster.ts), and whichever bot Slack hands the click to acknowledges it
// at once. A click on another cluster's incident goes onto that cluster's action queue and its own bot acts on
// its record (a Resolve reads that cluster's view of its pods and CronJobs), telling the clicker privately when the
// click changed nothing. A cluster that is silent is not waited for: the clicker is told, and nothing changes. A
// cluster that died after its last heartbeat gets the click for at most 30 s (untaken.ts, as for commands): then it
// is withdrawn and the clicker told, so no click waits forever or lands an hour later when the bot comes back.
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { ActionResult, IncidentActions } from '../domain/actions.js';
import type { Clock } from '../domain/clock.js';
import { splitKey } from '../domain/cluster.js';
import type { SlackApi } from '../slack/api.js';
import type { IncidentStore } from '../store/incident-store.js';
import { workerOptions } from '../store/ride-out.js';
import type { ClusterHealth } from './heartbeat.js';
import type { FleetKeys } from './keys.js';
import { notAnswered } from './render.js';
import { untilTaken, type WaitOptions } from './untaken.js';

/** The action queue's name (under each cluster's prefix). */
export const ACTION_QUEUE = 'rwx-actions';

/** One routed click. Plain JSON: it crosses Redis. */
export interface ActionJob {
  action: 'acknowledge' | 'mute' | 'resolve';
  /** The qualified incident key (the button's value). */
  key: string;
  user: string;
  /** When clicked (the receiver's clock). */
  at: number;
  /** Mute only. */
  durationMs?: number;
}

/** What routing a click needs. */
export interface ActionRouterOptions {
  connection: ConnectionOptions;
  keys: FleetKeys;
  self: string;
  /** This cluster's own button operations (the notifier's). */
  local: IncidentActions;
  health: () => Promise<ClusterHealth[]>;
  /** How long a routed click waits for the owner's worker (default ANSWER_TIMEOUT_MS) and how often it looks. */
  wait?: Omit<WaitOptions, 'closed'>;
}

const OK: ActionResult = { status: 'done', message: '' };

/** IncidentActions that act on this cluster's incidents here and enqueue the others' on their owners' queues. */
export function routedActions(o: ActionRouterOptions): IncidentActions & { close(): Promise<void> } {
  const queues = new Map<string, Queue<ActionJob>>();
  const waits = new Set<Promise<unknown>>();
  let closed = false;
  const route = async (job: ActionJob, run: () => Promise<ActionResult>): Promise<ActionResult> => {
    const owner = splitKey(job.key).cluster;
    if (owner === undefined || owner === o.self) return run();
    const h = (await o.health()).find((c) => c.name === owner);
    if (!h || h.silent)
      return { status: 'unknown', message: `${notAnswered(owner, h?.silentForMs)} Nothing was changed.` };
    let q = queues.get(owner);
    if (!q) {
      q = new Queue<ActionJob>(ACTION_QUEUE, { connection: o.connection, prefix: o.keys.cluster(owner) });
      q.on('error', () => undefined); // Redis trouble shows in the bot's readiness check
      queues.set(owner, q);
    }
    const added = await q.add(job.action, job, {
      attempts: 4,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: 100,
    });
    // The button was acknowledged already; its response_url stays valid, so the answer can wait for the owner.
    const wait = added.id ? untilTaken(q, added.id, { ...o.wait, closed: () => closed }) : Promise.resolve('taken');
    waits.add(wait);
    const waited = await wait.finally(() => waits.delete(wait));
    if (typeof waited === 'string') return OK;
    const withdrawn = 'The click was withdrawn; nothing was changed.';
    return { status: 'unknown', message: `${notAnswered(owner, waited.withdrawnAfterMs)} ${withdrawn}` };
  };
  return {
    acknowledge: (key, user, now) =>
      route({ action: 'acknowledge', key, user, at: now }, () => o.local.acknowledge(key, user, now)),
    mute: (key, user, durationMs, now) =>
      route({ action: 'mute', key, user, at: now, durationMs }, () => o.local.mute(key, user, durationMs, now)),
    resolve: (key, user, now) =>
      route({ action: 'resolve', key, user, at: now }, () => o.local.resolve(key, user, now)),
    async close() {
      closed = true;
      await Promise.allSettled([...waits]);
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

/**
 * The worker for clicks routed to this cluster: runs each on the local actions, and when it changed nothing (or
 * the incident is gone) tells the clicker privately in the incident's channel, as a local click would.
 */
export function startActionWorker(o: {
  connection: ConnectionOptions;
  prefix: string;
  local: IncidentActions;
  store: Pick<IncidentStore, 'get'>;
  slack: Pick<SlackApi, 'postEphemeral'>;
  clock: Clock;
}): { close(): Promise<void> } {
  const worker = new Worker<ActionJob>(
    ACTION_QUEUE,
    async (job) => {
      // Acted on as of the click (a mute runs from when it was asked for), never in the future of this clock.
      const d = job.data;
      const at = Math.min(d.at, o.clock.now());
      const res =
        d.action === 'acknowledge'
          ? await o.local.acknowledge(d.key, d.user, at)
          : d.action === 'mute'
            ? await o.local.mute(d.key, d.user, d.durationMs ?? 3_600_000, at)
            : await o.local.resolve(d.key, d.user, at);
      if (res.status === 'done') return;
      const channel = (await o.store.get(d.key))?.channel;
      if (channel) await o.slack.postEphemeral({ channel, user: d.user, text: res.message });
    },
    { connection: o.connection, prefix: o.prefix, concurrency: 2, ...workerOptions },
  );
  worker.on('error', () => undefined); // Redis trouble shows in the bot's readiness check
  return { close: () => worker.close() };
}
