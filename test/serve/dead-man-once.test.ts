// The dead-man notice is posted once even when its post is interrupted (src/serve/dead-man.ts): `rwx serve` against
// the simulator, real Redis and the fake Slack. A post whose answer is lost, and a replica that died between Slack's
// answer and storing the ts, leave a claim in Redis; the next attempt finds the notice by its message metadata
// instead of posting a second one, and the "sees again" reply goes in its thread. Slack unreachable when the
// notice is due delays it, once.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '@rwx/kube-sim';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { connect } from '../../src/kube/index.js';
import type { RunningServe } from '../../src/serve/app.js';
import { CLAIM_STALE_MS, noticeKey } from '../../src/serve/dead-man.js';
import { runServe } from '../../src/serve/main.js';
import { incidentMetadata } from '../../src/slack/api.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { until } from '../support/until.js';
import { REDIS_URL, openWorld } from '../support/world.js';
import { memoryLogger } from './harness.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const NOTICE = /^:warning: The bot cannot see the cluster \*prod-eu-1\* since <!date\^\d+\^/;
const SEEN = /^:white_check_mark: The bot sees the cluster \*prod-eu-1\* again at <!date\^\d+\^/;

interface World {
  clock: ManualClock;
  sim: Simulator;
  slack: FakeSlack;
  prefix: string;
  /** A replica (runServe) with no incident posts (group_wait 1h): every chat.postMessage is the dead-man's. */
  replica(): Promise<RunningServe>;
  notices(): { ts: string; text: string }[];
}

async function world(): Promise<World> {
  const clock = new ManualClock(Date.parse('2026-11-30T09:15:00Z'));
  const timers = { groupWait: '1h', groupInterval: '5m' };
  const opened = await openWorld({ name: 'test-deadonce', scenario: 'scenarios/node-fault.yaml', clock, timers });
  cleanups.push(() => opened.close());
  const { sim, slack, prefix } = opened;
  const config = loadConfig({
    env: opened.env({
      SLACK_BOT_TOKEN: 'xoxb-test-token',
      RWX_CLUSTER_NAME: 'prod-eu-1',
      RWX_BLIND_AFTER: '30s',
      // The clock jumps past the default idle limit (75s) while blind; a watch reopened after such a jump is proven
      // only by a bookmark, which a clock moved without the simulator never brings.
      RWX_WATCH_IDLE_TIMEOUT: '5m',
    }),
  });
  return {
    clock,
    sim,
    slack,
    prefix,
    async replica() {
      const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
      const serve = await runServe(config, memoryLogger().log, {
        source: new KubeClusterSource(conn),
        bolt: false,
        parts: { clock, tickMs: 0, port: undefined, reflector: { backoffInitialMs: 50 } },
      });
      cleanups.push(() => serve.stop());
      await serve.watcher.waitSynced(10_000);
      return serve;
    },
    notices: () => slack.roots('C0INCIDENT').filter((m) => NOTICE.test(m.text)),
  };
}

async function blind(w: World, serve: RunningServe): Promise<void> {
  w.sim.faults.down('refused');
  await until(() => !serve.watcher.reachable(), 'the API seen down');
}

async function seeing(w: World, serve: RunningServe): Promise<void> {
  w.sim.faults.up();
  await until(() => serve.watcher.current(), 'the watches current again');
}

/** One replica, blind (the API refused) for longer than RWX_BLIND_AFTER (30 s): its next tick posts the notice. */
async function blindPastThreshold(): Promise<{ w: World; serve: RunningServe }> {
  const w = await world();
  const serve = await w.replica();
  await serve.tick();
  await blind(w, serve);
  await serve.tick();
  w.clock.advance(31_000);
  return { w, serve };
}

