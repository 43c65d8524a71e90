// What the child-process fault tests share: a world (test/support/world.ts: the simulator in real time, the fake
// Slack, a Redis prefix) and the `rwx serve` children started in it, all stopped and removed after each test
// (childWorld registers that).
import { afterEach } from 'vitest';
import type { Simulator } from '@rwx/kube-sim';
import type { FakeSlack } from '../support/fake-slack.js';
import { type World, type WorldOptions, openWorld } from '../support/world.js';
import { startServeChild, type ServeChild } from './child.js';

/** One test's world; sim and slack exist once open() resolved. */
export interface ChildWorld {
  readonly prefix: string;
  sim: Simulator;
  slack: FakeSlack;
  /** The children still running (a test that waits for one to exit takes it out with forget). */
  readonly children: ServeChild[];
  /** Starts the world: the simulator on `scenario` (default: the propagation-loss story) and the fake Slack. */
  open(scenario?: string, o?: Pick<WorldOptions, 'bookmarkIntervalMs'>): Promise<void>;
  /** A replica's env: this world's Slack and Redis prefix, channel C0INCIDENT, 1 s group timers; `over` wins. */
  env(over?: Record<string, string>): Record<string, string>;
  /** `rwx serve` with `env`, ready (see startServeChild), stopped with SIGKILL after the test. */
  start(env: Record<string, string>, readyWithinMs?: number): Promise<ServeChild>;
  /** No longer stops `child` after the test (it was killed and has exited). */
  forget(child: ServeChild): void;
  /** Stops the children and the world now (afterEach does it otherwise). */
  close(): Promise<void>;
}

/** Where a ChildWorld's replicas keep their state. */
export interface WorldRedis {
  /** Read when a replica's env is made (a test's own redis-server starts inside the test). Default: REDIS_URL. */
  url?: () => string;
  /** The test's own redis-server, thrown away with its data: nothing to remove after the test. */
  own?: boolean;
}

/** A ChildWorld for the tests of this file, named `name` in its Redis prefix and its bot token. */
export function childWorld(name: string, redis: WorldRedis = {}): ChildWorld {
  let world: World | undefined;
  const children: ServeChild[] = [];
  const close = async (): Promise<void> => {
    for (const c of children.splice(0)) {
      c.process.kill('SIGKILL');
      await c.exited;
    }
    await world?.close();
    world = undefined;
  };
  afterEach(close);
  const opened = (): World => {
    if (world === undefined) throw new Error('childWorld: open() first');
    return world;
  };
  return {
    get prefix() {
      return opened().prefix;
    },
    children,
    get sim() {
      return opened().sim;
    },
    get slack() {
      return opened().slack;
    },
    async open(scenario, o = {}) {
      world = await openWorld({
        name: `fault-${name}`,
        ...(scenario ? { scenario } : {}),
        ...o,
        ...(redis.url ? { redisUrl: redis.url } : {}),
        ownRedis: redis.own ?? false,
      });
    },
    env: (over = {}) => opened().env(over),
    async start(env, readyWithinMs) {
      const c = await startServeChild(opened().sim.kubeconfigPath, env, readyWithinMs);
      children.push(c);
      return c;
    },
    forget(child) {
      const i = children.indexOf(child);
      if (i >= 0) children.splice(i, 1);
    },
    close,
  };
}
