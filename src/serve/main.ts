// `rwx serve` assembled from a Config, in the order data flows: the live cluster source and its watcher, Redis,
// the Slack Web API (counted), the node agents and the notifier (both read the watcher's cache), then the pipeline,
// with the ops server on PORT. Returns the running parts; the CLI waits for a signal and stops.
// The notifier's wiring is in wiring.ts, the Slack app, /rwx and the fleet member in slack-side.ts.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Notifier } from '../notify/notifier.js';
import { buildInfo } from '../build-info.js';
import { type Config, maskUrl } from '../config/index.js';
import { describeRedis } from '../config/redis.js';
import { systemClock } from '../domain/clock.js';
import { fleetSlack } from '../fleet/member.js';
import { openApi, project } from '../kube/index.js';
import { SlackLink } from '../slack/link.js';
import type { SlackApi } from '../slack/api.js';
import { KubeClusterSource } from '../watch/kube-source.js';
import type { ClusterSource } from '../watch/source.js';
import type { ClusterWatcher } from '../watch/watcher.js';
import { serveProjector } from '../watch/slim.js';
import { createWatcher, nodeProofs, startServe, type RunningServe } from './app.js';
import { clusterClaim, type ClusterClaim } from './cluster-claim.js';
import { redisEvaluatorLease, type EvaluatorLease } from './lease.js';
import { ServeMetrics } from './metrics.js';
import type { ServeOverrides } from './overrides.js';
import { connectRedis, redisProbe, watchRedisLink } from './redis.js';
import { doubtfulReplies, doubtWindowMs } from './reply-doubt.js';
import { startOwnCommands, startSlackApp } from './slack-side.js';
import { fleetCorrelator, notices, ownRecords, ownScope, serveNotifier, serveSlack, serveSync } from './wiring.js';

export type { ServeOverrides } from './overrides.js';

/** Starts the bot from a loaded Config. Throws RwxError (CONFIG, REDIS_UNREACHABLE) before anything runs. */
export async function runServe(config: Config, log: Logger, o: ServeOverrides = {}): Promise<RunningServe> {
  const source = o.source ?? (await clusterSource(config, o.env ?? process.env));
  const { redis, claim } = await serveRedis(config, log);
  const slackCalls = new AbortController();
  const metrics = new ServeMetrics({ processMetrics: true, build: buildInfo(o.env ?? process.env) });
  const slack = serveSlack(config, log, metrics, o, slackCalls.signal);
  const watcher = serveWatcher(config, source, log, metrics, o);
  // The node agents are asked whenever any runs; without them the thread says the proof is unavailable.
  // Its answers are stamped on the pipeline's clock: a report older than the plugin pod now running is stale.
  const proofs = nodeProofs(watcher, { ...(o.parts?.clock ? { clock: o.parts.clock } : {}), ...o.parts?.proof });
  const scope = ownScope(config);
  const prefix = scope.prefix;
  // A fleet shares Slack's per-channel rate: the notifier's posts take turns from one limiter in Redis.
  const posting = config.fleet.enabled ? fleetSlack(slack, redis, config.redis.prefix) : slack;
  const replying = doubtingAfterRedis(config, redis, log, metrics, posting);
  const notifier = serveNotifier(config, prefix, { redis, slack: replying, log, metrics }, o, watcher.index, proofs);
  // Bolt's HTTP receiver owns PORT in HTTP mode: the ops endpoints are mounted on it as custom routes.
  const bolt = o.bolt ?? true;
  const boltOnPort = bolt && config.slack.mode === 'http';
  // Not ready until Socket Mode is connected (HTTP mode: auth.test succeeded); the Bolt app keeps it current.
  const link = new SlackLink();
  const slackCheck = bolt ? [{ name: 'slack', probe: () => link.probe() }] : [];
  const lease = evaluatorLease(config, redis, notifier, o.leaseTtlMs);
  // A fleet member tells the fleet what each recorded evaluation found (links, rollout warnings).
  const fleet = config.fleet.enabled ? fleetCorrelator(config, redis, notifier, posting, log, o) : undefined;
  const clock = o.parts?.clock ?? systemClock;
  const running = await startServe({
    watcher,
    proofs,
    ...ownRecords(notifier.store, scope),
    lease: claim ? claim.guard(lease, log) : lease,
    notifier,
    ...(fleet ? { observe: (incidents, index) => fleet.observe(incidents, index) } : {}),
    log,
    metrics,
    sync: serveSync(config, scope, proofs),
    checks: [redisCheck(redis), ...(claim ? [{ name: 'prefix', probe: claim.probe }] : []), ...slackCheck],
    ...(boltOnPort ? {} : { port: o.port ?? config.port }),
    // A Slack call still unanswered once the notifier gave up waiting (a hung edit) is aborted: it must not hold
    // the process for the rest of its timeout; the step it belonged to is redone after the restart.
    closers: [
      { name: 'slack calls', close: async () => slackCalls.abort() },
      { name: 'redis', close: () => redis.quit() },
    ],
    ...notices(config, { redis, prefix, slack, posting, log, lease, roots: notifier, clock }),
    ...o.parts,
  });
  const shared = { notifier, redis, slack, log, metrics, prefix };
  if (bolt) await startSlackApp(config, running, { ...shared, link }, o);
  else if (o.commands) await startOwnCommands(config, running, shared, { ...o, commands: o.commands });
  return running;
}

