// One cluster's part in a fleet (RWX_FLEET): what `rwx serve` adds when several clusters share one Redis and one
// Slack app. It keeps the cluster's heartbeat and published names current, routes the commands and clicks it
// receives to the cluster they are about (router.ts, actions.ts), runs the worker for clicks routed to it, and
// gives /rwx status the whole fleet. Its own records and queues live under the cluster's prefix (keys.ts).
import type { ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CommandServices, ResponseSender } from '../commands/index.js';
import { cachedPermalinks } from '../commands/permalinks.js';
import type { IncidentActions } from '../domain/actions.js';
import type { Clock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { SlackApi } from '../slack/api.js';
import type { IncidentStore } from '../store/incident-store.js';
import { routedActions, startActionWorker } from './actions.js';
import { beat, fleetHealth, HEARTBEAT_EVERY_MS } from './heartbeat.js';
import { fleetKeys, type FleetKeys } from './keys.js';
import { namesOf, namesSignature, publishDue, publishNames, PUBLISH_EVERY_MS } from './names.js';
import { fromCluster } from './render.js';
import { rateLimitedSlack, redisChannelLimiter } from './rate-limit.js';
import { createRouter } from './router.js';
import { fleetStatusSources } from './status.js';

/** `slack` with chat.postMessage spaced per channel across the fleet (rate-limit.ts). */
export function fleetSlack(slack: SlackApi, redis: Redis, base: string): SlackApi {
  return rateLimitedSlack(slack, redisChannelLimiter(redis, fleetKeys(base).rate));
}

/** What a member is started with. */
export interface FleetMemberOptions {
  /** RWX_REDIS_PREFIX (the fleet's base prefix) and RWX_CLUSTER_NAME. */
  base: string;
  self: string;
  channelClusters: Readonly<Record<string, string>>;
  /** The bot's connection (heartbeats, names, status) and one for BullMQ (maxRetriesPerRequest: null). */
  redis: Redis;
  connection: ConnectionOptions;
  clock: Clock;
  /** The watcher's cache and whether it has synced (names are published only from a complete cache). */
  index: () => ClusterIndex | undefined;
  synced: () => boolean;
  /** Resolves when the cache first syncs: the names are published then, not at the next period. */
  whenSynced?: () => Promise<void>;
  /**
   * This cluster's notifier (its button operations) and its store, and Slack for private replies to clicks and
   * the thread links of /rwx status (one Slack app for the whole fleet: any member can link any thread).
   */
  local: IncidentActions;
  store: Pick<IncidentStore, 'get'>;
  slack: Pick<SlackApi, 'postEphemeral' | 'permalink'>;
  /** Answers on response_urls. */
  sender: ResponseSender;
  log?: { warn(obj: object, msg: string): void };
  /** Tests shorten these. */
  tuning?: { heartbeatMs?: number; publishMs?: number; silentAfterMs?: number; answerTimeoutMs?: number };
}

/** A running member: the hooks `rwx serve` plugs into its Slack app and commands. */
export interface FleetMember {
  keys: FleetKeys;
  /** The listener's enqueue (routes to the cluster the command is about). */
  enqueue: ReturnType<typeof createRouter>['enqueue'];
  /** The button operations (this cluster's here, the others' routed). */
  actions: IncidentActions;
  /** /rwx status over the whole fleet. */
  status: Pick<CommandServices, 'openIncidents' | 'clusters'>;
  /** The worker's response_url sender: every answer says which cluster gave it. */
  sender: ResponseSender;
  /** Writes the heartbeat and publishes the names now (also done periodically). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a member: first heartbeat and names at once, then periodically until close(). */
export async function startFleetMember(o: FleetMemberOptions): Promise<FleetMember> {
  const keys = fleetKeys(o.base);
  const t = o.tuning ?? {};
  const health = () => fleetHealth(o.redis, keys.heartbeats, o.clock, t.silentAfterMs);
  const router = memberRouter(o, keys);
  const wait = t.answerTimeoutMs !== undefined ? { wait: { timeoutMs: t.answerTimeoutMs } } : {};
  const actions = routedActions({ connection: o.connection, keys, self: o.self, local: o.local, health, ...wait });
  const worker = startActionWorker({ ...o, prefix: keys.cluster(o.self) });
  const heartbeat = () => beat(o.redis, keys.heartbeats, o.self, o.clock.now());
  const every = t.publishMs ?? PUBLISH_EVERY_MS;
  const publish = namesPublisher(o, keys, every);
  const timers = await keepCurrent(o, heartbeat, publish, every);
  const permalinks = cachedPermalinks(o.slack);
  const status = fleetStatusSources({ redis: o.redis, keys, self: o.self, clock: o.clock, permalinks, ...t });
  return {
    keys,
    enqueue: router.enqueue,
    actions,
    status,
    sender: { send: (url, body) => o.sender.send(url, fromCluster(body, o.self)) },
    async refresh() {
      await heartbeat();
      await publish(true);
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      await router.close();
      await actions.close();
      await worker.close();
    },
  };
}

/** The router of the commands this member receives, with the member's tuning. */
function memberRouter(o: FleetMemberOptions, keys: FleetKeys): ReturnType<typeof createRouter> {
  const t = o.tuning ?? {};
  return createRouter({
    redis: o.redis,
    connection: o.connection,
    keys,
    self: o.self,
    channelClusters: o.channelClusters,
    sender: o.sender,
    clock: o.clock,
    ...(t.silentAfterMs !== undefined ? { silentAfterMs: t.silentAfterMs } : {}),
    ...(t.answerTimeoutMs !== undefined ? { answerTimeoutMs: t.answerTimeoutMs } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
}

/**
 * Publishes the cluster's names from a synced cache only: when they changed or `every` ms passed (publishDue),
 * or whenever `force`d.
 */
function namesPublisher(o: FleetMemberOptions, keys: FleetKeys, every: number): (force?: boolean) => Promise<void> {
  let last: { at: number; signature: string } | undefined;
  return async (force = false) => {
    const index = o.index();
    if (!index || !o.synced()) return;
    const signature = namesSignature(index);
    const now = Date.now();
    if (!force && !publishDue(last, signature, now, every)) return;
    await publishNames(o.redis, keys, o.self, namesOf(index));
    last = { at: now, signature };
  };
}

/**
 * Beats and publishes the names now, again (forced) when the cache first syncs, then on timers: the heartbeat
 * every heartbeatMs, the names checked every second (at most every `every` ms). A periodic failure is logged, not
 * thrown. Returns the timers for close().
 */
async function keepCurrent(
  o: FleetMemberOptions,
  heartbeat: () => Promise<void>,
  publish: (force?: boolean) => Promise<void>,
  every: number,
): Promise<ReturnType<typeof setInterval>[]> {
  const quietly = (what: string, f: () => Promise<void>) => () =>
    void f().catch((e: unknown) => o.log?.warn({ err: String(e) }, `fleet: ${what} failed`));
  await heartbeat();
  await publish();
  void o.whenSynced?.().then(
    quietly('publishing names', () => publish(true)),
    () => undefined,
  );
  return [
    setInterval(quietly('heartbeat', heartbeat), o.tuning?.heartbeatMs ?? HEARTBEAT_EVERY_MS),
    setInterval(quietly('publishing names', publish), Math.min(1000, every)),
  ];
}
