// The one zod schema. Input: a flat object keyed by ConfigKey, each value either an environment string or a YAML
// value (so numbers, lists and maps are accepted in both forms). Output: the typed, nested Config. Messages name
// the expected form; load.ts prefixes the variable or file key they came from.
import { z } from 'zod';
import { isClusterName } from '../domain/cluster.js';
import { parseDuration } from '../domain/duration.js';
import type { NsName } from '../domain/findings.js';
import type { TeamRoute } from '../domain/teams.js';
import { boolWord } from './keys.js';
import { hostPorts, redisConfig, type RedisConfig } from './redis.js';

/** pino levels accepted by LOG_LEVEL. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The validated configuration every entry point receives (frozen by loadConfig). */
export interface Config {
  slack: {
    /** 'socket' when SLACK_APP_TOKEN is set, else 'http' (requests on PORT at /slack/events). */
    mode: 'socket' | 'http';
    /** '' only when loaded with `slack: 'optional'` and unset. */
    botToken: string;
    appToken?: string;
    signingSecret?: string;
    /** Channel ID or name; '' only when loaded with `slack: 'optional'` and unset. */
    channel: string;
    /** Web API base URL ending in '/', when overridden. */
    apiUrl?: string;
  };
  port: number;
  /** Where Redis is (one server, Sentinel or Cluster) and how to speak to it: src/config/redis.ts. */
  redis: RedisConfig;
  /** All durations in milliseconds. */
  timers: {
    stuckAfterMs: number;
    groupWaitMs: number;
    groupIntervalMs: number;
    repeatIntervalMs: number;
    cronJobGraceMs: number;
    watchIdleTimeoutMs: number;
    /** RWX_RETRY_MAX: the cap of every backoff (src/domain/backoff.ts). */
    retryMaxMs: number;
    /** RWX_KEEP_FIRING: how long an established incident outlives its absence (src/pipeline/pipeline.ts). */
    keepFiringMs: number;
    /** RWX_BLIND_AFTER: how long the bot is blind, or without Redis, before it says so in the channel (src/serve/dead-man.ts, redis-notice.ts). */
    blindAfterMs: number;
    /** RWX_SLACK_REQUEST_TIMEOUT: how long one Slack Web API call may take (src/slack/web-api.ts, app.ts). */
    slackRequestTimeoutMs: number;
    /**
     * RWX_LOCK_TTL: the incident lock's and the notify job's lock's time to live (src/notify/steps-run.ts, worker.ts);
     * longer than slackRequestTimeoutMs (load.ts), since a step holds its incident lock through a Slack call unrenewed.
     */
    lockTtlMs: number;
  };
  /** Who may use /rwx: see isChannelAllowed / isUserAllowed in access.ts. */
  access: {
    /** Channel IDs or names (without '#'); ['*'] means any channel. Never empty after loading. */
    allowedChannels: readonly string[];
    /** User group IDs; empty means no group check. */
    allowedUsergroups: readonly string[];
  };
  /** CSI driver name -> its node plugin DaemonSet, overriding discovery. */
  driverDaemonSets: Readonly<Record<string, NsName>>;
  /** '' when unset; with fleet enabled, a DNS label. */
  clusterName: string;
  /** RWX_REPLICA_ID: this replica's name in its incident locks (src/notify/resume.ts); '' means host/pid. */
  replicaId: string;
  /** Several clusters on one Redis and one Slack app (src/fleet): routing, heartbeats, fleet correlation. */
  fleet: {
    enabled: boolean;
    /** Channel ID or name (without '#') -> the cluster a command there is about when it names none. */
    channelClusters: Readonly<Record<string, string>>;
  };
  /** RWX_TEAM_CHANNELS: the team channels an incident is also posted in, by namespace, in the order given. */
  teams: readonly TeamRoute[];
  /** How incident messages are posted (src/notify/deps.ts MessageOptions). */
  messages: {
    /** https URLs of the root's Runbook / Dashboard link buttons, when set. */
    links: { runbook?: string; dashboard?: string };
    /** User group ID (S...) a new root mentions, when set. */
    mentionUsergroup?: string;
    broadcastResolution: boolean;
  };
  kube: { kubeconfig?: string; context?: string };
  logLevel: (typeof LOG_LEVELS)[number];
}

