// The world every test of the whole bot runs in: the Kubernetes API simulator, the fake Slack, a Redis key prefix of
// its own (removed afterwards), and the bot's settings pointing at them (env). What runs the bot in it is the
// test's choice: in process on the world's ManualClock (test/serve/harness.ts, test/faults/replicas.ts) or as
// child processes of the compiled CLI in real time (test/faults/child-world.ts, api.ts, redis-outage.ts,
// ha-incident.ts).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startSimulator, type Scenario, type Simulator } from '@rwx/kube-sim';
import type { ManualClock } from '../../src/domain/clock.js';
import { startFakeSlack, type FakeSlack } from './fake-slack.js';

/** The shared Redis of the test run. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The incident channel of every world. */
export const CHANNEL = 'C0INCIDENT';
/** The signing secret of the world's Slack app (HTTP mode). */
export const SIGNING_SECRET = 'secret';

/** Deletes every Redis key under a prefix. */
export async function cleanRedis(prefix: string, url = REDIS_URL): Promise<void> {
  const r = new Redis(url);
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await r.del(...keys);
  } while (cursor !== '0');
  await r.quit();
}

/** What a world is made of; only `name` is required. */
export interface WorldOptions {
  /** In the Redis prefix and the bot token, so a leftover key says which test left it. */
  name: string;
  /** Default: the propagation-loss story. */
  scenario?: string | Scenario;
  /** The simulator's clock (in-process bots share it); default the wall clock, in real time. */
  clock?: ManualClock;
  /** The fake Slack's clock (its outages and limits); default the wall clock. */
  slackNow?: () => number;
  /** The simulator's bookmark interval (sim milliseconds); default its minute. */
  bookmarkIntervalMs?: number;
  /** RWX_GROUP_WAIT and RWX_GROUP_INTERVAL; default 1s each. */
  timers?: { groupWait: string; groupInterval: string };
  /** The Redis the bots use, read when env() is made (a test's own redis-server may start later). */
  redisUrl?: () => string;
  /** The test's own redis-server, thrown away with its data: nothing to remove on close. */
  ownRedis?: boolean;
  /** false: no simulated cluster (a test of the Slack side alone); reading `sim` then throws. Default true. */
  cluster?: boolean;
}

/** One test's simulated cluster, Slack and Redis prefix. */
export interface World {
  sim: Simulator;
  slack: FakeSlack;
  prefix: string;
  /** Another simulated cluster on the world's clock (a fleet of clusters), stopped with the world. */
  addCluster(scenario: string | Scenario): Promise<Simulator>;
  /**
   * A bot's settings in this world (Slack, Redis, prefix, channel, group timers); `over` wins. No REDIS_URL when
   * `over` reaches Redis another way (REDIS_SENTINELS, REDIS_CLUSTER_NODES): the bot takes one topology only.
   */
  env(over?: Record<string, string>): Record<string, string>;
  /** Stops the fake Slack and the simulator, and removes the prefix's keys. */
  close(): Promise<void>;
}

/** Starts the simulator and the fake Slack, under a fresh Redis prefix. */
export async function openWorld(o: WorldOptions): Promise<World> {
  const clusters: Simulator[] = [];
  const addCluster = async (scenario: string | Scenario): Promise<Simulator> => {
    const sim = await startSimulator({
      scenario,
      ...(o.clock ? { clock: o.clock } : {}),
      ...(o.bookmarkIntervalMs ? { bookmarkIntervalMs: o.bookmarkIntervalMs } : {}),
    });
    clusters.push(sim);
    return sim;
  };
  if (o.cluster !== false) await addCluster(o.scenario ?? 'scenarios/propagation-loss.yaml');
  const slack = await startFakeSlack(o.slackNow ? { now: o.slackNow } : {});
  const prefix = `rwx-${o.name}-${randomBytes(4).toString('hex')}`;
  const redisUrl = o.redisUrl ?? (() => REDIS_URL);
  const timers = o.timers ?? { groupWait: '1s', groupInterval: '1s' };
  return {
    get sim(): Simulator {
      if (!clusters[0]) throw new Error(`world ${o.name} was opened without a cluster`);
      return clusters[0];
    },
    slack,
    prefix,
    addCluster,
    env: (over = {}) => ({
      SLACK_BOT_TOKEN: `xoxb-${o.name}`,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_CHANNEL: CHANNEL,
      SLACK_API_URL: slack.apiUrl,
      ...(over.REDIS_SENTINELS || over.REDIS_CLUSTER_NODES ? {} : { REDIS_URL: redisUrl() }),
      RWX_REDIS_PREFIX: prefix,
      RWX_GROUP_WAIT: timers.groupWait,
      RWX_GROUP_INTERVAL: timers.groupInterval,
      LOG_LEVEL: 'info',
      ...over,
    }),
    async close() {
      await slack.close();
      for (const sim of clusters) await sim.stop();
      if (!o.ownRedis) await cleanRedis(prefix, redisUrl());
    },
  };
}
