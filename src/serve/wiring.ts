// The parts of `rwx serve` built from the Config before the pipeline starts: the notifier with its timers and
// resolution facts, and in a fleet the correlator that compares this cluster's incidents with the others'.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import { systemClock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import { createFleetCorrelator, type FleetCorrelator } from '../fleet/correlation.js';
import { fleetKeys, recordScope, type RecordScope } from '../fleet/keys.js';
import { type Notifier, createNotifier } from '../notify/notifier.js';
import type { SlackApi } from '../slack/api.js';
import type { ServeMetrics } from './metrics.js';
import type { ServeOverrides } from './overrides.js';
import type { NodeProofs } from './proof.js';
import { observeWithProof } from './proof-sink.js';
import { observeResolution } from './stages.js';

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

// The notifier with the configured timers; resolution facts come from the watcher's cache once it exists.
export function serveNotifier(
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
    maxBackoffMs: config.timers.retryMaxMs,
    ...(o.parts?.clock ? { clock: o.parts.clock } : {}),
    ...o.notifier,
  });
}

// What a fleet member learns from its incidents about the rest of the fleet (links, rollout warnings).
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
    driverDaemonSets: Object.fromEntries(
      Object.entries(config.driverDaemonSets).map(([d, r]) => [d, `${r.namespace}/${r.name}`]),
    ),
    log,
  });
}