const fail = (ctx: z.RefinementCtx, message: string): never => {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
};

const text = (form: string) => z.string({ error: `expected ${form}` }).trim();
const optText = (form: string) =>
  text(form)
    .optional()
    .transform((s) => (s === '' ? undefined : s));

const duration = z.string({ error: 'expected a duration such as 30s, 5m, 4h' }).transform((s, ctx) => {
  let ms: number;
  try {
    ms = parseDuration(s);
  } catch {
    return fail(ctx, `"${s}" is not a duration (expected e.g. 30s, 5m)`);
  }
  return ms > 0 ? ms : fail(ctx, `"${s}" must be a positive duration (expected e.g. 30s, 5m)`);
});

const port = z.union([z.number(), z.string()], { error: 'expected a port number 1-65535' }).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : fail(ctx, `"${v}" is not a port number (expected 1-65535)`);
});

/** A comma list (env) or a YAML list, each item matching `item`. */
const list = (item: RegExp, form: string) =>
  z.union([z.string(), z.array(z.string())], { error: `expected ${form}` }).transform((v, ctx) => {
    const items = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
    const bad = items.filter((s) => !item.test(s));
    return bad.length ? fail(ctx, `${bad.map((b) => `"${b}"`).join(', ')} not valid (expected ${form})`) : items;
  });

const CHANNEL = /^(\*|#?[a-z0-9][a-z0-9._-]{0,79}|[CGD][A-Z0-9]{2,})$/;
const USERGROUP = /^S[A-Z0-9]{2,}$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const DRIVER = /^[A-Za-z0-9]([-A-Za-z0-9._]{0,61}[A-Za-z0-9])?$/;

function parseRef(driver: string, ref: string, ctx: z.RefinementCtx): [string, NsName] | undefined {
  const [ns, name, extra] = ref.trim().split('/');
  if (!DRIVER.test(driver)) return fail(ctx, `"${driver}" is not a CSI driver name (expected e.g. ebs.csi.aws.com)`);
  if (extra !== undefined || !ns || !name || !DNS_LABEL.test(ns) || !DNS_SUBDOMAIN.test(name)) {
    return fail(
      ctx,
      `"${driver}=${ref}" is not driver=namespace/name (expected e.g. ebs.csi.aws.com=kube-system/ebs-csi-node)`,
    );
  }
  return [driver, { namespace: ns, name }];
}

/** `k=v,k2=v2` (env) or a map (YAML) as pairs: items trimmed and empty ones dropped, keys trimmed, values as given. */
function keyValuePairs(v: string | Record<string, string>): [string, string][] {
  if (typeof v !== 'string') return Object.entries(v);
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const i = s.indexOf('=');
      return i < 0 ? [s, ''] : [s.slice(0, i).trim(), s.slice(i + 1)];
    });
}

const driverMap = z
  .union([z.string(), z.record(z.string(), z.string())], { error: 'expected driver=namespace/name,... or a map' })
  .transform((v, ctx) => {
    const pairs = keyValuePairs(v);
    const out: Record<string, NsName> = {};
    for (const [driver, ref] of pairs) {
      const r = parseRef(driver, ref, ctx);
      if (r) out[r[0]] = r[1];
    }
    return out;
  });

/** A boolean from YAML, or true/false/yes/no/on/off/1/0 from the environment. */
const bool = z.union([z.boolean(), z.string()], { error: 'expected true or false' }).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  return boolWord(v) ?? fail(ctx, `"${v}" is not true or false`);
});

