// Prometheus metrics for `rwx serve` (prom-client), on a registry of our own so tests and two pipelines in one
// process never collide. The watcher, pipeline and Slack wrapper report through the small interfaces they own.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { KindKey } from '../domain/kinds.js';
import type { SlackApi } from '../slack/api.js';
import { isRwxError } from '../errors.js';
import type { RestartReason } from '../watch/reflector.js';
import type { WatchMetrics } from '../watch/watcher.js';
import type { PipelineMetrics } from './pipeline.js';

/** Every metric the bot exports, plus adapters for the components that report into them. */
export class ServeMetrics {
  readonly registry = new Registry();
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
    help: 'Slack Web API calls by method and outcome',
    labelNames: ['method', 'outcome'],
    registers: [this.registry],
  });
  readonly watchRestarts = new Counter({
    name: 'rwx_watch_restarts_total',
    help: 'Watch restarts by kind and reason (gone=410 relist, stalled=watchdog, error=backoff, closed=server timeout)',
    labelNames: ['kind', 'reason'],
    registers: [this.registry],
  });
  readonly watchEvents = new Counter({
    name: 'rwx_watch_events_total',
    help: 'Watch events applied to the cache by kind',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly apiReachable = new Gauge({
    name: 'rwx_kube_api_reachable',
    help: '1 when the Kubernetes API answers, 0 during an outage',
    registers: [this.registry],
  });
  private readonly depthSources = new Map<string, () => number | Promise<number>>();
  readonly queueDepth: Gauge<'queue'>;

  constructor(opts: { processMetrics?: boolean } = {}) {
    const sources = this.depthSources;
    this.queueDepth = new Gauge({
      name: 'rwx_queue_depth',
      help: 'Keys or jobs waiting, by queue (work = dirty keys, notify = BullMQ jobs)',
      labelNames: ['queue'],
      registers: [this.registry],
      async collect() {
        for (const [queue, f] of sources) {
          try {
            this.set({ queue }, await f());
          } catch {
            // Redis down: keep the last value; /readyz reports the outage.
          }
        }
      },
    });
    this.apiReachable.set(1);
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'rwx_' });
  }

  /** The watcher's view of these metrics. */
  watch(): WatchMetrics {
    return {
      restart: (kind: KindKey, reason: RestartReason) => this.watchRestarts.inc({ kind, reason }),
      apiReachable: (up: boolean) => this.apiReachable.set(up ? 1 : 0),
      event: (kind: KindKey) => this.watchEvents.inc({ kind }),
    };
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

  /** Adds a queue whose depth is read on every scrape (name -> current depth). */
  queueDepthFrom(sources: Record<string, () => number | Promise<number>>): void {
    for (const [name, f] of Object.entries(sources)) this.depthSources.set(name, f);
  }

  /** Wraps a SlackApi so every call is counted by method and outcome (ok, rate_limited, error). */
  countSlack(api: SlackApi): SlackApi {
    const count = <T>(method: string, p: Promise<T>): Promise<T> =>
      p.then(
        (v) => {
          this.slackCalls.inc({ method, outcome: 'ok' });
          return v;
        },
        (e: unknown) => {
          this.slackCalls.inc({ method, outcome: isRwxError(e, 'SLACK_RATE_LIMITED') ? 'rate_limited' : 'error' });
          throw e;
        },
      );
    return {
      postMessage: (a) => count('chat.postMessage', api.postMessage(a)),
      update: (a) => count('chat.update', api.update(a)),
      postEphemeral: (a) => count('chat.postEphemeral', api.postEphemeral(a)),
      findRootByIncidentKey: (c, k, s) => count('conversations.history', api.findRootByIncidentKey(c, k, s)),
      findThreadReply: (c, t, k, r) => count('conversations.replies', api.findThreadReply(c, t, k, r)),
      uploadFile: (a) => count('files.upload', api.uploadFile(a)),
    };
  }
}
