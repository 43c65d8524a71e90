// The Kubernetes API simulator: a scenario served over real HTTP(S) so kubectl and client-node talk to it as to a
// cluster, with fault knobs on the side. Tests drive time with a settable clock and advance(); `rwx demo` and
// `rwx sim` run the timeline on timers. Several simulators run side by side, each on its own port.
import { createServer as createHttp, type Server } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { isSettable, systemClock, type Clock } from './clock.js';
import { SimError } from './errors.js';
import type { KubeObject } from './objects.js';
import { loadScenario, parseScenario, type Scenario, type TimelineStep } from './scenario.js';
import { SimCluster } from './cluster.js';
import { Faults, type FaultCommand } from './faults.js';
import { Authorizer } from './authz.js';
import { WatchHub } from './watch.js';
import { ANONYMOUS, UNKNOWN, createHandler, type AuditEntry } from './server.js';
import { resourceKey } from './resources.js';
import { selfSignedCert, simDir, writeKubeconfig } from './kubeconfig.js';
import { startAdmin } from './admin.js';

export { loadScenario, parseScenario, Faults };
export { SimError, isSimError, type SimErrorCode } from './errors.js';
export { BUILT_IN, type ResourceInfo, type CustomResource } from './resources.js';
export { BOOKMARK_INTERVAL_MS } from './watch.js';
export type { Clock, SettableClock } from './clock.js';
export type { KubeObject } from './objects.js';
export type { DownMode, FaultCommand, FaultKind, Scope } from './faults.js';
export type { Scenario, TimelineStep, AuditEntry };

/** How to start a simulator. */
export interface SimulatorOptions {
  /** Path to a scenario YAML file, or a parsed scenario. */
  scenario: string | Scenario;
  /**
   * A big cluster's objects already in served form, stored as they are before the scenario's (no copy, defaults,
   * relative times or references; the simulator owns them): see the README's "Big clusters".
   */
  bulk?: readonly KubeObject[];
  /** 0 or undefined: a random free port. */
  port?: number;
  /** Sim time source; a settable clock in tests. Default the wall clock. */
  clock?: Clock;
  /** Timeline steps fire on timers. Default true with the wall clock, false with an injected clock. */
  realtime?: boolean;
  /** Realtime only: sim time runs this many times faster than wall time. */
  speed?: number;
  /** Serve HTTPS with a throwaway self-signed certificate (the kubeconfig carries its CA). */
  tls?: boolean;
  /** Fault knobs on from the start, after the scenario's own `faults:`. */
  faults?: FaultCommand[];
  /** Sim milliseconds between watch bookmarks; default the scenario's `bookmarkInterval`, else a minute. */
  bookmarkIntervalMs?: number;
  /** Port of the admin endpoint (fault knobs over HTTP); 0 or undefined: a random one; false: none. */
  adminPort?: number | false;
}

/** A named client of the simulator: its own bearer token and kubeconfig, so faults can single it out. */
export interface SimClient {
  name: string;
  token: string;
  kubeconfigPath: string;
}

/** A running simulator. */
export interface Simulator {
  /** Base URL, e.g. http://127.0.0.1:43121. */
  url: string;
  /** A kubeconfig (temp dir) pointing at `url`, context "sim", carrying `token` (the client named "default"). */
  kubeconfigPath: string;
  /** The bearer token the kubeconfig carries; unknown tokens get 401 (no token: the "anonymous" client). */
  token: string;
  /** The admin endpoint's base URL (see the package README), unless started with adminPort: false. */
  adminUrl?: string;
  /** Every request in arrival order. */
  audit: AuditEntry[];
  /** Runtime fault knobs. */
  faults: Faults;
  /** A new client with its own token and kubeconfig (the same cluster). Names are unique. */
  addClient(name: string): Promise<SimClient>;
  /** Moves sim time forward by `ms`, applying due timeline steps and kubelet transitions at their own times. */
  advance(ms: number): Promise<void>;
  /** Current sim time (epoch ms). */
  now(): number;
  /** Deep copies of the stored objects of a kind ('Pod'); throws SimError('KIND') for a kind not served. */
  objects(kind: string): KubeObject[];
  /** Applies a timeline-style change now (add / set / delete / bumpEvent / compact / kubelet). */
  apply(step: Omit<TimelineStep, 'at' | 'atMs'>): void;
  /** Compacts history: watches and continue tokens from before now get 410 Expired. */
  compact(): void;
  stop(): Promise<void>;
}

