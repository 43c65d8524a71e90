// Showing a configuration without its secrets: for `rwx config check`, start-up logs and error reports.
import type { ConfigKey } from './keys.js';
import type { Config } from './schema.js';

const MASK = '****';

/** A token keeps its type prefix (xoxb-, xapp-) so the reader can tell which kind was given; the rest is masked. */
function maskToken(v: string | undefined): string | undefined {
  if (v === undefined || v === '') return v;
  const m = /^(xox[a-z]-|xapp-)/.exec(v);
  return `${m?.[1] ?? ''}${MASK}`;
}

/**
 * A URL keeps scheme, host and path; its password is masked. Input that is not a URL with a host (unparseable, or
 * a typo like redis:/user:pw@host, which parses as a path) keeps its shape, so an error can show what was wrong
 * with it, but everything up to its last '@', where a password would be, is masked.
 */
export function maskUrl(v: string): string {
  if (v === '') return v;
  try {
    const u = new URL(v);
    if (u.host !== '') {
      if (u.password) u.password = MASK;
      return u.toString().replace(/\/$/, v.endsWith('/') ? '/' : '');
    }
  } catch {
    // masked below
  }
  return v.replace(/^([a-z][a-z0-9+.-]*:\/*)?.*@/i, `$1${MASK}@`);
}

/** A copy of the config with every secret (tokens, signing secret, Redis password) masked. */
export function maskSecrets(config: Config): Config {
  const slack = { ...config.slack, botToken: maskToken(config.slack.botToken) ?? '' };
  if (slack.appToken !== undefined) slack.appToken = maskToken(slack.appToken);
  if (slack.signingSecret !== undefined) slack.signingSecret = MASK;
  const redis = { ...config.redis, url: maskUrl(config.redis.url) };
  if (redis.password !== undefined) redis.password = MASK;
  if (redis.sentinel?.password !== undefined) redis.sentinel = { ...redis.sentinel, password: MASK };
  return { ...config, slack, redis };
}

const UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
];

/** Exact inverse of parseDuration for non-negative values: 5400000 -> "1h30m", 0 -> "0s". */
export function formatDuration(ms: number): string {
  let rest = Math.round(ms);
  let out = '';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out || '0s';
}

const hostPort = (n: { host: string; port: number }): string =>
  `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`;

/** The config in file form (the flat keys a YAML file uses), so it can be read, compared and pasted back. */
export function toFileForm(c: Config): Record<ConfigKey, unknown> {
  const opt = <T>(v: T | undefined | ''): T | null => (v === undefined || v === '' ? null : v);
  return {
    slackBotToken: opt(c.slack.botToken),
    slackAppToken: opt(c.slack.appToken),
    slackSigningSecret: opt(c.slack.signingSecret),
    slackChannel: opt(c.slack.channel),
    slackApiUrl: opt(c.slack.apiUrl),
    port: c.port,
    redisUrl: opt(c.redis.url),
    redisPassword: opt(c.redis.password),
    redisUsername: opt(c.redis.username),
    redisSentinels: c.redis.sentinel ? c.redis.sentinel.nodes.map(hostPort) : null,
    redisSentinelName: opt(c.redis.sentinel?.name),
    redisSentinelPassword: opt(c.redis.sentinel?.password),
    redisClusterNodes: c.redis.cluster ? c.redis.cluster.nodes.map(hostPort) : null,
    redisTls: c.redis.tls !== undefined,
    redisTlsCaFile: opt(c.redis.tls?.caFile),
    redisPrefix: c.redis.prefix,
    stuckAfter: formatDuration(c.timers.stuckAfterMs),
    groupWait: formatDuration(c.timers.groupWaitMs),
    groupInterval: formatDuration(c.timers.groupIntervalMs),
    repeatInterval: formatDuration(c.timers.repeatIntervalMs),
    cronJobGrace: formatDuration(c.timers.cronJobGraceMs),
    watchIdleTimeout: formatDuration(c.timers.watchIdleTimeoutMs),
    retryMax: formatDuration(c.timers.retryMaxMs),
    keepFiring: formatDuration(c.timers.keepFiringMs),
    blindAfter: formatDuration(c.timers.blindAfterMs),
    slackRequestTimeout: formatDuration(c.timers.slackRequestTimeoutMs),
    lockTtl: formatDuration(c.timers.lockTtlMs),
    allowedChannels: [...c.access.allowedChannels],
    allowedUsergroups: [...c.access.allowedUsergroups],
    driverDaemonSets: Object.fromEntries(
      Object.entries(c.driverDaemonSets).map(([d, r]) => [d, `${r.namespace}/${r.name}`]),
    ),
    clusterName: c.clusterName,
    replicaId: c.replicaId,
    fleet: c.fleet.enabled,
    channelClusters: { ...c.fleet.channelClusters },
    runbookUrl: opt(c.messages.links.runbook),
    dashboardUrl: opt(c.messages.links.dashboard),
    mentionUsergroup: opt(c.messages.mentionUsergroup),
    broadcastResolution: c.messages.broadcastResolution,
    teamChannels: Object.fromEntries(
      c.teams.map((t) => [t.namespace, `${t.channel}${t.usergroup ? `@${t.usergroup}` : ''}`]),
    ),
    kubeconfig: opt(c.kube.kubeconfig),
    kubeContext: opt(c.kube.context),
    logLevel: c.logLevel,
  };
}
