// The admin endpoint: the fault knobs and the clock over plain HTTP on a port of its own (so it still answers
// while the API port refuses connections), for a simulator running in another process (`rwx sim`).
//   GET /faults           active lasting faults        POST /faults   a knob or a list of knobs (JSON form)
//   DELETE /faults        clear every fault            POST /clients  {"name": "replica-b"} -> token, kubeconfig
//   GET /audit?since=N    requests from index N on      POST /advance  {"ms": 60000} (sim time)
//   POST /apply           a timeline step, e.g. {"delete": [{"kind": "Pod", "namespace": "ns", "name": "x"}]}
//   GET /objects?kind=Pod the stored objects of a kind
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimError, isSimError } from './errors.js';
import type { Faults } from './faults.js';
import type { KubeObject } from './objects.js';
import { parseScenario, type TimelineStep } from './scenario.js';
import type { CustomResource } from './resources.js';
import type { AuditEntry } from './server.js';

/** What the admin endpoint drives: the running simulator's knobs, clock and state. */
export interface AdminTarget {
  faults: Faults;
  audit: AuditEntry[];
  addClient(name: string): Promise<unknown>;
  advance(ms: number): Promise<void>;
  now(): number;
  apply(step: Omit<TimelineStep, 'at' | 'atMs'>): void;
  objects(kind: string): KubeObject[];
}

/** A running admin endpoint. */
export interface Admin {
  url: string;
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequest('the body is not JSON');
  }
}

class BadRequest extends Error {}

function reply(out: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  out.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  out.end(text);
}

async function route(sim: AdminTarget, custom: CustomResource[], req: IncomingMessage, out: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://admin');
  const at = `${req.method} ${url.pathname.replace(/\/+$/, '')}`;
  switch (at) {
    case 'GET /faults':
      return reply(out, 200, { faults: sim.faults.describe() });
    case 'POST /faults':
      sim.faults.apply(await readJson(req));
      return reply(out, 200, { faults: sim.faults.describe() });
    case 'DELETE /faults':
      sim.faults.clear();
      return reply(out, 200, { faults: sim.faults.describe() });
    case 'POST /clients': {
      const name = ((await readJson(req)) as Json).name;
      if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9.-]*$/.test(name))
        throw new BadRequest('name: a lower-case name like "replica-b" is required');
      return reply(out, 201, await sim.addClient(name));
    }
    case 'GET /audit': {
      const since = Math.max(0, Number(url.searchParams.get('since') ?? '0') || 0);
      return reply(out, 200, { entries: sim.audit.slice(since), next: sim.audit.length });
    }
    case 'POST /advance': {
      const ms = ((await readJson(req)) as Json).ms;
      if (typeof ms !== 'number' || !(ms >= 0)) throw new BadRequest('ms: a number of milliseconds >= 0 is required');
      await sim.advance(ms);
      return reply(out, 200, { now: sim.now() });
    }
    case 'POST /apply': {
      const step = { ...((await readJson(req)) as Json), at: '0s' };
      const parsed = parseScenario({ name: 'admin', resources: custom, timeline: [step] }, 'apply');
      const { at: _at, atMs: _ms, ...change } = parsed.timeline[0]!;
      sim.apply(change);
      return reply(out, 200, { now: sim.now() });
    }
    case 'GET /objects':
      return reply(out, 200, { items: sim.objects(url.searchParams.get('kind') ?? '') });
    default:
      return reply(out, 404, { error: `no admin route ${at}` });
  }
}

/** Serves the admin endpoint for `sim` on 127.0.0.1:`port` (0: a random port). */
export async function startAdmin(sim: AdminTarget, port: number, custom: CustomResource[] = []): Promise<Admin> {
  const server = createServer((req, out) => {
    route(sim, custom, req, out).catch((e: unknown) => {
      if (out.headersSent) return void out.destroy();
      const known = e instanceof BadRequest || isSimError(e);
      reply(out, known ? 400 : 500, { error: e instanceof Error ? e.message : String(e) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new SimError('PORT_IN_USE', `port ${port} is already in use`, { cause: e }) : e),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
