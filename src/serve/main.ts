// `rwx serve` assembled from a Config: the live cluster source, Redis, the Slack Web API (counted), the notifier
// and the pipeline, with the ops server on PORT. Returns the running parts; the CLI waits for a signal and stops.
// The notifier's wiring is in wiring.ts, the Slack app, /rwx and the fleet member in slack-side.ts.
import type { Logger } from 'pino';
import { buildInfo } from '../build-info.js';
import { type Config, maskUrl } from '../config/index.js';
import { describeRedis } from '../config/redis.js';
import { systemClock } from '../domain/clock.js';
import { fleetSlack, memberNotifier } from '../fleet/member.js';
import { scopedKey } from '../fleet/keys.js';
import { openApi, project } from '../kube/index.js';
import { unresolvedRecords } from '../notify/record.js';
import { auditSlack, pinoAudit } from '../slack/audit.js';
import { SlackLink } from '../slack/link.js';
import { createWebSlackApi } from '../slack/web-api.js';
import { KubeClusterSource } from '../watch/kube-source.js';
import { serveProjector } from '../watch/slim.js';
import { startServe, type RunningServe } from './app.js';
import { clusterClaim } from './cluster-claim.js';
import { namedNotifier } from './cluster-name.js';
import { DeadMan } from './dead-man.js';
import { redisEvaluatorLease } from './lease.js';
import { slackLogger } from './log.js';
import { ServeMetrics } from './metrics.js';
import type { ServeOverrides } from './overrides.js';
import { connectRedis, redisProbe, watchRedisLink } from './redis.js';
import { RedisNotice } from './redis-notice.js';
import { doubtfulReplies, doubtWindowMs } from './reply-doubt.js';
import { startOwnCommands, startSlackApp } from './slack-side.js';
import { realStages } from './stages.js';
import { fleetCorrelator, ownScope, serveNotifier } from './wiring.js';

export type { ServeOverrides } from './overrides.js';