describe('dead-man notice, interrupted', () => {
  it('a notice whose answer was lost is found again, not posted twice', async () => {
    const { w, serve } = await blindPastThreshold();
    w.slack.failAfterHandling('chat.postMessage'); // in Slack, but the bot hears a 500
    await serve.tick();
    expect(w.notices()).toHaveLength(1);
    await serve.tick(); // this replica takes its own claim over at once, and looks the notice up
    await serve.tick();
    expect(w.notices()).toHaveLength(1);
    expect(w.slack.callsOf('chat.postMessage')).toHaveLength(1);

    await seeing(w, serve);
    await serve.tick();
    expect(w.slack.replies(w.notices()[0]!.ts).map((m) => m.text)).toEqual([expect.stringMatching(SEEN)]);
  });

  it('Slack unreachable when the notice is due: tried every tick, posted once when Slack answers', async () => {
    const { w, serve } = await blindPastThreshold();
    const back = w.slack.outage(1_500); // every Web API call answered 503 until then
    await serve.tick();
    await serve.tick(); // its own claim, taken over: the look-up fails too
    expect(w.slack.roots('C0INCIDENT')).toEqual([]);
    await until(() => Date.now() > back, 'Slack answering again');
    await serve.tick();
    await serve.tick();
    expect(w.notices()).toHaveLength(1);
    expect(w.slack.callsOf('chat.postMessage').filter((c) => c.handled)).toHaveLength(1);

    await seeing(w, serve);
    await serve.tick();
    expect(w.slack.replies(w.notices()[0]!.ts).map((m) => m.text)).toEqual([expect.stringMatching(SEEN)]);
  });

  it('a replica that died between the post and storing its ts: a restart adopts the notice, then answers it', async () => {
    const w = await world();
    // What the dead replica left: its notice in the channel, its claim in Redis (claimed 40 s ago, blind since 80 s).
    const since = w.clock.now() - 80_000;
    const dead = createWebSlackApi({ token: 'xoxb-test-token', slackApiUrl: w.slack.apiUrl });
    const text =
      ':warning: The bot cannot see the cluster *prod-eu-1* since <!date^1^{time}|x> (posted by the dead one)';
    const metadata = incidentMetadata(noticeKey(w.prefix, since));
    await dead.postMessage({ channel: 'C0INCIDENT', text, metadata });
    const redis = new Redis(REDIS_URL);
    cleanups.push(() => redis.quit());
    await redis.set(`${w.prefix}:blind`, `posting:${w.clock.now() - 40_000}:${since}`);

    const serve = await w.replica();
    await blind(w, serve);
    await serve.tick();
    w.clock.advance(31_000);
    await serve.tick(); // blind long enough, but the claim is another's and fresh: its post may be on the way
    expect(w.notices()).toHaveLength(1);
    w.clock.advance(CLAIM_STALE_MS);
    await serve.tick(); // stale now: taken over, and the notice found by its metadata
    await serve.tick();
    expect(w.notices()).toHaveLength(1);
    const [notice] = w.notices();
    expect(await redis.get(`${w.prefix}:blind`)).toBe(notice!.ts);

    await seeing(w, serve);
    await serve.tick();
    expect(w.slack.replies(notice!.ts).map((m) => m.text)).toEqual([expect.stringMatching(SEEN)]);
    expect(w.notices()).toHaveLength(1);
  });

  it('a replica that died mid-post and a restart that sees: the found notice gets its "sees again" reply', async () => {
    const w = await world();
    const since = w.clock.now() - 80_000;
    const dead = createWebSlackApi({ token: 'xoxb-test-token', slackApiUrl: w.slack.apiUrl });
    const text =
      ':warning: The bot cannot see the cluster *prod-eu-1* since <!date^1^{time}|x> (posted by the dead one)';
    const { ts } = await dead.postMessage({
      channel: 'C0INCIDENT',
      text,
      metadata: incidentMetadata(noticeKey(w.prefix, since)),
    });
    const redis = new Redis(REDIS_URL);
    cleanups.push(() => redis.quit());
    await redis.set(`${w.prefix}:blind`, `posting:${w.clock.now() - CLAIM_STALE_MS}:${since}`);

    const serve = await w.replica();
    await serve.tick();
    expect(w.slack.replies(ts).map((m) => m.text)).toEqual([expect.stringMatching(SEEN)]);
    expect(await redis.get(`${w.prefix}:blind`)).toBeNull();
    expect(w.notices()).toHaveLength(1);
  });
});
