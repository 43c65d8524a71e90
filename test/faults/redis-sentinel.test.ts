// A Sentinel failover under a running `rwx serve` (the compiled CLI, REDIS_SENTINELS): a primary, two replicas and
// three sentinels of the test's own on loopback; the primary is killed (SIGKILL) in the middle of an incident and
// the sentinels promote a replica. One root, each reply once, the change made during the failover shown after the
// one made before it, ready again within 10 s of the promotion. With lost writes (replication cut when the bot
// starts, so the promoted replica never saw the incident's root): the thread is found again from Slack by its
// metadata, as after Redis back empty (redis-empty.test.ts): no second root, no reply twice, and the root redrawn
// with the change made during the failover (told in the root, not as a reply: the record that knew the pod stuck
// was lost).
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { until } from '../serve/harness.js';
import { startServeChild, type ServeChild } from './child.js';
import { redisServerTool } from './own-redis.js';
import { ask, sentinelSet, type SentinelSet } from './redis-ha.js';
import { expectOneThread } from './thread.js';

let set: SentinelSet | undefined;
let sim: Simulator | undefined;
let slack: FakeSlack | undefined;
let child: ServeChild | undefined;
afterEach(async () => {
  child?.process.kill('SIGKILL');
  await child?.exited;
  await slack?.close();
  await sim?.stop();
  await set?.stop();
  child = slack = sim = set = undefined;
});

const told = (s: FakeSlack, ts: string, pod: string): number =>
  s.replies(ts).findIndex((r) => JSON.stringify(r.blocks).includes(pod) && /recovered/.test(JSON.stringify(r.blocks)));

/** Whether any incident record on the Redis at `port` names the thread `ts`. */
async function threadKnownTo(port: number, prefix: string, ts: string): Promise<boolean> {
  const keys = (await ask(port, ['KEYS', `${prefix}:incident:*`])) as string[];
  for (const k of keys) if (JSON.stringify(await ask(port, ['HGETALL', k])).includes(ts)) return true;
  return false;
}

/** One failover mid-incident; `lostWrites`: the replicas stop replicating as the bot starts. */
async function failover(lostWrites: boolean): Promise<void> {
  redisServerTool.check();
  // down-after 1 s with lost writes: a replica whose link is down longer than ten times it is not promoted.
  set = await sentinelSet('rwxm', lostWrites ? 1000 : 500);
  sim = await startSimulator({ scenario: 'scenarios/propagation-loss.yaml' });
  slack = await startFakeSlack();
  const prefix = `rwx-fault-sentinel-${randomBytes(4).toString('hex')}`;
  child = await startServeChild(sim.kubeconfigPath, {
    ...set.env,
    SLACK_BOT_TOKEN: 'xoxb-sentinel',
    SLACK_SIGNING_SECRET: 'secret',
    SLACK_CHANNEL: 'C0INCIDENT',
    SLACK_API_URL: slack.apiUrl,
    RWX_REDIS_PREFIX: prefix,
    RWX_GROUP_WAIT: '1s',
    RWX_GROUP_INTERVAL: '1s',
  });
  if (lostWrites) await set.cutReplication();
  const s = slack;
  await until(() => s.roots().length === 1 && s.replies(s.roots()[0]!.ts).length >= 1, 'the root', 20_000);
  const root = s.roots()[0]!;
  const recover = (namespace: string, name: string) =>
    sim!.apply({ set: [{ kind: 'Pod', namespace, name, fields: { 'status.phase': 'Running' } }] });
  // A change told before the failover; with replication up, the replicas have it before the kill.
  recover('platform', 'postgres-2');
  await until(() => told(s, root.ts, 'platform/postgres-2') >= 0, 'the first change', 20_000);
  if (!lostWrites) {
    await ask(set.primary.port, ['SET', 'rwx-fault-sync', '1']);
    expect(await ask(set.primary.port, ['WAIT', '2', '5000'])).toBe(2);
  }
  const edits = (): string[] =>
    s.callsOf('chat.update').flatMap((c) => (c.args.ts === root.ts && c.handled ? [String(c.args.text)] : []));
  const editsBefore = edits().length;
  if (lostWrites) expect(await threadKnownTo(set.replicas[0]!.port, prefix, root.ts)).toBe(false); // truly lost
  const { at } = await set.watchSwitch();
  await set.primary.kill();
  const killed = Date.now();
  recover('search', 'search-7c9d8f6b5-kccvl'); // during the failover
  if (lostWrites) await set.restoreReplication();
  const promoted = await at;
  expect(await set.primaryPort()).not.toBe(set.primary.port);
  await until(async () => (await child!.status('/readyz')) === 200, 'ready again', 20_000);
  const readyAfter = Date.now() - promoted;
  // Without lost writes the record knew the pod stuck: its recovery is a reply. With them, the record is gone and
  // the thread found again reads the cluster as it is now: the root, found by its metadata, is redrawn to show it.
  const shown = lostWrites
    ? () =>
        edits()
          .slice(editsBefore)
          .some((t) => /\b2 of 28 nodes\b/.test(t))
    : () => told(s, root.ts, 'search/search-7c9d8f6b5-kccvl') >= 0;
  await until(shown, 'the change during the failover', 20_000);
  const shownAfter = Date.now() - promoted;
  console.log(
    `sentinel failover${lostWrites ? ' with lost writes' : ''}: promoted ${promoted - killed} ms after the kill; ` +
      `ready ${readyAfter} ms and the change shown ${shownAfter} ms after the promotion`,
  );
  expect(readyAfter).toBeLessThan(10_000);
  expect(shownAfter).toBeLessThan(10_000);
  // In order, each once: the change before the failover, then the one during it.
  if (!lostWrites)
    expect(told(s, root.ts, 'platform/postgres-2')).toBeLessThan(told(s, root.ts, 'search/search-7c9d8f6b5-kccvl'));
  else expect(s.callsOf('conversations.history').length).toBeGreaterThan(1); // looked for by its metadata
  expectOneThread(s, root.ts, { noInventedChange: true });
  expect(child.process.exitCode).toBeNull();
  expect(child.lines.join('\n')).toMatch(/redis connection back/);
}

describe.runIf(redisServerTool.run)(`Redis Sentinel failover${redisServerTool.note}`, () => {
  it('the primary killed mid-incident: one thread, each change once and in order, ready within 10 s', async () => {
    await failover(false);
  }, 120_000);

  it('with the last writes lost: the thread found again from Slack, each change once', async () => {
    await failover(true);
  }, 120_000);
});
