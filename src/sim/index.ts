// The Kubernetes API simulator: a scenario served over real HTTP(S) so kubectl and client-node talk to it as to a
// cluster. Tests drive time with a ManualClock and advance(); the demo and `rwx sim` run the timeline on timers.
import { createServer as createHttp, type Server } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { systemClock, type Clock } from '../domain/clock.js';
import { RwxError } from '../errors.js';
import { KINDS, KIND_KEYS } from '../domain/kinds.js';
import { emptySnapshot, type Snapshot } from '../domain/snapshot.js';
import { loadScenario, parseScenario, type Scenario, type TimelineStep } from './scenario.js';
import { SimCluster } from './cluster.js';
import { Faults } from './faults.js';
import { Authorizer } from './authz.js';
import { WatchHub } from './watch.js';
import { createHandler, type AuditEntry } from './server.js';
import { resourceKey } from './resources.js';
import { selfSignedCert, simDir, writeKubeconfig } from './kubeconfig.js';

export { loadScenario, parseScenario, Faults };
export type { Scenario, TimelineStep, AuditEntry };

/** How to start a simulator. */
export interface SimulatorOptions {
  /** Path to a scenario YAML file, or a parsed scenario. */
  scenario: string | Scenario;
  /** 0 or undefined: a random free port. */
  port?: number;
  /** Sim time source; a ManualClock in tests. Default systemClock. */
  clock?: Clock;
  /** Timeline steps fire on timers. Default true with the system clock, false with an injected clock. */
  realtime?: boolean;
  /** Realtime only: sim time runs this many times faster than wall time. */
  speed?: number;
  /** Serve HTTPS with a throwaway self-signed certificate (the kubeconfig carries its CA). */
  tls?: boolean;
}

/** A running simulator. */
export interface Simulator {
  /** Base URL, e.g. http://127.0.0.1:43121. */
  url: string;
  /** A kubeconfig (temp dir) pointing at `url`, context "sim", carrying `token`. */
  kubeconfigPath: string;
  /** The bearer token the kubeconfig carries; any other token gets 401 (no token: anonymous, allowed). */
  token: string;
  /** Every request in arrival order. */
  audit: AuditEntry[];
  /** Runtime fault injection. */
  faults: Faults;
  /** Moves sim time forward by `ms`, applying due timeline steps and kubelet transitions at their own times. */
  advance(ms: number): Promise<void>;
  /** Current sim time (epoch ms). */
  now(): number;
  /** Current objects of every kind the bot reads (deep copies). */
  state(): Snapshot;
  /** Applies a timeline-style change now (add / set / delete / bumpEvent / compact / kubelet). */
  apply(step: Omit<TimelineStep, 'at' | 'atMs'>): void;
  /** Compacts history: watches and continue tokens from before now get 410 Expired. */
  compact(): void;
  stop(): Promise<void>;
}

/** Absolute path of a bundled scenario, e.g. scenarioPath('propagation-loss') (works from src/ and dist/). */
export function scenarioPath(name: string): string {
  return fileURLToPath(new URL(`../../scenarios/${name.replace(/\.yaml$/, '')}.yaml`, import.meta.url));
}

interface Settable extends Clock {
  set(ms: number): void;
}

function isSettable(c: Clock): c is Settable {
  return typeof (c as Partial<Settable>).set === 'function';
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
  cluster.load();
  const faults = new Faults();
  const hub = new WatchHub(cluster.store, clock, faults);
  const audit: AuditEntry[] = [];
  const token = `sim-${randomBytes(16).toString('hex')}`;
  const dir = await simDir();
  const tls = opts.tls ? await selfSignedCert(dir) : undefined;
  const handler = createHandler({
    cluster,
    clock,
    faults,
    authz: new Authorizer(scenario.permissions, faults),
    hub,
    audit,
    token,
  });
  const server: Server = tls ? createHttps({ key: tls.key, cert: tls.cert }, handler) : createHttp(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      void rm(dir, { recursive: true, force: true });
      reject(e.code === 'EADDRINUSE' ? new RwxError('USAGE', `port ${opts.port} is already in use`, { cause: e }) : e);
    });
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const kubeconfigPath = await writeKubeconfig(dir, url, token, tls?.cert);

  const catchUp = (): void => {
    cluster.runDue(clock.now());
    hub.tick(clock.now());
  };
  // Sim time starts when the server is ready, so a fast --speed does not lose the first steps to start-up.
  sim0 = startMs - offset;
  wall0 = base.now();
  const timer = realtime ? setInterval(catchUp, 50) : undefined;
  timer?.unref();

  return {
    url,
    kubeconfigPath,
    token,
    audit,
    faults,
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
    state() {
      const s = emptySnapshot();
      for (const k of KIND_KEYS) (s[k] as unknown[]) = structuredClone([...cluster.store.list(resourceKey(KINDS[k]))]);
      return s;
    },
    apply(step) {
      cluster.applyStep({ ...step, atMs: clock.now() - startMs, at: '0s' } as TimelineStep, clock.now());
    },
    compact: () => cluster.store.compact(),
    async stop() {
      if (timer) clearInterval(timer);
      hub.closeAll();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