/** Starts a simulator for a scenario; resolves once it is listening and its kubeconfig is written. */
export async function startSimulator(opts: SimulatorOptions): Promise<Simulator> {
  const scenario = typeof opts.scenario === 'string' ? await loadScenario(opts.scenario) : opts.scenario;
  const base = opts.clock ?? systemClock;
  const realtime = opts.realtime ?? opts.clock === undefined;
  const speed = opts.speed ?? 1;
  let offset = 0;
  let clock: Clock = base;
  let wall0 = base.now();
  let sim0 = realtime && scenario.start ? Date.parse(scenario.start) || wall0 : wall0;
  if (!isSettable(base)) clock = { now: () => sim0 + (base.now() - wall0) * speed + offset };
  const startMs = clock.now();
  const cluster = new SimCluster(scenario, startMs);
  cluster.load(opts.bulk);
  const faults = new Faults();
  // Knobs on from the start, checked before anything is opened (a malformed one throws SimError('FAULT')).
  faults.apply([...(scenario.faults ?? []), ...(opts.faults ?? [])]);
  const bookmarks = opts.bookmarkIntervalMs ?? scenario.bookmarkIntervalMs;
  const hub = new WatchHub(cluster.store, clock, faults, bookmarks);
  const audit: AuditEntry[] = [];
  const token = `sim-${randomBytes(16).toString('hex')}`;
  const clients = new Map([[token, 'default']]);
  const dir = await simDir();
  const tls = opts.tls ? await selfSignedCert(dir) : undefined;
  const handler = createHandler({
    cluster,
    clock,
    faults,
    authz: new Authorizer(scenario.permissions, faults),
    hub,
    audit,
    clients,
  });
  const server: Server = tls ? createHttps({ key: tls.key, cert: tls.cert }, handler) : createHttp(handler);
  try {
    await listen(server, opts.port ?? 0);
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const kubeconfigPath = await writeKubeconfig(dir, url, token, tls?.cert);
  const listening = new PortSwitch(server, port);
  faults.connect({
    changed: () => hub.refresh(),
    end: (s) => hub.closeAll(s),
    drop: (s) => hub.dropAll(s),
    cut: (s) => hub.cutAll(s),
    expire: (s) => hub.expireAll(s),
    refuse: (on) => listening.set(!on),
  });
  if (faults.isRefused()) listening.set(false);

  const catchUp = (): void => {
    cluster.runDue(clock.now());
    hub.tick(clock.now());
  };
  // Sim time starts when the server is ready, so a fast --speed does not lose the first steps to start-up.
  sim0 = startMs - offset;
  wall0 = base.now();
  const timer = realtime ? setInterval(catchUp, 50) : undefined;
  timer?.unref();

  const sim: Simulator = {
    url,
    kubeconfigPath,
    token,
    audit,
    faults,
    async addClient(name) {
      if ([...clients.values()].includes(name) || name === ANONYMOUS || name === UNKNOWN)
        throw new SimError('FAULT', `a client named "${name}" already exists`);
      const t = `sim-${randomBytes(16).toString('hex')}`;
      clients.set(t, name);
      const path = await writeKubeconfig(dir, url, t, tls?.cert, `kubeconfig-${clients.size}`);
      return { name, token: t, kubeconfigPath: path };
    },
    async advance(ms) {
      const target = clock.now() + ms;
      if (isSettable(clock)) {
        const c = clock;
        cluster.runDue(target, (at) => {
          if (at > c.now()) c.set(at);
          hub.tick(at);
        });
        c.set(target);
      } else {
        offset += ms;
        cluster.runDue(target);
      }
      hub.tick(clock.now());
      // Let sockets flush what the steps wrote before the caller looks.
      await new Promise((r) => setImmediate(r));
    },
    now: () => clock.now(),
    objects(kind) {
      const res = cluster.resources.ofKind(kind);
      if (!res) throw new SimError('KIND', `kind "${kind}" is not served by this simulator`);
      return structuredClone([...cluster.store.list(resourceKey(res))]);
    },
    apply(step) {
      cluster.applyStep({ ...step, atMs: clock.now() - startMs, at: '0s' } as TimelineStep, clock.now());
    },
    compact: () => cluster.store.compact(),
    async stop() {
      if (timer) clearInterval(timer);
      faults.dispose();
      await admin?.stop();
      hub.closeAll();
      server.closeAllConnections();
      await listening.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  let admin: Awaited<ReturnType<typeof startAdmin>> | undefined;
  try {
    admin = opts.adminPort === false ? undefined : await startAdmin(sim, opts.adminPort ?? 0, scenario.resources);
  } catch (e) {
    await sim.stop();
    throw e;
  }
  if (admin) sim.adminUrl = admin.url;
  return sim;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new SimError('PORT_IN_USE', `port ${port} is already in use`, { cause: e }) : e);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Opens and closes the API port on demand (connection refused while closed), one change at a time. */
class PortSwitch {
  private chain: Promise<void> = Promise.resolve();
  private on = true;

  constructor(
    private readonly server: Server,
    private readonly port: number,
  ) {}

  /** Listens again (true) or closes the port and cuts every connection (false). */
  set(on: boolean): void {
    this.chain = this.chain.then(() => this.apply(on)).catch(() => undefined);
  }

  /** Closes the port for good (stop). */
  async close(): Promise<void> {
    await this.chain;
    if (this.on) await new Promise<void>((r) => this.server.close(() => r()));
    this.on = false;
  }

  private async apply(on: boolean): Promise<void> {
    if (on === this.on) return;
    this.on = on;
    if (on) return listen(this.server, this.port);
    const closed = new Promise<void>((r) => this.server.close(() => r()));
    this.server.closeAllConnections();
    await closed;
  }
}
