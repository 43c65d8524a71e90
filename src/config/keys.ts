// Every configuration key in one table: its environment variable, its YAML file key, its default, whether it is a
// secret, and one line of documentation. The schema, the docs reference table, the deploy ConfigMap/Secret test
// and `rwx config check` all read this table, so none of them can drift from the others.

/** A configuration key as it appears in the YAML file (flat camelCase). */
export type ConfigKey =
  | 'slackBotToken'
  | 'slackAppToken'
  | 'slackSigningSecret'
  | 'slackChannel'
  | 'slackApiUrl'
  | 'port'
  | 'redisUrl'
  | 'redisPassword'
  | 'redisUsername'
  | 'redisSentinels'
  | 'redisSentinelName'
  | 'redisSentinelPassword'
  | 'redisClusterNodes'
  | 'redisTls'
  | 'redisTlsCaFile'
  | 'redisPrefix'
  | 'stuckAfter'
  | 'groupWait'
  | 'groupInterval'
  | 'repeatInterval'
  | 'cronJobGrace'
  | 'watchIdleTimeout'
  | 'retryMax'
  | 'keepFiring'
  | 'blindAfter'
  | 'slackRequestTimeout'
  | 'lockTtl'
  | 'allowedChannels'
  | 'allowedUsergroups'
  | 'driverDaemonSets'
  | 'clusterName'
  | 'replicaId'
  | 'fleet'
  | 'channelClusters'
  | 'runbookUrl'
  | 'dashboardUrl'
  | 'mentionUsergroup'
  | 'broadcastResolution'
  | 'teamChannels'
  | 'kubeconfig'
  | 'kubeContext'
  | 'logLevel';

/** One row of the key table. */
export interface KeyInfo {
  /** Environment variable that sets it. */
  env: string;
  /** Key in the YAML file given with --config. */
  key: ConfigKey;
  /** The accepted form, shown in docs and error messages. */
  form: string;
  /** Secret values are masked by `rwx config check` and live in the Kubernetes Secret, not the ConfigMap. */
  secret: boolean;
  /** One line for the reference table. */
  doc: string;
}

/** A true-or-false word as the environment gives it (true/yes/on/1, false/no/off/0); undefined for anything else. */
export function boolWord(v: string): boolean | undefined {
  const s = v.trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(s)) return true;
  if (['false', 'no', 'off', '0'].includes(s)) return false;
  return undefined;
}

/** The defaults, in file form (what a YAML file would say). Keys absent here have no default. */
export const DEFAULT_CONFIG = Object.freeze({
  port: 3000,
  redisUrl: 'redis://127.0.0.1:6379',
  redisPrefix: 'rwx',
  redisTls: false,
  stuckAfter: '5m',
  groupWait: '30s',
  groupInterval: '5m',
  repeatInterval: '4h',
  cronJobGrace: '10m',
  watchIdleTimeout: '75s',
  retryMax: '10s',
  keepFiring: '60s',
  blindAfter: '3m',
  slackRequestTimeout: '10s',
  lockTtl: '30s',
  allowedChannels: [] as readonly string[],
  allowedUsergroups: [] as readonly string[],
  driverDaemonSets: {} as Readonly<Record<string, string>>,
  clusterName: '',
  replicaId: '',
  fleet: false,
  channelClusters: {} as Readonly<Record<string, string>>,
  broadcastResolution: true,
  teamChannels: {} as Readonly<Record<string, string>>,
  logLevel: 'info',
} as const satisfies Partial<Record<ConfigKey, unknown>>);

