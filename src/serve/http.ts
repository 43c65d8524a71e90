// The operability endpoints: /healthz (the process is alive and not shutting down), /readyz (watches synced, API
// reachable, Redis reachable), /metrics (Prometheus text). One node:http server; in Slack HTTP mode the other
// paths (/slack/events) are handed to Bolt's request listener so everything shares PORT.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** One readiness check: a name and a probe resolving to true (ready) or a reason string. */
export interface ReadyCheck {
  name: string;
  probe(): Promise<true | string> | true | string;
}

/** What the server answers from. */
export interface OpsOptions {
  registry: Registry;
  checks: ReadyCheck[];
  /** False once shutdown has begun: /healthz and /readyz then answer 503. */
  alive: () => boolean;
  /** Requests for any other path (Bolt's HTTP receiver); 404 when absent. */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void;
}

/** Runs every check with a deadline; returns the failing ones as "name: reason". */
export async function readiness(checks: ReadyCheck[], timeoutMs = 2000): Promise<string[]> {
  const results = await Promise.all(
    checks.map(async (c) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const r = await Promise.race([
          Promise.resolve(c.probe()),
          new Promise<string>(
            (resolve) => (timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs)),
          ),
        ]);
        return r === true ? undefined : `${c.name}: ${r}`;
      } catch (e) {
        return `${c.name}: ${e instanceof Error ? e.message : String(e)}`;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return results.filter((r): r is string => r !== undefined);
}

/** The request handler for the endpoints in the file comment. */
export function opsHandler(opts: OpsOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'Content-Type': type });
      res.end(body);
    };
    if (req.method === 'GET' && path === '/healthz') {
      send(opts.alive() ? 200 : 503, opts.alive() ? 'ok\n' : 'shutting down\n');
    } else if (req.method === 'GET' && path === '/readyz') {
      if (!opts.alive()) return send(503, 'shutting down\n');
      readiness(opts.checks).then(
        (failing) => send(failing.length ? 503 : 200, failing.length ? `${failing.join('\n')}\n` : 'ready\n'),
        () => send(503, 'readiness check failed\n'),
      );
    } else if (req.method === 'GET' && path === '/metrics') {
      opts.registry.metrics().then(
        (text) => send(200, text, opts.registry.contentType),
        (e: unknown) => send(500, `${e instanceof Error ? e.message : String(e)}\n`),
      );
    } else if (opts.fallback) {
      opts.fallback(req, res);
    } else {
      send(404, 'not found\n');
    }
  };
}

/** Listens on `port` (0 = any) at `host`; resolves with the server and the bound port. */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port: number,
  host = '0.0.0.0',
): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** Closes a server, ending idle keep-alive connections so shutdown does not wait for them. */
export async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