/** channel=cluster pairs (env) or a map (YAML): channel IDs or names, cluster names as DNS labels. */
const channelMap = z
  .union([z.string(), z.record(z.string(), z.string())], { error: 'expected channel=cluster,... or a map' })
  .transform((v, ctx) => {
    const pairs = keyValuePairs(v).map(([k, c]) => [k.trim(), c.trim()] as const);
    const out: Record<string, string> = {};
    for (const [channel, cluster] of pairs) {
      if (!CHANNEL.test(channel) || channel === '*' || !isClusterName(cluster)) {
        return fail(ctx, `"${channel}=${cluster}" is not channel=cluster (expected e.g. C0123ABCD=prod-eu-1)`);
      }
      out[channel.replace(/^#/, '')] = cluster;
    }
    return out;
  });

const NAMESPACE_PATTERN = /^[a-z0-9*]([-a-z0-9*]{0,61}[a-z0-9*])?$/;
const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
const TEAM_FORM = 'namespace=channel[@usergroup] (expected e.g. payments=C0123ABCD@S0123ABCD)';

// One RWX_TEAM_CHANNELS entry, or why it is not one.
function teamRoute(namespace: string, target: string): TeamRoute | string {
  const entry = `"${namespace}=${target}"`;
  const [channel = '', usergroup, extra] = target.split('@').map((s) => s.trim());
  if (!namespace || !channel || extra !== undefined) return `${entry} is not ${TEAM_FORM}`;
  if (!NAMESPACE_PATTERN.test(namespace))
    return `${entry}: "${namespace}" is not a namespace or a pattern of one (lower-case letters, digits, - and *)`;
  if (!CHANNEL_ID.test(channel))
    return `${entry}: "${channel}" is not a channel ID (C0123ABCD; the bot finds its roots again by the channel's ID)`;
  if (usergroup !== undefined && !USERGROUP.test(usergroup))
    return `${entry}: "${usergroup}" is not a user group ID (S0123ABCD)`;
  return { namespace, channel, ...(usergroup ? { usergroup } : {}) };
}

/** namespace=channel[@usergroup] pairs (env) or a map (YAML): each namespace once, each channel one user group. */
const teamMap = z
  .union([z.string(), z.record(z.string(), z.string())], { error: `expected ${TEAM_FORM}, or a map` })
  .transform((v, ctx) => {
    const routes: TeamRoute[] = [];
    for (const [ns, target] of keyValuePairs(v)) {
      const r = teamRoute(ns.trim(), target.trim());
      if (typeof r === 'string') return fail(ctx, r);
      if (routes.some((x) => x.namespace === r.namespace)) return fail(ctx, `"${r.namespace}" is listed twice`);
      const other = routes.find((x) => x.channel === r.channel && x.usergroup && r.usergroup !== x.usergroup);
      if (other && r.usergroup) {
        const entry = `"${r.namespace}=${r.channel}@${r.usergroup}"`;
        return fail(ctx, `${entry}: ${r.channel} has user group ${other.usergroup} already (one per channel)`);
      }
      routes.push(r);
    }
    return routes;
  });

const url = (schemes: string[], form: string) =>
  optText(form).transform((s, ctx) => {
    if (s === undefined) return undefined;
    try {
      const u = new URL(s);
      if (schemes.includes(u.protocol)) return s;
    } catch {
      /* reported below */
    }
    return fail(ctx, `"${s}" is not ${form}`);
  });

/** The raw schema: one field per ConfigKey, defaults already merged in by the loader. */
export const rawConfigSchema = z.strictObject({
  slackBotToken: optText('a bot token (xoxb-...)').refine(
    (s) => s === undefined || s.startsWith('xoxb-'),
    'must be a bot token starting with xoxb-',
  ),
  slackAppToken: optText('an app-level token (xapp-...)').refine(
    (s) => s === undefined || s.startsWith('xapp-'),
    'must be an app-level token starting with xapp- (Socket Mode)',
  ),
  slackSigningSecret: optText('the signing secret'),
  slackChannel: optText('a channel ID or name').refine(
    (s) => s === undefined || CHANNEL.test(s),
    'expected a channel ID (C0123ABCD) or a channel name',
  ),
  slackApiUrl: url(['http:', 'https:'], 'an http(s) URL').transform((s) => (s && !s.endsWith('/') ? `${s}/` : s)),
  port,
  redisUrl: url(['redis:', 'rediss:'], 'a redis:// or rediss:// URL'),
  redisPassword: optText('a password'),
  redisUsername: optText('an ACL user name'),
  redisSentinels: hostPorts,
  redisSentinelName: optText("the primary's name"),
  redisSentinelPassword: optText('a password'),
  redisClusterNodes: hostPorts,
  redisTls: bool,
  redisTlsCaFile: optText('a file path'),
  redisPrefix: text('a key prefix')
    .regex(
      /^[A-Za-z0-9_:-]*(\{[A-Za-z0-9_:-]+\})?[A-Za-z0-9_:-]*$/,
      'expected 1-64 letters, digits, - _ or :, with at most one {hash tag}',
    )
    .refine(
      (s) => s.length >= 1 && s.length <= 64,
      'expected 1-64 letters, digits, - _ or :, with at most one {hash tag}',
    ),
  stuckAfter: duration,
  groupWait: duration,
  groupInterval: duration,
  repeatInterval: duration,
  cronJobGrace: duration,
  watchIdleTimeout: duration,
  retryMax: duration,
  keepFiring: duration,
  blindAfter: duration,
  slackRequestTimeout: duration,
  lockTtl: duration,
  allowedChannels: list(CHANNEL, 'channel IDs (C0123ABCD) or names, or *'),
  allowedUsergroups: list(USERGROUP, 'user group IDs (S0123ABCD)'),
  driverDaemonSets: driverMap,
  clusterName: z.union([z.string(), z.number()], { error: 'expected text' }).transform((v) => String(v).trim()),
  replicaId: z.union([z.string(), z.number()], { error: 'expected text' }).transform((v) => String(v).trim()),
  fleet: bool,
  channelClusters: channelMap,
  runbookUrl: url(['https:'], 'an https URL'),
  dashboardUrl: url(['https:'], 'an https URL'),
  mentionUsergroup: optText('a user group ID').refine(
    (s) => s === undefined || USERGROUP.test(s),
    'expected a user group ID (S0123ABCD)',
  ),
  broadcastResolution: bool,
  teamChannels: teamMap,
  kubeconfig: optText('a file path'),
  kubeContext: optText('a context name'),
  logLevel: text(LOG_LEVELS.join(', ')).pipe(z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` })),
});

/** What the raw schema produces, before cross-field checks. */
export type RawConfig = z.output<typeof rawConfigSchema>;

/** Shapes the validated raw values into Config (no further validation). */
export function toConfig(r: RawConfig): Config {
  const channel = r.slackChannel ?? '';
  const allowed = r.allowedChannels.map((c) => c.replace(/^#/, ''));
  return {
    slack: {
      mode: r.slackAppToken ? 'socket' : 'http',
      botToken: r.slackBotToken ?? '',
      ...(r.slackAppToken ? { appToken: r.slackAppToken } : {}),
      ...(r.slackSigningSecret ? { signingSecret: r.slackSigningSecret } : {}),
      channel,
      ...(r.slackApiUrl ? { apiUrl: r.slackApiUrl } : {}),
    },
    port: r.port,
    redis: redisConfig(r),
    timers: {
      stuckAfterMs: r.stuckAfter,
      groupWaitMs: r.groupWait,
      groupIntervalMs: r.groupInterval,
      repeatIntervalMs: r.repeatInterval,
      cronJobGraceMs: r.cronJobGrace,
      watchIdleTimeoutMs: r.watchIdleTimeout,
      retryMaxMs: r.retryMax,
      keepFiringMs: r.keepFiring,
      blindAfterMs: r.blindAfter,
      slackRequestTimeoutMs: r.slackRequestTimeout,
      lockTtlMs: r.lockTtl,
    },
    access: {
      allowedChannels: allowed.includes('*')
        ? ['*']
        : allowed.length
          ? allowed
          : channel
            ? [channel.replace(/^#/, '')]
            : [],
      allowedUsergroups: r.allowedUsergroups,
    },
    driverDaemonSets: r.driverDaemonSets,
    clusterName: r.clusterName,
    replicaId: r.replicaId,
    fleet: { enabled: r.fleet, channelClusters: r.channelClusters },
    messages: {
      links: {
        ...(r.runbookUrl ? { runbook: r.runbookUrl } : {}),
        ...(r.dashboardUrl ? { dashboard: r.dashboardUrl } : {}),
      },
      ...(r.mentionUsergroup ? { mentionUsergroup: r.mentionUsergroup } : {}),
      broadcastResolution: r.broadcastResolution,
    },
    teams: r.teamChannels,
    kube: {
      ...(r.kubeconfig ? { kubeconfig: r.kubeconfig } : {}),
      ...(r.kubeContext ? { context: r.kubeContext } : {}),
    },
    logLevel: r.logLevel,
  };
}
