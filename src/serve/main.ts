// `rwx serve` assembled from a Config: the live cluster source, Redis, the Slack Web API (counted), the notifier
// and the pipeline, with the ops server on PORT. Returns the running parts; the CLI waits for a signal and stops.
import { serveProjector } from '../watch/slim.js';
import { buildInfo } from '../build-info.js';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Config, maskUrl } from '../config/index.js';
import { connect, project } from '../kube/index.js';
import { type Notifier, createNotifier } from '../notify/notifier.js';
import { unresolvedRecords } from '../notify/record.js';
import type { SlackApi } from '../slack/api.js';
import { createSlackApp } from '../slack/app.js';
import { createWebSlackApi } from '../slack/web-api.js';
import { redisReplayLedger } from '../slack/request-guard.js';
import { auditSlack, pinoAudit } from '../slack/audit.js';
import { auditCommands } from '../commands/observe.js';
import { type LINK_BACKOFF, SlackLink } from '../slack/link.js';
import { authorize, fastClient, UsergroupCache } from '../commands/index.js';
import { webUsergroupDirectory as webUsergroups } from '../commands/slack-adapters.js';
import { commandsForServe, serveResponseSender } from '../commands/serve.js';
import type { ResponseSender } from '../commands/index.js';
import type { App } from '@slack/bolt';
import { createFleetCorrelator, type FleetCorrelator } from '../fleet/correlation.js';
import { fleetKeys, recordScope, scopedKey, type RecordScope } from '../fleet/keys.js';
import { fleetSlack, memberNotifier, startFleetMember, type FleetMemberOptions } from '../fleet/member.js';
import { systemClock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import { KubeClusterSource } from '../watch/kube-source.js';
import type { ClusterSource } from '../watch/source.js';
import { startServe, type RunningServe, type ServeParts } from './app.js';
import { namedNotifier } from './cluster-name.js';
import { ServeMetrics } from './metrics.js';
import { slackLogger } from './log.js';
import { redisEvaluatorLease } from './lease.js';
import { connectRedis, redisProbe, watchRedisLink } from './redis.js';
import { observeResolution, realStages } from './stages.js';
import { agentNodesIn, askAgents, type NodeProofs } from './proof.js';
import { observeWithProof } from './proof-sink.js';
import { DeadMan } from './dead-man.js';
import { RedisNotice } from './redis-notice.js';

/** What runServe may be given instead of building it (tests: a simulator source, a fake Slack). */
export interface ServeOverrides {
  source?: ClusterSource;
  slack?: SlackApi;
  env?: NodeJS.ProcessEnv;
  /** Ops port; default config.port. */
  port?: number;
  /** Extra startServe parts (clock, timers, tickMs) for tests. */
  parts?: Partial<ServeParts>;
  /** Start the Bolt app (buttons; HTTP or Socket Mode per config). Default true; tests drive Slack directly. */
  bolt?: boolean;
  /** Evaluator lease TTL (default LEASE_TTL_MS, 10 s) for tests. */
  leaseTtlMs?: number;
  /** Notifier tuning for tests. */
  notifier?: { lockTtlMs?: number; backoffMs?: number; channelRetryMs?: number };
  /** Fleet timers for tests (heartbeat, names, silence, how long a routed command may wait). */
  fleet?: FleetMemberOptions['tuning'];
  /** Backoff of the Slack connection loop (tests shorten it). */
  slackBackoff?: typeof LINK_BACKOFF;
  /**
   * Without Bolt (`bolt: false`): an app of the caller's that `/rwx` is registered on (its `command` listener), and
   * where the answers go instead of response_urls. The fleet demo routes a command through it.
   */
  commands?: { app: App; sender: ResponseSender };
}

/** Starts the bot from a loaded Config. Throws RwxError (CONFIG, REDIS_UNREACHABLE) before anything runs. */
export async function runServe(config: Config, log: Logger, o: ServeOverrides = {}): Promise<RunningServe> {
  const source =
    o.source ??
    new KubeClusterSource(
      await connect({ kubeconfig: config.kube.kubeconfig, context: config.kube.context, env: o.env ?? process.env }),
    );
  const redis = await connectRedis(config.redis.url, {
    password: config.redis.password,
    fix: 'check REDIS_URL (and REDIS_PASSWORD), that Redis runs, and that this pod may reach it',
  });
  log.info({ redis: maskUrl(config.redis.url), prefix: config.redis.prefix }, 'redis connected');
  const metrics = new ServeMetrics({ processMetrics: true, build: buildInfo(o.env ?? process.env) });
  watchRedisLink(redis, log, (up) => metrics.redisUp.set(up ? 1 : 0));
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
  const notifier = serveNotifier(
    config,
    prefix,
    { redis, slack: posting, log, metrics },
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
    lease,
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
    checks: [{ name: 'redis', probe: redisProbe(redis) }, ...slackCheck],
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

// What a fleet member learns from its incidents about the rest of the fleet (links, rollout warnings).
function fleetCorrelator(
  config: Config,
  redis: Redis,
  notifier: Notifier,
  slack: SlackApi,
  log: Logger,
  o: ServeOverrides,
): FleetCorrelator {
  return createFleetCorrelator({
    redis,
    keys: fleetKeys(config.redis.prefix),
    self: config.clusterName,
    channel: config.slack.channel,
    store: notifier.store,
    slack,
    clock: o.parts?.clock ?? systemClock,
    driverDaemonSets: Object.fromEntries(
      Object.entries(config.driverDaemonSets).map(([d, r]) => [d, `${r.namespace}/${r.name}`]),
    ),
    log,
  });
}

/** The channels RWX_TEAM_CHANNELS posts in. */
function teamChannels(config: Config): string[] {
  return [...new Set(config.teams.map((t) => t.channel))];
}

/** Where this cluster's own records are: RWX_REDIS_PREFIX, or in a fleet the cluster's part of it (src/fleet/keys.ts). */
function ownScope(config: Config): RecordScope {
  return recordScope(config.redis.prefix, config.fleet.enabled ? config.clusterName : undefined);
}

// A fleet member for this bot (heartbeat, names, routing); closed with the bot, before Redis.
async function startFleet(config: Config, r: RunningServe, s: Shared & { notifier: Notifier }, o: ServeOverrides) {
  const connection = s.redis.duplicate({ maxRetriesPerRequest: null });
  connection.on('error', () => undefined); // reported by the bot's own Redis readiness check
  const member = await startFleetMember({
    base: config.redis.prefix,
    self: config.clusterName,
    channelClusters: config.fleet.channelClusters,
    redis: s.redis,
    connection,
    clock: o.parts?.clock ?? systemClock,
    index: () => r.watcher.index,
    synced: () => r.watcher.synced(),
    local: s.notifier,
    store: s.notifier.store,
    slack: s.slack,
    sender: o.commands?.sender ?? serveResponseSender(config),
    log: s.log,
    ...(o.fleet ? { tuning: o.fleet } : {}),
  });
  r.addCloser('fleet', async () => {
    await member.close();
    connection.disconnect();
  });
  return member;
}

/** What the serve composition shares between the notifier, the Slack app and /rwx. */
interface Shared {
  redis: Redis;
  slack: SlackApi;
  log: Logger;
  metrics: ServeMetrics;
}

// The notifier with the configured timers; resolution facts come from the watcher's cache once it exists.
function serveNotifier(
  config: Config,
  prefix: string,
  s: Shared,
  o: ServeOverrides,
  index: () => ClusterIndex | undefined,
  proofs: () => NodeProofs | undefined,
): Notifier {
  return createNotifier({
    redis: s.redis,
    prefix,
    slack: s.slack,
    channel: config.slack.channel,
    teams: config.teams,
    messages: config.messages,
    logger: s.log,
    replica: config.replicaId,
    timers: {
      groupWait: config.timers.groupWaitMs,
      groupInterval: config.timers.groupIntervalMs,
      repeatInterval: config.timers.repeatIntervalMs,
      keepFiring: config.timers.keepFiringMs,
    },
    observeResolution: observeWithProof((last, now, completionOnly) => {
      const i = index();
      return i ? observeResolution(i)(last, now, completionOnly) : undefined;
    }, proofs),
    observer: s.metrics.notifier({
      stuckAfterMs: config.timers.stuckAfterMs,
      cronJobGraceMs: config.timers.cronJobGraceMs,
    }),
    ...(o.parts?.clock ? { clock: o.parts.clock } : {}),
    ...o.notifier,
  });
}

// `/rwx` and, in a fleet, the member (heartbeat, routing, the clicks routed here): what the Slack app registers.
async function startCommands(
  config: Config,
  r: RunningServe,
  s: Shared & { notifier: Notifier; prefix: string },
  o: ServeOverrides,
) {
  const clock = o.parts?.clock ?? systemClock;
  const fleet = config.fleet.enabled ? await startFleet(config, r, s, o) : undefined;
  // Usergroup look-ups and DMs (buttons and /rwx): one fail-fast client, its log lines through pino.
  const client = fastClient(config.slack.botToken, config.slack.apiUrl, slackLogger(s.log, 'web-api'));
  const proofs = r.proofs;
  const cmds = commandsForServe({
    config,
    index: () => r.watcher.index,
    openKeys: () => r.pipeline.openKeys(),
    redis: s.redis,
    slack: s.slack,
    clock,
    log: s.log,
    observe: auditCommands(s.metrics.commandObserver(), pinoAudit(s.log)),
    client,
    ...(proofs
      ? {
          nodeReport: (node: string) => proofs.reportNow(node),
          nodeReports: (index: ClusterIndex) => askAgents(agentNodesIn(index), proofs, clock.now()),
        }
      : {}),
    ...(fleet
      ? { fleet: { prefix: s.prefix, enqueue: fleet.enqueue, status: fleet.status, sender: fleet.sender } }
      : {}),
  });
  return { cmds, fleet, client, clock };
}

// `/rwx` on an app of the caller's (ServeOverrides.commands, the fleet demo) instead of Bolt's; stopped with the bot.
async function startOwnCommands(
  config: Config,
  r: RunningServe,
  s: Shared & { notifier: Notifier; prefix: string },
  o: ServeOverrides & { commands: NonNullable<ServeOverrides['commands']> },
): Promise<void> {
  const { cmds, fleet, clock } = await startCommands(config, r, s, o);
  cmds.register(o.commands.app, { actions: fleet?.actions ?? s.notifier, clock, authorize: async () => true });
  r.addCloser('slash commands', () => cmds.close());
}

// The Bolt app: the buttons act on the notifier's records; /rwx reads the watcher's cache. Buttons and commands
// share one access policy (channels, user groups). Stopped with the bot.
async function startSlackApp(
  config: Config,
  r: RunningServe,
  s: Shared & { notifier: Notifier; prefix: string; link: SlackLink },
  o: ServeOverrides,
): Promise<void> {
  const { cmds, fleet, client, clock } = await startCommands(config, r, s, o);
  const groups = new UsergroupCache(webUsergroups(client), clock);
  // Buttons are pressed where the roots are: the team channels too (RWX_ALLOWED_CHANNELS is about /rwx).
  const buttonAccess = {
    ...config.access,
    allowedChannels: [...config.access.allowedChannels, ...teamChannels(config)],
  };
  const app = createSlackApp({
    botToken: config.slack.botToken,
    ...(config.slack.appToken ? { appToken: config.slack.appToken } : {}),
    ...(config.slack.signingSecret ? { signingSecret: config.slack.signingSecret } : {}),
    ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
    port: o.port ?? config.port,
    actions: fleet?.actions ?? s.notifier,
    registerCommands: cmds.register,
    authorize: async (user, channel) =>
      (await authorize(buttonAccess, groups, { userId: user, channelId: channel ?? '' })).allowed,
    customRoutes: ['/healthz', '/readyz', '/metrics'].map((path) => ({ path, method: ['GET'], handler: r.ops })),
    logger: slackLogger(s.log, 'bolt'),
    // Replicas share the ledger: a request accepted by one is a replay for every other.
    replays: redisReplayLedger(s.redis, config.redis.prefix),
    link: s.link,
    audit: pinoAudit(s.log),
    ...(o.slackBackoff ? { backoff: o.slackBackoff } : {}),
  });
  try {
    await app.start();
  } catch (e) {
    await cmds.close();
    await r.stop();
    throw e;
  }
  r.addCloser('slack app', () => app.stop());
  r.addCloser('slash commands', () => cmds.close());
  s.log.info({ mode: app.mode, ...(app.port !== undefined ? { port: app.port } : {}) }, 'slack app started');
}