/** Starts the bot from a loaded Config. Throws RwxError (CONFIG, REDIS_UNREACHABLE) before anything runs. */
export async function runServe(config: Config, log: Logger, o: ServeOverrides = {}): Promise<RunningServe> {
  const source =
    o.source ??
    new KubeClusterSource(
      await openApi({ kubeconfig: config.kube.kubeconfig, context: config.kube.context, env: o.env ?? process.env }),
    );
  const redis = await connectRedis(config.redis, {
    fix: 'check REDIS_URL (or REDIS_SENTINELS, REDIS_CLUSTER_NODES) and REDIS_PASSWORD, that Redis runs, and that this pod may reach it',
  });
  log.info({ redis: describeRedis(config.redis, maskUrl), prefix: config.redis.prefix }, 'redis connected');
  // Outside a fleet one prefix is one cluster's: another cluster's bot on it refuses to start (cluster-claim.ts).
  const claim = config.fleet.enabled ? undefined : clusterClaim(redis, config.redis.prefix, config.clusterName);
  await claim?.check().catch((e: unknown) => {
    redis.disconnect();
    throw e;
  });
  const metrics = new ServeMetrics({ processMetrics: true, build: buildInfo(o.env ?? process.env) });
  // Every message posted or edited is counted (metrics) and leaves one audit line (slack/audit.ts).
  const slack = auditSlack(
    metrics.countSlack(
      o.slack ??
        createWebSlackApi({
          token: config.slack.botToken,
          ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
          // The Slack SDK's own log lines (warnings, debug) go through pino, as JSON like the rest.
          clientOptions: { logger: slackLogger(log, 'web-api') },
        }),
    ),
    pinoAudit(log),
  );
  // The index is created by the watcher inside startServe; resolution facts read it through this late binding.
  const late: { running?: RunningServe } = {};
  const prefix = ownScope(config).prefix;
  // A fleet shares Slack's per-channel rate: the notifier's posts take turns from one limiter in Redis.
  const posting = config.fleet.enabled ? fleetSlack(slack, redis, config.redis.prefix) : slack;
  // Redis back (a failover may have lost the last writes): replies are looked up before posting for a while.
  const replies = doubtfulReplies(posting);
  watchRedisLink(redis, log, (up) => {
    metrics.redisUp.set(up ? 1 : 0);
    if (up) replies.doubt(doubtWindowMs(config.timers.groupIntervalMs));
  });
  const notifier = serveNotifier(
    config,
    prefix,
    { redis, slack: replies.slack, log, metrics },
    o,
    () => late.running?.watcher.index,
    () => late.running?.proofs,
  );
  metrics.queueDepthFrom({ notify: () => notifier.queueDepth() });
  void notifier.resumed.then((keys) => metrics.resumed.inc(keys.length));
  // Bolt's HTTP receiver owns PORT in HTTP mode: the ops endpoints are mounted on it as custom routes.
  const bolt = o.bolt ?? true;
  const boltOnPort = bolt && config.slack.mode === 'http';
  // The pipeline knows incidents by their own keys; a fleet member's records carry the cluster too (and the
  // other clusters' records are theirs). One evaluator per cluster: in a fleet, the lease is the cluster's.
  const scope = ownScope(config);
  const ownRecords = async (): Promise<{ key: string; nodes: readonly string[] }[]> =>
    (await unresolvedRecords(notifier.store)).flatMap((r) => {
      const key = scopedKey(scope, r.key);
      return key === undefined ? [] : [{ key, nodes: r.observed.history.nodes }];
    });
  const ownKeys = async (): Promise<string[]> => (await ownRecords()).map((k) => k.key);
  const openNodes = async () => new Map((await ownRecords()).map((k) => [k.key, k.nodes]));
  const leasePrefix = config.fleet.enabled ? `${config.redis.prefix}:${config.clusterName}` : config.redis.prefix;
  // Not ready until Socket Mode is connected (HTTP mode: auth.test succeeded); the Bolt app keeps it current.
  const link = new SlackLink();
  const slackCheck = bolt ? [{ name: 'slack', probe: () => link.probe() }] : [];
  // Named as the notifier's locks: a replica restarted in place takes over its dead predecessor's lease at once.
  const lease = redisEvaluatorLease(redis, leasePrefix, o.leaseTtlMs, {
    id: notifier.identity.owner,
    predecessor: notifier.identity.predecessor,
  });
  const running = await startServe({
    source,
    openKeys: ownKeys,
    openNodes,
    lease: claim ? claim.guard(lease, log) : lease,
    notifier: namedNotifier(
      config.fleet.enabled
        ? memberNotifier(
            notifier,
            config.clusterName,
            fleetCorrelator(config, redis, notifier, posting, log, o),
            () => late.running?.watcher.index,
          )
        : notifier,
      config.clusterName,
    ),
    project: serveProjector(project),
    log,
    metrics,
    stages: realStages({
      stuckAfterMs: config.timers.stuckAfterMs,
      cronJobGraceMs: config.timers.cronJobGraceMs,
      driverDaemonSets: config.driverDaemonSets,
    }),
    watchIdleMs: config.timers.watchIdleTimeoutMs,
    retryMaxMs: config.timers.retryMaxMs,
    checks: [
      { name: 'redis', probe: redisProbe(redis) },
      ...(claim ? [{ name: 'prefix', probe: claim.probe }] : []),
      ...slackCheck,
    ],
    ...(boltOnPort ? {} : { port: o.port ?? config.port }),
    closers: [{ name: 'redis', close: () => redis.quit() }],
    // The node agents are asked whenever any runs; without them the thread says the proof is unavailable.
    proof: {},
    deadMan: new DeadMan({
      redis,
      prefix,
      slack: posting,
      channel: config.slack.channel,
      afterMs: config.timers.blindAfterMs,
      cluster: config.clusterName,
      log,
      roots: notifier,
    }),
    redisNotice: new RedisNotice({
      redis,
      prefix,
      slack,
      posting,
      channel: config.slack.channel,
      afterMs: config.timers.blindAfterMs,
      cluster: config.clusterName,
      log,
      lease,
      roots: notifier,
      clock: o.parts?.clock ?? systemClock,
    }),
    ...o.parts,
  });
  late.running = running;
  const shared = { notifier, redis, slack, log, metrics, prefix };
  if (bolt) await startSlackApp(config, running, { ...shared, link }, o);
  else if (o.commands) await startOwnCommands(config, running, shared, { ...o, commands: o.commands });
  return running;
}
