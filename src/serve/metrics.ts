// Prometheus metrics for `rwx serve` (prom-client), on a registry of our own so tests and two pipelines in one
// process never collide. The watcher, pipeline, notifier, slash commands and Slack wrapper report through the small
// interfaces they own. Every labelled series exists from the start, at 0, for every label value known in advance
// (a rate() over a series that appears with its first increment misses that increment). The process and Node.js
// metrics keep prom-client's standard names (process_*, nodejs_*) so the usual dashboards work; docs/metrics.md
// lists every metric.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BuildInfo } from '../build-info.js';
import { COMMAND_NAMES, COMMAND_OUTCOMES, type CommandObserver } from '../commands/observe.js';
import type { Clock } from '../domain/clock.js';
import type { Finding } from '../domain/findings.js';
import type { Incident, Verdict } from '../domain/incident.js';
import type { KindKey } from '../domain/kinds.js';
import { isRwxError } from '../errors.js';
import type { NotifierObserver } from '../notify/notifier.js';
import type { SlackApi } from '../slack/api.js';
import type { RestartReason } from '../watch/reflector.js';
import { WATCHED_KINDS, type WatchMetrics } from '../watch/watcher.js';
import type { PipelineMetrics } from '../pipeline/pipeline.js';

const FINDING_KINDS = keys<Finding['kind']>({ 'stuck-creating': 0, 'stuck-terminating': 0, 'cronjob-missed': 0 });
const VERDICTS = keys<Verdict>({ FOLLOWS_ROLLOUT: 0, FOLLOWS_NODE: 0, UNEXPLAINED: 0, NOT_STORAGE: 0 });
const RESTART_REASONS = keys<RestartReason>({ gone: 0, stalled: 0, error: 0, closed: 0 });
const SLACK_OUTCOMES = ['ok', 'rate_limited', 'error'] as const;
/** The Web API methods countSlack labels (one per SlackApi operation). */
const SLACK_METHODS = [
  'chat.postMessage',
  'chat.update',
  'chat.postEphemeral',
  'conversations.history',
  'conversations.replies',
  'chat.getPermalink',
  'files.upload',
] as const;
const QUEUES = ['work', 'notify'] as const;

/**
 * prom-client's gauges that end in _total, which `promtool check metrics` rejects (only counters may): each is the
 * sum over `type` of the gauge of the same name without the suffix, which is kept (sum(nodejs_active_handles)).
 */
const NOT_EXPORTED = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** Buckets of rwx_stuck_to_posted_seconds: group_wait (30 s by default) to a day. */
export const STUCK_TO_POSTED_BUCKETS = [15, 30, 45, 60, 90, 120, 180, 300, 600, 1800, 3600, 14_400, 86_400];

/** What ServeMetrics is built with. */
export interface ServeMetricsOptions {
  /** Export prom-client's default process_* and nodejs_* metrics (rwx serve; tests leave them off). */
  processMetrics?: boolean;
  /** The rwx_build_info labels. Default: unknown / unknown. */
  build?: BuildInfo;
  /** Stamps rwx_last_successful_evaluation_timestamp_seconds. Default: the wall clock. */
  clock?: Clock;
}

/** When an incident's first member became stuck, by the detectors' own thresholds. */
export interface StuckThresholds {
  stuckAfterMs: number;
  cronJobGraceMs: number;
}

/** How long a scrape waits for one queue depth (a Redis read) before keeping the last value. */
const DEPTH_DEADLINE_MS = 500;

// f's value, or undefined when it fails or takes longer than `ms`.
async function inTime(f: () => number | Promise<number>, ms: number): Promise<number | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(f),
      new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms))),
    ]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Every metric the bot exports, plus adapters for the components that report into them. */
export class ServeMetrics {
  readonly registry = new Registry();
  private readonly clock: Clock;
  private readonly depthSources = new Map<string, () => number | Promise<number>>();
  private watchStatus: () => readonly { kind: KindKey; synced: boolean }[] = () => [];