/** Every key, in the order the docs list them. */
export const CONFIG_KEYS: readonly KeyInfo[] = Object.freeze([
  {
    env: 'SLACK_BOT_TOKEN',
    key: 'slackBotToken',
    form: 'xoxb-...',
    secret: true,
    doc: 'Bot token (OAuth & Permissions). Required by `rwx serve`.',
  },
  {
    env: 'SLACK_APP_TOKEN',
    key: 'slackAppToken',
    form: 'xapp-...',
    secret: true,
    doc: 'App-level token with connections:write. When set, the bot uses Socket Mode; otherwise HTTP mode.',
  },
  {
    env: 'SLACK_SIGNING_SECRET',
    key: 'slackSigningSecret',
    form: 'hex string',
    secret: true,
    doc: 'Signing secret (Basic Information). Required in HTTP mode, to verify requests to /slack/events.',
  },
  {
    env: 'SLACK_CHANNEL',
    key: 'slackChannel',
    form: 'channel ID (C0123ABCD) or name',
    secret: false,
    doc: 'Channel that receives incident threads. Required by `rwx serve`.',
  },
  {
    env: 'SLACK_API_URL',
    key: 'slackApiUrl',
    form: 'http(s) URL',
    secret: false,
    doc: 'Slack Web API base URL override (tests, proxies). Default: https://slack.com/api/.',
  },
  {
    env: 'PORT',
    key: 'port',
    form: 'port number 1-65535',
    secret: false,
    doc: 'HTTP port for /healthz, /readyz, /metrics and (HTTP mode) /slack/events.',
  },
  {
    env: 'REDIS_URL',
    key: 'redisUrl',
    form: 'redis:// or rediss:// URL',
    secret: true,
    doc: 'Redis holding the queue and incident records. Masked because it may carry a password.',
  },
  {
    env: 'REDIS_PASSWORD',
    key: 'redisPassword',
    form: 'text',
    secret: true,
    doc: 'Redis password, when REDIS_URL carries none (the Helm chart sets it from the Redis Secret). Not both. Also the password of the Sentinel-watched primary and of every Cluster node.',
  },
  {
    env: 'REDIS_USERNAME',
    key: 'redisUsername',
    form: 'ACL user name',
    secret: false,
    doc: 'Redis ACL user (managed services), with REDIS_PASSWORD; when REDIS_URL carries none. Default: the default user.',
  },
  {
    env: 'REDIS_SENTINELS',
    key: 'redisSentinels',
    form: 'host:port,host:port,...',
    secret: false,
    doc: 'Sentinels watching the Redis primary (instead of REDIS_URL): the bot asks them where the primary is, and again after a failover. Needs REDIS_SENTINEL_NAME.',
  },
  {
    env: 'REDIS_SENTINEL_NAME',
    key: 'redisSentinelName',
    form: 'text',
    secret: false,
    doc: "The primary's name the sentinels monitor (`sentinel monitor <name> ...`, often mymaster).",
  },
  {
    env: 'REDIS_SENTINEL_PASSWORD',
    key: 'redisSentinelPassword',
    form: 'text',
    secret: true,
    doc: "The sentinels' own password (`requirepass` in sentinel.conf), when they have one.",
  },
  {
    env: 'REDIS_CLUSTER_NODES',
    key: 'redisClusterNodes',
    form: 'host:port,host:port,...',
    secret: false,
    doc: 'Seed nodes of a Redis Cluster (instead of REDIS_URL). The key prefix then holds a hash tag (rwx becomes {rwx}), so every key of the bot is in one slot.',
  },
  {
    env: 'REDIS_TLS',
    key: 'redisTls',
    form: 'true or false',
    secret: false,
    doc: 'Speak TLS to Redis (and to the sentinels). A rediss:// REDIS_URL turns it on by itself.',
  },
  {
    env: 'REDIS_TLS_CA_FILE',
    key: 'redisTlsCaFile',
    form: 'file path',
    secret: false,
    doc: "CA bundle (PEM) that signed Redis' certificate, when not a public one; implies REDIS_TLS.",
  },
  {
    env: 'RWX_REDIS_PREFIX',
    key: 'redisPrefix',
    form: 'letters, digits, - _ :, one {hash tag}',
    secret: false,
    doc: 'Key prefix in Redis; give each cluster its own when several bots share one Redis.',
  },
  {
    env: 'RWX_STUCK_AFTER',
    key: 'stuckAfter',
    form: 'duration (30s, 5m, 1h30m)',
    secret: false,
    doc: 'A pod in ContainerCreating (from scheduling) or Terminating (past its grace) longer than this is stuck.',
  },
  {
    env: 'RWX_GROUP_WAIT',
    key: 'groupWait',
    form: 'duration',
    secret: false,
    doc: 'Wait this long after an incident opens before the first post, to collect its members.',
  },
  {
    env: 'RWX_GROUP_INTERVAL',
    key: 'groupInterval',
    form: 'duration',
    secret: false,
    doc: 'At most one update of an incident thread per interval.',
  },
  {
    env: 'RWX_REPEAT_INTERVAL',
    key: 'repeatInterval',
    form: 'duration',
    secret: false,
    doc: 'Re-announce an unchanged open incident after this long.',
  },
  {
    env: 'RWX_CRONJOB_GRACE',
    key: 'cronJobGrace',
    form: 'duration',
    secret: false,
    doc: 'A CronJob is late when its last scheduled run is this much newer than its last success (startingDeadlineSeconds wins when set).',
  },
  {
    env: 'RWX_WATCH_IDLE_TIMEOUT',
    key: 'watchIdleTimeout',
    form: 'duration',
    secret: false,
    doc: 'A watch that delivered no event or bookmark for this long is stalled (the API server sends a bookmark every minute; 75s is that minute and the 15 s margin its watch cache keeps events for): its kind is relisted, /readyz names it until a watch streams again, answers that need it are UNKNOWN, and the replica does not hold the evaluator lease. A list page not answered within this long (at most 15s) fails as the API server unreachable.',
  },
  {
    env: 'RWX_RETRY_MAX',
    key: 'retryMax',
    form: 'duration',
    secret: false,
    doc: 'The longest wait between two attempts after a failure, for the watches of the Kubernetes API, the Slack calls of incident threads and the Slack connection (waits start at 0.5 s and double): after an outage of any length, the bot tries again within this long of the service answering.',
  },
  {
    env: 'RWX_KEEP_FIRING',
    key: 'keepFiring',
    form: 'duration',
    secret: false,
    doc: 'An incident that fired at least this long is kept open, as last seen, until it has been absent this long: a blip in the correlation (a node plugin pod being replaced) neither resolves the thread nor starts a second one. It also delays every resolution by as much. Recorded in Redis, so every replica and a restarted one keep the same window; an incident back within it after its resolution reopens its thread ([incident lifecycle](incident-lifecycle.md#gone-and-back-the-keep-firing-window)).',
  },
  {
    env: 'RWX_BLIND_AFTER',
    key: 'blindAfter',
    form: 'duration',
    secret: false,
    doc: 'When no replica has seen the cluster (API server unreachable, a watch not synced or stalled) for this long, the incident channel gets one notice saying so; a reply in its thread says when the bot sees the cluster again. Redis unreachable for this long is told once as well: a notice during the outage (from the replica that held the evaluator lease), and once Redis answers, the span it was away.',
  },
  {
    env: 'RWX_SLACK_REQUEST_TIMEOUT',
    key: 'slackRequestTimeout',
    form: 'duration, shorter than RWX_LOCK_TTL',
    secret: false,
    doc: "How long one Slack Web API call may take before the bot gives up on it: the posts, edits and look-ups of incident threads (a call given up on is retried, what it may have posted looked up first) and each connection attempt's auth.test or apps.connections.open. The slash commands' own look-ups keep their 2.5 s, inside Slack's 3 s.",
  },
  {
    env: 'RWX_LOCK_TTL',
    key: 'lockTtl',
    form: 'duration, longer than RWX_SLACK_REQUEST_TIMEOUT',
    secret: false,
    doc: "How long a replica that stops answering in the middle of an incident's step (killed, or cut off from Redis) keeps that incident's work: the incident lock and the step's queue job lock (renewed every half of it while the step runs) expire this long after they were last written, and the work goes on without it. Longer than one Slack call may take (RWX_SLACK_REQUEST_TIMEOUT), since the incident lock is not renewed during the call.",
  },
  {
    env: 'RWX_ALLOWED_CHANNELS',
    key: 'allowedChannels',
    form: 'comma list of channel IDs or names, or *',
    secret: false,
    doc: 'Channels where /rwx answers. Empty: only SLACK_CHANNEL. `*`: any channel.',
  },
  {
    env: 'RWX_ALLOWED_USERGROUPS',
    key: 'allowedUsergroups',
    form: 'comma list of user group IDs (S0123ABCD)',
    secret: false,
    doc: 'When set, /rwx answers only members of one of these user groups (in an allowed channel). Empty: anyone.',
  },
  {
    env: 'RWX_DRIVER_DAEMONSETS',
    key: 'driverDaemonSets',
    form: 'driver=namespace/name,... (YAML: a map)',
    secret: false,
    doc: 'Node plugin DaemonSet per CSI driver, when neither its node-driver-registrar nor elimination finds it (see [below](#driver---daemonset-overrides)). Wins over discovery.',
  },
  {
    env: 'RWX_CLUSTER_NAME',
    key: 'clusterName',
    form: 'text',
    secret: false,
    doc: 'Cluster name shown in messages; several clusters can share one channel. Required with RWX_FLEET (then a DNS label: it names the cluster in `@CLUSTER` and in Redis keys).',
  },
  {
    env: 'RWX_REPLICA_ID',
    key: 'replicaId',
    form: 'text',
    secret: false,
    doc: "This replica's name in its incident locks, the same across restarts of one pod and different between pods: a restarted replica resumes the work its predecessor was killed in (it breaks that one's locks) instead of waiting for the locks to expire. Default: host name and process id (in a container: the pod name and 1).",
  },
  {
    env: 'RWX_FLEET',
    key: 'fleet',
    form: 'true or false',
    secret: false,
    doc: 'Several clusters share this Redis and one Slack app: commands and buttons are routed to the cluster they are about, revisions that broke one cluster are recognised in the others ([docs/fleet.md](fleet.md)).',
  },
  {
    env: 'RWX_CHANNEL_CLUSTERS',
    key: 'channelClusters',
    form: 'channel=cluster,... (YAML: a map)',
    secret: false,
    doc: 'With RWX_FLEET: the cluster a command in a channel is about when it names none (`/rwx drain NODE @CLUSTER` names one).',
  },
  {
    env: 'RWX_RUNBOOK_URL',
    key: 'runbookUrl',
    form: 'https URL',
    secret: false,
    doc: 'When set, every open incident root has a Runbook button opening this page.',
  },
  {
    env: 'RWX_DASHBOARD_URL',
    key: 'dashboardUrl',
    form: 'https URL',
    secret: false,
    doc: 'When set, every open incident root has a Dashboard button opening this page.',
  },
  {
    env: 'RWX_MENTION_USERGROUP',
    key: 'mentionUsergroup',
    form: 'user group ID (S0123ABCD)',
    secret: false,
    doc: 'When set, a new incident root mentions this user group (`@oncall`); edits and replies never do.',
  },
  {
    env: 'RWX_BROADCAST_RESOLUTION',
    key: 'broadcastResolution',
    form: 'true or false',
    secret: false,
    doc: 'Post the resolution reply to the channel too (Slack\'s "Also send to channel"), not only in the thread.',
  },
  {
    env: 'RWX_TEAM_CHANNELS',
    key: 'teamChannels',
    form: 'namespace=channel[@usergroup],... (YAML: a map)',
    secret: false,
    doc: "Per-team routing: an incident with stuck pods or CronJobs in a team's namespaces is also posted in the team's channel (a channel ID), one root kept in step with the incident's, and the user group is mentioned on that root. A namespace may be a pattern with `*`; the exact name, else the longest pattern, wins ([docs/fleet.md](fleet.md#per-team-routing)).",
  },
  {
    env: 'KUBECONFIG',
    key: 'kubeconfig',
    form: 'file path',
    secret: false,
    doc: 'Kubeconfig file (flag --kubeconfig wins). A list is merged as kubectl does (the first file to define a name wins), by `rwx serve` and the read commands alike. Unset: ~/.kube/config, else the in-cluster service account.',
  },
  {
    env: 'RWX_KUBE_CONTEXT',
    key: 'kubeContext',
    form: 'context name',
    secret: false,
    doc: 'Kubeconfig context (flag --context wins). Unset: the current context.',
  },
  {
    env: 'LOG_LEVEL',
    key: 'logLevel',
    form: 'fatal, error, warn, info, debug, trace or silent',
    secret: false,
    doc: 'pino log level. Tokens are never logged.',
  },
] satisfies KeyInfo[]);
