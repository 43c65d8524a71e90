// A Sentinel failover under a running `rwx serve` (the compiled CLI, REDIS_SENTINELS): a primary, two replicas and
// three sentinels of the test's own on loopback; the primary is killed (SIGKILL) in the middle of an incident and
// the sentinels promote a replica. One root, each reply once, the change made during the failover shown after the
// one made before it, ready again within 10 s of the promotion. With lost writes (replication cut when the bot
// starts, so the promoted replica never saw the incident's root): the thread is found again from Slack by its
// metadata, as after Redis back empty (redis-empty.test.ts): no second root, no reply twice, and the root redrawn
// with the change made during the failover (told in the root, not as a reply: the record that knew the pod stuck
// was lost).
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { BEFORE, DURING, haIncident, type HaIncident } from './ha-incident.js';
import { redisServerTool } from './own-redis.js';
import { ask, sentinelSet, type SentinelSet } from './redis-ha.js';
import { expectOneThread } from './thread.js';

let set: SentinelSet | undefined;
let inc: HaIncident | undefined;
afterEach(async () => {
  await inc?.close();
  await set?.stop();
  inc = set = undefined;
});

/** Whether any incident record on the Redis at `port` names the thread `ts`. */
async function threadKnownTo(port: number, prefix: string, ts: string): Promise<boolean> {
  const keys = (await ask(port, ['KEYS', `${prefix}:incident:*`])) as string[];
  for (const k of keys) if (JSON.stringify(await ask(port, ['HGETALL', k])).includes(ts)) return true;
  return false;
}

/** One failover mid-incident; `lostWrites`: the replicas stop replicating as the bot starts. */
async function failover(lostWrites: boolean): Promise<void> {
  redisServerTool.check();
  // down-after 2 s with lost writes: a replica whose link is down longer than ten times it is not promoted, and on
  // a loaded machine the root and the first change may take seconds.
  const s = (set = await sentinelSet('rwxm', lostWrites ? 2000 : 500));
  const i = (inc = await haIncident(s.env, lostWrites ? () => s.cutReplication() : undefined));
  if (lostWrites)
    expect(await threadKnownTo(s.replicas[0]!.port, i.prefix, i.root.ts)).toBe(false); // truly lost
  else {
    await ask(s.primary.port, ['SET', 'rwx-fault-sync', '1']);
    expect(await ask(s.primary.port, ['WAIT', '2', '5000'])).toBe(2); // the replicas have every write
  }
  const editsBefore = i.edits().length;
  const { at } = await s.watchSwitch();
  await s.primary.kill();
  const killed = Date.now();
  i.recover(DURING);
  if (lostWrites) await s.restoreReplication();
  const promoted = await at;
  expect(await s.primaryPort()).not.toBe(s.primary.port);
  await until(async () => (await i.child.status('/readyz')) === 200, 'ready again', 20_000);
  const readyAfter = Date.now() - promoted;
  // Without lost writes the record knew the pod stuck: its recovery is a reply. With them, the record is gone and
  // the thread found again reads the cluster as it is now: the root, found by its metadata, is redrawn to show it.
  const shown = lostWrites
    ? () =>
        i
          .edits()
          .slice(editsBefore)
          .some((t) => /\b2 of 28 nodes\b/.test(t))
    : () => i.told(DURING) >= 0;
  await until(shown, 'the change during the failover', 20_000);
  const shownAfter = Date.now() - promoted;
  console.log(
    `sentinel failover${lostWrites ? ' with lost writes' : ''}: promoted ${promoted - killed} ms after the kill; ` +
      `ready ${readyAfter} ms and the change shown ${shownAfter} ms after the promotion`,
  );
  expect(readyAfter).toBeLessThan(10_000);
  expect(shownAfter).toBeLessThan(10_000);
  // In order, each once: the change before the failover, then the one during it.
  if (!lostWrites) expect(i.told(BEFORE)).toBeLessThan(i.told(DURING));
  else expect(i.slack.callsOf('conversations.history').length).toBeGreaterThan(1); // looked for by its metadata
  expectOneThread(i.slack, i.root.ts, { noInventedChange: true });
  expect(i.child.process.exitCode).toBeNull();
  expect(i.child.lines.join('\n')).toMatch(/redis connection back/);
}

/**
 * The failover loses the record write of the last change reply (replication cut after the reply's record was
 * replicated up to the change before it): the step that told it runs again on the promoted replica, and the reply,
 * looked up by its id (src/serve/reply-doubt.ts), is not posted twice.
 */
async function lostReplyWrite(): Promise<void> {
  redisServerTool.check();
  const s = (set = await sentinelSet('rwxm', 2000));
  const i = (inc = await haIncident(s.env));
  await ask(s.primary.port, ['SET', 'rwx-fault-sync', '1']);
  expect(await ask(s.primary.port, ['WAIT', '2', '5000'])).toBe(2);
  await s.cutReplication();
  i.recover(DURING);
  await until(() => i.told(DURING) >= 0, 'the change told before the failover', 20_000);
  const lookups = () => i.slack.callsOf('conversations.replies').length;
  const lookupsBefore = lookups();
  const evidence = new Set(['evidence', 'evidence-rest']);
  const told = () =>
    i.slack.replies(i.root.ts).filter((r) => !evidence.has(String(r.metadata?.event_payload.reply))).length;
  const toldBefore = told();
  const { at } = await s.watchSwitch();
  await s.primary.kill();
  await s.restoreReplication();
  const promoted = await at;
  // The step runs again from the promoted replica's record: it looks the reply up (or, without the look-up, posts
  // it a second time, which the checks below refuse).
  await until(() => lookups() > lookupsBefore || told() > toldBefore, 'the step run again', 20_000);
  console.log(`sentinel failover losing a reply's record: step run again ${Date.now() - promoted} ms after`);
  expectOneThread(i.slack, i.root.ts, { noInventedChange: true });
  expect(i.told(BEFORE)).toBeLessThan(i.told(DURING));
}

describe.runIf(redisServerTool.run)(`Redis Sentinel failover${redisServerTool.note}`, () => {
  it('the primary killed mid-incident: one thread, each change once and in order, ready within 10 s', async () => {
    await failover(false);
  }, 120_000);

  it('with the last writes lost: the thread found again from Slack, each change once', async () => {
    await failover(true);
  }, 120_000);

  it("with the last reply's record write lost: the reply is not posted twice", async () => {
    await lostReplyWrite();
  }, 120_000);
});
