// The Slack side of `rwx serve`: `/rwx` (on Bolt, or on an app of the caller's), the buttons, and in a fleet the
// member that routes commands and clicks to the cluster they are about. Each part is stopped with the bot.
import { type Config, backoffUpTo } from '../config/index.js';
import { authorize, fastClient, UsergroupCache } from '../commands/index.js';
import { auditCommands } from '../commands/observe.js';
import { commandsForServe, serveResponseSender } from '../commands/serve.js';
import { webUsergroupDirectory as webUsergroups } from '../commands/slack-adapters.js';
import { systemClock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import { startFleetMember } from '../fleet/member.js';
import type { Notifier } from '../notify/notifier.js';
import { createSlackApp } from '../slack/app.js';
import { pinoAudit } from '../slack/audit.js';
import type { SlackLink } from '../slack/link.js';
import { redisReplayLedger } from '../slack/request-guard.js';
import type { RunningServe } from './app.js';
import { slackLogger } from './log.js';
import type { ServeOverrides } from './overrides.js';
import { agentNodesIn, askAgents } from './proof.js';
import type { Shared } from './wiring.js';

/** The channels RWX_TEAM_CHANNELS posts in. */
export function teamChannels(config: Config): string[] {
  return [...new Set(config.teams.map((t) => t.channel))];
}

// A fleet member for this bot (heartbeat, names, routing); closed with the bot, before Redis.
export async function startFleet(
  config: Config,
  r: RunningServe,
  s: Shared & { notifier: Notifier },
  o: ServeOverrides,
) {
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
    // An unreferenced timer: a bot that never syncs still stops.
    whenSynced: () =>
      r.watcher.waitSynced(86_400_000, { set: (f, ms) => setTimeout(f, ms).unref(), clear: clearTimeout }),
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

// `/rwx` and, in a fleet, the member (heartbeat, routing, the clicks routed here): what the Slack app registers.
export async function startCommands(
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
export async function startOwnCommands(
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
export async function startSlackApp(
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
    backoff: o.slackBackoff ?? backoffUpTo(config.timers.retryMaxMs),
    requestTimeoutMs: config.timers.slackRequestTimeoutMs,
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
