// The parts of `rwx serve` built from the Config before the pipeline starts: the Slack client, the notifier with
// its timers and resolution facts, the sync, the records the pipeline starts from, the notices, and in a fleet the
// correlator that compares this cluster's incidents with the others'.
import type { webApi } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import { systemClock, type Clock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import { resolutionFacts } from '../pipeline/resolution.js';
import { createFleetCorrelator, type FleetCorrelator } from '../fleet/correlation.js';
import { fleetKeys, recordScope, scopedKey, type RecordScope } from '../fleet/keys.js';
import type { OpenIncidentNodes } from '../pipeline/agents.js';
import type { Sync } from '../pipeline/pipeline.js';
import { realSync } from '../pipeline/sync.js';
import { unresolvedRecords } from '../notify/record.js';
import { auditSlack, pinoAudit } from '../slack/audit.js';
import { createWebSlackApi } from '../slack/web-api.js';
import type { IncidentStore } from '../store/incident-store.js';
import type { IncidentRecord } from '../store/record.js';
import { DeadMan } from './dead-man.js';
import type { EvaluatorLease } from './lease.js';
import { slackLogger } from './log.js';
import { RedisNotice } from './redis-notice.js';
import { type Notifier, createNotifier } from '../notify/notifier.js';
import type { SlackApi } from '../slack/api.js';
import type { ServeMetrics } from './metrics.js';
import type { ServeOverrides } from './overrides.js';
import type { NodeProofs } from './proof.js';

/** What the serve composition shares between the notifier, the Slack app and /rwx. */
export interface Shared {
  redis: Redis;
  slack: SlackApi;
  log: Logger;
  metrics: ServeMetrics;
}

/** Where this cluster's own records are: RWX_REDIS_PREFIX, or in a fleet the cluster's part of it (src/fleet/keys.ts). */
export function ownScope(config: Config): RecordScope {
  return recordScope(config.redis.prefix, config.fleet.enabled ? config.clusterName : undefined);
}

/** The notifier with the configured timers (its queue depth and resumed work counted); its resolution facts read
 * the watcher's cache and the node agents. */
export function serveNotifier(
  config: Config,
  prefix: string,
  s: Shared,
  o: ServeOverrides,
  index: ClusterIndex,
  proofs: NodeProofs,
): Notifier {
  const notifier = createNotifier({
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
    observeResolution: resolutionFacts(index, proofs),
    observer: s.metrics.notifier({
      stuckAfterMs: config.timers.stuckAfterMs,
      cronJobGraceMs: config.timers.cronJobGraceMs,
    }),
    maxBackoffMs: config.timers.retryMaxMs,
    lockTtlMs: config.timers.lockTtlMs,
    ...(o.parts?.clock ? { clock: o.parts.clock } : {}),
    ...o.notifier,
  });
  s.metrics.queueDepthFrom({ notify: () => notifier.queueDepth() });
  void notifier.resumed.then((keys) => s.metrics.resumed.inc(keys.length));
  return notifier;
}

/** What a fleet member learns from its incidents about the rest of the fleet (links, rollout warnings). */
export function fleetCorrelator(
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
    driverDaemonSets: config.driverDaemonSets,
    log,
  });
}

/** The Slack Web API the bot posts with: counted (metrics), audited (one line per message), its calls aborted by
 * `signal` (on stop); `o.slack` instead in tests. */
export function serveSlack(
  config: Config,
  log: Logger,
  metrics: ServeMetrics,
  o: ServeOverrides,
  signal: AbortSignal,
): SlackApi {
  const web =
    o.slack ??
    createWebSlackApi({
      token: config.slack.botToken,
      ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
      requestTimeoutMs: config.timers.slackRequestTimeoutMs,
      // The Slack SDK's own log lines (warnings, debug) go through pino, as JSON like the rest.
      clientOptions: { logger: slackLogger(log, 'web-api'), fetch: abortedBy(signal) },
    });
  return auditSlack(metrics.countSlack(web), pinoAudit(log));
}

/** `fetch` whose requests are also aborted by `signal` (the Slack client's timeout still applies). */
function abortedBy(signal: AbortSignal): webApi.FetchFunction {
  return (url, init) =>
    globalThis.fetch(url, {
      ...(init as RequestInit),
      signal: init?.signal ? AbortSignal.any([init.signal as AbortSignal, signal]) : signal,
    }) as ReturnType<webApi.FetchFunction>;
}

/**
 * The store's unresolved records of this cluster (a record that is not the scope's cluster's is not this
 * evaluation's), as the pipeline reads them: their keys (assumed open) and their nodes (asked again on clearing).
 */
export function ownRecords(
  store: IncidentStore,
  scope: RecordScope,
): { openKeys: () => Promise<string[]>; openNodes: OpenIncidentNodes } {
  const own = async (): Promise<IncidentRecord[]> =>
    (await unresolvedRecords(store)).filter((r) => scopedKey(scope, r.key) !== undefined);
  return {
    openKeys: async () => (await own()).map((r) => r.key),
    openNodes: async () => new Map((await own()).map((r) => [r.key, r.observed.history.nodes])),
  };
}

/** The pipeline's sync with the configured thresholds, overrides and identity, reading the node agents. */
export function serveSync(config: Config, scope: RecordScope, agents: NodeProofs): Sync {
  return realSync({
    stuckAfterMs: config.timers.stuckAfterMs,
    cronJobGraceMs: config.timers.cronJobGraceMs,
    driverDaemonSets: config.driverDaemonSets,
    ...(config.clusterName ? { clusterName: config.clusterName } : {}),
    scope,
    agents,
  });
}

/** What the notices share: where they post and read, and the notifier whose roots they mark. */
interface NoticeParts {
  redis: Redis;
  prefix: string;
  slack: SlackApi;
  posting: SlackApi;
  log: Logger;
  lease: EvaluatorLease;
  roots: Notifier;
  clock: Clock;
}

/** The dead-man notice (the cluster not seen) and the Redis notice, on the channel, after RWX_BLIND_AFTER. */
export function notices(config: Config, p: NoticeParts): { deadMan: DeadMan; redisNotice: RedisNotice } {
  const common = { redis: p.redis, prefix: p.prefix, channel: config.slack.channel, log: p.log, roots: p.roots };
  const named = { afterMs: config.timers.blindAfterMs, cluster: config.clusterName };
  return {
    deadMan: new DeadMan({ ...common, ...named, slack: p.posting }),
    redisNotice: new RedisNotice({
      ...common,
      ...named,
      slack: p.slack,
      posting: p.posting,
      lease: p.lease,
      clock: p.clock,
    }),
  };
}
