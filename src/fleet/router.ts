// The fleet's command router: what the `/rwx` listener calls instead of enqueueing on its own cluster's queue.
// Slack hands a command to whichever bot of the fleet it picks; the listener has already acknowledged it. The
// router decides which cluster it is about (target.ts), and then either answers on the response_url at once (a
// question, an unknown cluster, a silent cluster: nothing is run) or enqueues it on that cluster's queue, whose
// worker answers. It then watches the job: one that no worker has taken after `answerTimeoutMs` is withdrawn and
// answered as such, so no command waits forever on a cluster that died after its last heartbeat.
import type { ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { createCommandQueue, parseCommand, type ResponseSender } from '../commands/index.js';
import type { CommandJob } from '../commands/queue.js';
import type { Clock } from '../domain/clock.js';
import { fleetHealth, type ClusterHealth } from './heartbeat.js';
import type { FleetKeys } from './keys.js';
import { clustersHaving } from './names.js';
import { renderNotTaken, renderSilent, renderUnrouted } from './render.js';
import { nameOf, targetOf, type Target, type WorkCommand } from './target.js';
import { ANSWER_TIMEOUT_MS, untilTaken } from './untaken.js';

/** What the router needs. */
export interface RouterOptions {
  /** For heartbeats and published names. */
  redis: Redis;
  /** For the clusters' BullMQ command queues (a connection with maxRetriesPerRequest: null). */
  connection: ConnectionOptions;
  keys: FleetKeys;
  /** This cluster's name. */
  self: string;
  channelClusters: Readonly<Record<string, string>>;
  sender: ResponseSender;
  /** The heartbeats' clock. */
  clock: Clock;
  silentAfterMs?: number;
  answerTimeoutMs?: number;
  /** How often a routed job's state is read while it waits (default 250 ms). */
  pollMs?: number;
  log?: { warn(obj: object, msg: string): void };
  /** Told where each command went (tests, metrics): the target and, when enqueued, the job id. */
  routed?: (job: CommandJob, target: Target, jobId?: string) => void;
}

/** The listener's `enqueue` for a fleet member, and close() for shutdown. */
export interface CommandRouter {
  enqueue(job: CommandJob, jobId?: string): Promise<void>;
  /** Stops watching jobs and closes the queues it opened. */
  close(): Promise<void>;
}

/** Creates the router. */
export function createRouter(o: RouterOptions): CommandRouter {
  const queues = new Map<string, ReturnType<typeof createCommandQueue>>();
  const queueOf = (cluster: string): ReturnType<typeof createCommandQueue> => {
    let q = queues.get(cluster);
    if (!q) {
      q = createCommandQueue({ connection: o.connection, prefix: o.keys.cluster(cluster) });
      queues.set(cluster, q);
    }
    return q;
  };
  const watches = new Set<Promise<void>>();
  let closed = false;

  const enqueue = async (job: CommandJob, jobId?: string): Promise<void> => {
    const cmd = parseCommand(job.text);
    // The listener answers help and usage itself; anything else that arrives here runs where it was received.
    if (cmd.kind === 'help' || cmd.kind === 'usage') {
      await queueOf(o.self).enqueue(job, jobId);
      return;
    }
    const health = await fleetHealth(o.redis, o.keys.heartbeats, o.clock, o.silentAfterMs);
    const target = await decide(o, cmd, job, health);
    if (target.kind !== 'cluster') {
      o.routed?.(job, target);
      await o.sender.send(job.responseUrl, renderUnrouted(target, job.text, cmd.public).response);
      return;
    }
    const h = health.find((c) => c.name === target.cluster);
    if (target.cluster !== o.self && (!h || h.silent)) {
      o.routed?.(job, target);
      await o.sender.send(job.responseUrl, renderSilent(target.cluster, h?.silentForMs, cmd.public).response);
      return;
    }
    const queue = queueOf(target.cluster);
    const id = await queue.enqueue(job, jobId);
    o.routed?.(job, target, id);
    if (id === undefined) return;
    const w: Promise<void> = watch(o, queue, id, target.cluster, job, cmd.public, () => closed)
      .catch((e: unknown) => o.log?.warn({ err: String(e), cluster: target.cluster }, 'could not watch a command'))
      .finally(() => watches.delete(w));
    watches.add(w);
  };

  return {
    enqueue,
    async close() {
      closed = true;
      await Promise.all([...watches]);
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

// The target, with the names lookup done only when the decision needs it. A silent cluster whose published names
// still hold the name is a candidate (the answer then says it is silent); one whose names are gone is not a
// "maybe": otherwise one cluster down for longer than the names live would make every command a question.
async function decide(o: RouterOptions, cmd: WorkCommand, job: CommandJob, health: ClusterHealth[]): Promise<Target> {
  const known = health.map((c) => c.name);
  const input = { cmd, self: o.self, known, channelId: job.channelId, channelClusters: o.channelClusters };
  const first = targetOf(input);
  const about = nameOf(cmd);
  if (first.kind !== 'ask' || !about) return first;
  const all = [...new Set([...known, o.self])];
  const found = await clustersHaving(o.redis, o.keys, all, about.what, about.name);
  const silent = new Set(health.filter((c) => c.silent && c.name !== o.self).map((c) => c.name));
  const having = { has: found.has, maybe: found.maybe.filter((c) => !silent.has(c)) };
  return targetOf({ ...input, having });
}

// Waits until a worker takes the job; one withdrawn after the timeout is answered as such.
async function watch(
  o: RouterOptions,
  queue: ReturnType<typeof createCommandQueue>,
  id: string,
  cluster: string,
  job: CommandJob,
  pub: boolean,
  closed: () => boolean,
): Promise<void> {
  const timeoutMs = o.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
  const waited = await untilTaken(queue.queue, id, { timeoutMs, ...(o.pollMs ? { pollMs: o.pollMs } : {}), closed });
  if (typeof waited === 'string') return;
  await o.sender.send(job.responseUrl, renderNotTaken(cluster, waited.withdrawnAfterMs, pub).response);
}
