// `rwx agent` over HTTP: /report (JSON), /healthz, /metrics. GET only, no request body is ever read, nothing in a
// request changes what the agent does. A scan runs on demand, at most once per `maxAgeMs`; concurrent requests
// share the scan in flight, so a burst of requests costs one scan.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../domain/clock.js';
import type { AgentMetrics } from './metrics.js';
import type { AgentReport } from '../domain/node-report.js';

/** Default port of the agent (the DaemonSet's containerPort "agent"). */
export const AGENT_PORT = 9743;

/** The latest report, rescanned when older than maxAgeMs. */
export class ReportCache {
  private last: { at: number; report: AgentReport } | undefined;
  private inFlight: Promise<AgentReport> | undefined;

  constructor(
    private readonly scan: () => Promise<AgentReport>,
    private readonly clock: Clock,
    private readonly maxAgeMs: number,
    private readonly metrics?: AgentMetrics,
  ) {}

  /** A report no older than maxAgeMs. Rejects when the scan throws (the next call scans again). */
  get(): Promise<AgentReport> {
    const now = this.clock.now();
    if (this.last && now - this.last.at < this.maxAgeMs) return Promise.resolve(this.last.report);
    this.inFlight ??= this.scan().then(
      (report) => {
        const done = this.clock.now();
        this.metrics?.observe(report, (done - now) / 1000, done);
        this.last = { at: done, report };
        this.inFlight = undefined;
        return report;
      },
      (e: unknown) => {
        this.metrics?.failed();
        this.inFlight = undefined;
        throw e;
      },
    );
    return this.inFlight;
  }
}

/** The request handler for /report, /healthz and /metrics. */
export function agentHandler(
  cache: ReportCache,
  metrics: AgentMetrics,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET') return send(405, 'only GET\n');
    if (path === '/healthz') return send(200, 'ok\n');
    if (path === '/report') {
      cache.get().then(
        (r) => send(200, `${JSON.stringify(r)}\n`, 'application/json'),
        (e: unknown) =>
          send(503, `${JSON.stringify({ error: e instanceof Error ? e.message : String(e) })}\n`, 'application/json'),
      );
      return;
    }
    if (path === '/metrics') {
      // A scrape refreshes the numbers; a failed scan still serves the failure counters.
      cache
        .get()
        .catch(() => undefined)
        .then(() => metrics.registry.metrics())
        .then(
          (text) => send(200, text, metrics.registry.contentType),
          (e: unknown) => send(500, `${e instanceof Error ? e.message : String(e)}\n`),
        );
      return;
    }
    send(404, 'not found: GET /report, /healthz or /metrics\n');
  };
}