/** The watcher of `source`: serve's projection, the configured watch timers, the test overrides' parts. */
function serveWatcher(
  config: Config,
  source: ClusterSource,
  log: Logger,
  metrics: ServeMetrics,
  o: ServeOverrides,
): ClusterWatcher {
  return createWatcher({
    source,
    project: serveProjector(project),
    log,
    metrics,
    watchIdleMs: config.timers.watchIdleTimeoutMs,
    retryMaxMs: config.timers.retryMaxMs,
    ...o.parts,
  });
}

/** The live cluster, read through the kubeconfig (or in-cluster credentials). */
async function clusterSource(config: Config, env: NodeJS.ProcessEnv): Promise<KubeClusterSource> {
  return new KubeClusterSource(
    await openApi({ kubeconfig: config.kube.kubeconfig, context: config.kube.context, env }),
  );
}

/**
 * One evaluator per cluster (in a fleet, the lease is the cluster's), named as the notifier's locks: a replica
 * restarted in place takes over its dead predecessor's lease at once.
 */
function evaluatorLease(config: Config, redis: Redis, notifier: Notifier, ttlMs?: number): EvaluatorLease {
  const prefix = config.fleet.enabled ? `${config.redis.prefix}:${config.clusterName}` : config.redis.prefix;
  const { owner, predecessor } = notifier.identity;
  return redisEvaluatorLease(redis, prefix, ttlMs, { id: owner, predecessor });
}

/**
 * The bot's Redis connection, and outside a fleet the claim on its prefix (one prefix is one cluster's: another
 * cluster's bot on it refuses to start, cluster-claim.ts); throws RwxError naming what to check.
 */
async function serveRedis(config: Config, log: Logger): Promise<{ redis: Redis; claim?: ClusterClaim }> {
  const redis = await connectRedis(config.redis, {
    fix: 'check REDIS_URL (or REDIS_SENTINELS, REDIS_CLUSTER_NODES) and REDIS_PASSWORD, that Redis runs, and that this pod may reach it',
  });
  log.info({ redis: describeRedis(config.redis, maskUrl), prefix: config.redis.prefix }, 'redis connected');
  if (config.fleet.enabled) return { redis };
  const claim = clusterClaim(redis, config.redis.prefix, config.clusterName);
  await claim.check().catch((e: unknown) => {
    redis.disconnect();
    throw e;
  });
  return { redis, claim };
}

/**
 * `posting` as the notifier replies with: once Redis is back (a failover may have lost the last writes), replies
 * are looked up before posting for a while (reply-doubt.ts). Redis's link is counted (rwx_redis_up) meanwhile.
 */
function doubtingAfterRedis(
  config: Config,
  redis: Redis,
  log: Logger,
  metrics: ServeMetrics,
  posting: SlackApi,
): SlackApi {
  const replies = doubtfulReplies(posting);
  watchRedisLink(redis, log, (up) => {
    metrics.redisUp.set(up ? 1 : 0);
    if (up) replies.doubt(doubtWindowMs(config.timers.groupIntervalMs));
  });
  return replies.slack;
}

/** Readiness: Redis answers. */
function redisCheck(redis: Redis): { name: string; probe: ReturnType<typeof redisProbe> } {
  return { name: 'redis', probe: redisProbe(redis) };
}