  readonly findings = new Gauge({
    name: 'rwx_findings',
    help: 'Current findings by kind',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly openIncidents = new Gauge({
    name: 'rwx_open_incidents',
    help: 'Incidents in the last correlation',
    registers: [this.registry],
  });
  readonly slackCalls = new Counter({
    name: 'rwx_slack_calls_total',
    help: 'Slack Web API calls by method and outcome (ok, rate_limited, error)',
    labelNames: ['method', 'outcome'],
    registers: [this.registry],
  });
  readonly slackChannelRefused = new Counter({
    name: 'rwx_slack_channel_refused_total',
    help: 'Slack calls refused because the bot cannot use the channel (not_in_channel, channel_not_found, is_archived), by channel',
    labelNames: ['channel'],
    registers: [this.registry],
  });
  readonly watchRestarts = new Counter({
    name: 'rwx_watch_restarts_total',
    help: 'Watch restarts by kind and reason (gone=410 relist, stalled=watchdog relist, error=backoff, closed=server timeout)',
    labelNames: ['kind', 'reason'],
    registers: [this.registry],
  });
  readonly watchEvents = new Counter({
    name: 'rwx_watch_events_total',
    help: 'Watch events applied to the cache by kind',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly watchSynced: Gauge<'kind'>;
  readonly apiReachable = new Gauge({
    name: 'rwx_kube_api_reachable',
    help: '1 when the Kubernetes API answers, 0 during an outage',
    registers: [this.registry],
  });
  readonly redisUp = new Gauge({
    name: 'rwx_redis_up',
    help: "1 while the bot's Redis connection is ready, 0 while it is down (the bot waits for it, it does not exit)",
    registers: [this.registry],
  });
  readonly queueDepth: Gauge<'queue'>;
  readonly buildInfo = new Gauge({
    name: 'rwx_build_info',
    help: 'Always 1; the labels name the running build (version from package.json, git commit)',
    labelNames: ['version', 'commit'],
    registers: [this.registry],
  });
  readonly incidentsOpened = new Counter({
    name: 'rwx_incidents_opened_total',
    help: 'Incident threads opened (root posted to Slack) by verdict',
    labelNames: ['verdict'],
    registers: [this.registry],
  });
  readonly stuckToPosted = new Histogram({
    name: 'rwx_stuck_to_posted_seconds',
    help: "Time from an incident's first member becoming stuck (past RWX_STUCK_AFTER or RWX_CRONJOB_GRACE) to its root in Slack",
    buckets: STUCK_TO_POSTED_BUCKETS,
    registers: [this.registry],
  });
  readonly commands = new Counter({
    name: 'rwx_commands_total',
    help: 'Slash commands by name (triage, drain, status, help, usage=did not parse) and outcome (ok, refused, error)',
    labelNames: ['command', 'outcome'],
    registers: [this.registry],
  });
  readonly evaluations = new Counter({
    name: 'rwx_evaluations_total',
    help: 'Evaluations (correlate the cache, hand the incidents to the notifier) by outcome (ok, error, standby=not handed over: another replica holds the evaluator lease)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly evaluatorActive = new Gauge({
    name: 'rwx_evaluator_active',
    help: '1 while this replica holds the evaluator lease and records incidents, 0 while it stands by',
    registers: [this.registry],
  });
  readonly resumed = new Counter({
    name: 'rwx_notify_resumed_total',
    help: 'Incidents whose work an earlier process of this replica was killed in, resumed at start-up',
    registers: [this.registry],
  });
  readonly lastEvaluation = new Gauge({
    name: 'rwx_last_successful_evaluation_timestamp_seconds',
    help: 'Unix time of the last evaluation whose incidents reached the notifier (0 before the first)',
    registers: [this.registry],
  });

  constructor(opts: ServeMetricsOptions = {}) {
    this.clock = opts.clock ?? { now: () => Date.now() };
    const sources = this.depthSources;
    this.queueDepth = new Gauge({
      name: 'rwx_queue_depth',
      help: 'Keys or jobs waiting, by queue (work = dirty keys, notify = BullMQ jobs)',
      labelNames: ['queue'],
      registers: [this.registry],
      async collect() {
        // Redis down: keep the last value; /readyz and rwx_redis_up report the outage. A source has a deadline, as
        // its commands wait for the reconnect: without one a scrape hung for the whole outage.
        await Promise.all(
          [...sources].map(async ([queue, f]) => {
            const n = await inTime(f, DEPTH_DEADLINE_MS);
            if (n !== undefined) this.set({ queue }, n);
          }),
        );
      },
    });
    const status = () => this.watchStatus();
    this.watchSynced = new Gauge({
      name: 'rwx_watch_synced',
      help: 'Per kind: 1 once its first list has completed (the cache holds it), 0 before',
      labelNames: ['kind'],
      registers: [this.registry],
      collect() {
        for (const s of status()) this.set({ kind: s.kind }, s.synced ? 1 : 0);
      },
    });
    this.apiReachable.set(1);
    this.redisUp.set(1);
    this.buildInfo.set({ version: opts.build?.version ?? 'unknown', commit: opts.build?.commit ?? 'unknown' }, 1);
    this.startAtZero();
    if (opts.processMetrics) {
      collectDefaultMetrics({ register: this.registry });
      for (const name of NOT_EXPORTED) this.registry.removeSingleMetric(name);
    }
  }

  private startAtZero(): void {
    for (const kind of FINDING_KINDS) this.findings.set({ kind }, 0);
    for (const method of SLACK_METHODS)
      for (const outcome of SLACK_OUTCOMES) this.slackCalls.inc({ method, outcome }, 0);
    // rwx_watch_synced starts with the watcher's own kinds (watchStatusFrom): a kind never watched must not read 0.
    for (const kind of WATCHED_KINDS) {
      this.watchEvents.inc({ kind }, 0);
      for (const reason of RESTART_REASONS) this.watchRestarts.inc({ kind, reason }, 0);
    }
    for (const queue of QUEUES) this.queueDepth.set({ queue }, 0);
    for (const verdict of VERDICTS) this.incidentsOpened.inc({ verdict }, 0);
    for (const command of COMMAND_NAMES)
      for (const outcome of COMMAND_OUTCOMES) this.commands.inc({ command, outcome }, 0);
    for (const outcome of ['ok', 'error', 'standby']) this.evaluations.inc({ outcome }, 0);
    this.evaluatorActive.set(1);
    this.lastEvaluation.set(0);
  }

  /** The watcher's view of these metrics. */
  watch(): WatchMetrics {
    return {
      restart: (kind: KindKey, reason: RestartReason) => this.watchRestarts.inc({ kind, reason }),
      apiReachable: (up: boolean) => this.apiReachable.set(up ? 1 : 0),
      event: (kind: KindKey) => this.watchEvents.inc({ kind }),
    };
  }

  /** Reads each watched kind's synced state on every scrape (the watcher's status()); each starts at 0 now. */
  watchStatusFrom(status: () => readonly { kind: KindKey; synced: boolean }[]): void {
    this.watchStatus = status;
    for (const s of status()) this.watchSynced.set({ kind: s.kind }, s.synced ? 1 : 0);
  }

  /** The pipeline's view of these metrics. */
  pipeline(): PipelineMetrics {
    return {
      findings: (byKind) => {
        for (const [kind, n] of Object.entries(byKind)) this.findings.set({ kind }, n);
      },
      openIncidents: (n) => this.openIncidents.set(n),
    };
  }

  /**
   * Records one evaluation's outcome; a success, or a standby's evaluation (the loop runs, another replica records),
   * also stamps the time of the last successful one.
   */
  evaluated(ok: boolean | 'standby'): void {
    this.evaluations.inc({ outcome: ok === 'standby' ? 'standby' : ok ? 'ok' : 'error' });
    if (ok) this.lastEvaluation.set(this.clock.now() / 1000);
  }

  /** Whether this replica holds the evaluator lease (src/serve/lease.ts). */
  evaluatorActiveIs(active: boolean): void {
    this.evaluatorActive.set(active ? 1 : 0);
  }

  /** The notifier's view: a posted root opens an incident and ends its stuck-to-posted time. */
  notifier(thresholds: StuckThresholds): NotifierObserver {
    return {
      rootPosted: (incident, now) => {
        this.incidentsOpened.inc({ verdict: incident.verdict });
        const since = stuckSince(incident, thresholds);
        if (since !== undefined) this.stuckToPosted.observe(Math.max(0, now - since) / 1000);
      },
    };
  }

  /** The slash commands' view. */
  commandObserver(): CommandObserver {
    return (command, outcome) => this.commands.inc({ command, outcome });
  }

  /** Adds a queue whose depth is read on every scrape (name -> current depth). */
  queueDepthFrom(sources: Record<string, () => number | Promise<number>>): void {
    for (const [name, f] of Object.entries(sources)) this.depthSources.set(name, f);
  }

  /** Wraps a SlackApi so every call is counted by method and outcome (ok, rate_limited, error). */
  countSlack(api: SlackApi): SlackApi {
    const count = <T>(method: (typeof SLACK_METHODS)[number], channel: string, p: Promise<T>): Promise<T> =>
      p.then(
        (v) => {
          this.slackCalls.inc({ method, outcome: 'ok' });
          return v;
        },
        (e: unknown) => {
          this.slackCalls.inc({ method, outcome: isRwxError(e, 'SLACK_RATE_LIMITED') ? 'rate_limited' : 'error' });
          if (isRwxError(e, 'SLACK_CHANNEL')) this.slackChannelRefused.inc({ channel });
          throw e;
        },
      );
    return {
      postMessage: (a) => count('chat.postMessage', a.channel, api.postMessage(a)),
      update: (a) => count('chat.update', a.channel, api.update(a)),
      postEphemeral: (a) => count('chat.postEphemeral', a.channel, api.postEphemeral(a)),
      findRootByIncidentKey: (c, k, s) => count('conversations.history', c, api.findRootByIncidentKey(c, k, s)),
      findThreadReply: (c, t, k, r) => count('conversations.replies', c, api.findThreadReply(c, t, k, r)),
      permalink: (c, t) => count('chat.getPermalink', c, api.permalink(c, t)),
      uploadFile: (a) => count('files.upload', a.channel, api.uploadFile(a)),
    };
  }
}

/**
 * The moment an incident's first member became stuck (epoch ms): a pod at its `since` plus RWX_STUCK_AFTER, a
 * CronJob at its latest scheduled run plus RWX_CRONJOB_GRACE. Undefined when no member says when.
 */
export function stuckSince(incident: Incident, t: StuckThresholds): number | undefined {
  const times = [
    ...incident.pods.map((p) => Date.parse(p.since) + t.stuckAfterMs),
    ...incident.cronJobs.map((c) => Date.parse(c.latestScheduled) + t.cronJobGraceMs),
  ].filter((ms) => Number.isFinite(ms));
  return times.length ? Math.min(...times) : undefined;
}

function keys<K extends string>(o: Record<K, 0>): readonly K[] {
  return Object.keys(o) as K[];
}
