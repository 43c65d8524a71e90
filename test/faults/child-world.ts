// What the child-process fault tests share: the simulator, the fake Slack, the `rwx serve` children started against
// them and the Redis prefix they share, all stopped and removed after each test (childWorld registers that).
import { randomBytes } from 'node:crypto';
import { afterEach } from 'vitest';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { REDIS_URL, cleanRedis } from '../serve/harness.js';
import { startServeChild, type ServeChild } from './child.js';

/** One test's world; sim and slack exist once open() resolved. */
export interface ChildWorld {
  readonly prefix: string;
  sim: Simulator;
  slack: FakeSlack;
  /** The children still running (a test that waits for one to exit takes it out with forget). */
  readonly children: ServeChild[];
  /** Starts the simulator on `scenario` (default: the propagation-loss story) and the fake Slack. */
  open(scenario?: string): Promise<void>;
  /** A replica's env: this world's Slack and Redis prefix, channel C0INCIDENT, 1 s group timers; `over` wins. */
  env(over?: Record<string, string>): Record<string, string>;
  /** `rwx serve` with `env`, ready (see startServeChild), stopped with SIGKILL after the test. */
  start(env: Record<string, string>, readyWithinMs?: number): Promise<ServeChild>;
  /** No longer stops `child` after the test (it was killed and has exited). */
  forget(child: ServeChild): void;
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
  const redisUrl = redis.url ?? (() => REDIS_URL);
  let sim: Simulator | undefined;
  let slack: FakeSlack | undefined;
  const children: ServeChild[] = [];
  const prefix = `rwx-fault-${name}-${randomBytes(4).toString('hex')}`;
  afterEach(async () => {
    for (const c of children.splice(0)) {
      c.process.kill('SIGKILL');
      await c.exited;
    }
    await slack?.close();
    await sim?.stop();
    sim = slack = undefined;
    if (!redis.own) await cleanRedis(prefix, redisUrl());
  });
  const opened = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error('childWorld: open() first');
    return x;
  };
  return {
    prefix,
    children,
    get sim() {
      return opened(sim);
    },
    get slack() {
      return opened(slack);
    },
    async open(scenario = 'scenarios/propagation-loss.yaml') {
      sim = await startSimulator({ scenario });
      slack = await startFakeSlack();
    },
    env: (over = {}) => ({
      SLACK_BOT_TOKEN: `xoxb-${name}`,
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_CHANNEL: 'C0INCIDENT',
      SLACK_API_URL: opened(slack).apiUrl,
      REDIS_URL: redisUrl(),
      RWX_REDIS_PREFIX: prefix,
      RWX_GROUP_WAIT: '1s',
      RWX_GROUP_INTERVAL: '1s',
      ...over,
    }),
    async start(env, readyWithinMs) {
      const c = await startServeChild(opened(sim).kubeconfigPath, env, readyWithinMs);
      children.push(c);
      return c;
    },
    forget(child) {
      const i = children.indexOf(child);
      if (i >= 0) children.splice(i, 1);
    },
  };
}
