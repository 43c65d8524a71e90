// `/rwx` for `rwx serve`: builds the command services from the Config and the running bot's parts, so the serve
// composition adds one hook to createSlackApp. The handlers read the watcher's ClusterIndex (never the API), run
// the same detectors and correlator the pipeline runs (with the configured thresholds), and list incident records.
import type { Redis } from 'ioredis';
import type { Config } from '../config/schema.js';
import { evaluateSteps } from '../evaluate/evaluate.js';
import { runHeld } from '../watch/yielding.js';
import type { Clock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import { RedisIncidentStore } from '../store/redis-store.js';
import type { SlackApi } from '../slack/api.js';
import { triage } from '../triage/triage.js';
import type { CommandServices } from './handle.js';
import { commandsHook, fetchResponseSender, type ApiCaller, type ResponseSender } from './index.js';
import type { CommandJob } from './queue.js';
import type { CommandObserver } from './observe.js';
import { cachedPermalinks } from './permalinks.js';
import { openIncidentsFromStore } from './status-source.js';

/** What `rwx serve` hands over. */
export interface ServeCommandsOptions {
  config: Config;
  /** The watcher's cache, late-bound (the watcher is created after the app is built). */
  index: () => ClusterIndex;
  /** The incidents the pipeline has open (Pipeline.openKeys): /rwx drain sees the same incidents as the threads. */
  openKeys?: () => ReadonlySet<string>;
  /** The bot's Redis connection; duplicated for BullMQ, never closed here. */
  redis: Redis;
  slack: SlackApi;
  clock: Clock;
  /** Worker in this process (default true). */
  worker?: boolean;
  log?: { error(obj: object, msg: string): void };
  /** Told each command's outcome once (metrics). */
  observe?: CommandObserver;
  /** What the node agent on a node answers now (/rwx node); absent: "no agent" for every node. */
  nodeReport?: CommandServices['nodeReport'];
  /** What the node agents answer now (/rwx triage); absent: not asked. */
  nodeReports?: CommandServices['nodeReports'];
  /** For usergroups.users.list and conversations.open; default fastClient(botToken, apiUrl). */
  client?: ApiCaller;
  /**
   * In a fleet (src/fleet): this cluster's own key prefix (its command queue and worker), where the listener puts
   * commands (the queue of the cluster each is about), /rwx status over every cluster, and the worker's sender.
   */
  fleet?: {
    prefix: string;
    enqueue: (job: CommandJob, jobId?: string) => Promise<unknown>;
    status: Pick<CommandServices, 'openIncidents' | 'clusters'>;
    sender: ResponseSender;
  };
}

/** The response_url sender of `rwx serve`: Slack's origins, and SLACK_API_URL's when it is overridden (fakes). */
export function serveResponseSender(config: Config): ResponseSender {
  const apiOrigin = config.slack.apiUrl ? new URL(config.slack.apiUrl).origin : undefined;
  return fetchResponseSender({ extraOrigins: apiOrigin ? [apiOrigin] : [] });
}

/** The services the handlers use in `rwx serve`. */
export function serveServices(
  o: Pick<ServeCommandsOptions, 'config' | 'index' | 'redis' | 'clock' | 'openKeys' | 'nodeReport' | 'nodeReports'> & {
    slack?: Pick<SlackApi, 'permalink'>;
  },
): CommandServices {
  const t = o.config.timers;
  return {
    clock: o.clock,
    cluster: { index: o.index },
    triage,
    // In steps over the held cache (src/watch/yielding.ts): at 150k pods one evaluation is 0.2 s and more of work.
    evaluate: (index, now, opts) =>
      runHeld(index, () =>
        evaluateSteps(index, {
          now,
          config: { stuckAfterMs: t.stuckAfterMs, cronJobGraceMs: t.cronJobGraceMs },
          driverDaemonSets: o.config.driverDaemonSets,
          ...(o.openKeys ? { openKeys: o.openKeys() } : {}),
          ...(opts?.nodeReports ? { nodeReports: opts.nodeReports } : {}),
        }),
      ),
    openIncidents: openIncidentsFromStore(
      new RedisIncidentStore(o.redis, o.config.redis.prefix),
      o.slack ? cachedPermalinks(o.slack) : undefined,
    ),
    ...(o.nodeReport ? { nodeReport: o.nodeReport } : {}),
    ...(o.nodeReports ? { nodeReports: o.nodeReports } : {}),
  };
}

/**
 * The createSlackApp `registerCommands` hook for `rwx serve`, and `close()` for shutdown (stops the command
 * worker and queue, then drops the duplicated Redis connections).
 */
export function commandsForServe(o: ServeCommandsOptions): ReturnType<typeof commandsHook> {
  const connection = o.redis.duplicate({ maxRetriesPerRequest: null });
  connection.on('error', () => undefined); // reported by the bot's own Redis readiness check
  const apiOrigin = o.config.slack.apiUrl ? new URL(o.config.slack.apiUrl).origin : undefined;
  const hook = commandsHook({
    access: o.config.access,
    services: { ...serveServices(o), ...o.fleet?.status },
    redis: { connection, prefix: o.fleet?.prefix ?? o.config.redis.prefix },
    ...(o.fleet ? { enqueue: o.fleet.enqueue, sender: o.fleet.sender } : {}),
    clock: o.clock,
    slack: o.slack,
    botToken: o.config.slack.botToken,
    ...(o.config.slack.apiUrl ? { slackApiUrl: o.config.slack.apiUrl } : {}),
    ...(apiOrigin ? { extraResponseOrigins: [apiOrigin] } : {}),
    ...(o.worker === false ? { worker: false } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.observe ? { observe: o.observe } : {}),
    ...(o.client ? { client: o.client } : {}),
  });
  return {
    register: hook.register,
    async close() {
      await hook.close();
      connection.disconnect();
    },
  };
}
