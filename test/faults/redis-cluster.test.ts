// A Redis Cluster of three primaries (each with a replica) under a running `rwx serve` (REDIS_CLUSTER_NODES): the
// primary serving the slot of the bot's hash-tagged prefix is killed (SIGKILL) in the middle of an incident, and
// its replica takes the slot over (cluster-node-timeout 1 s). One root, each reply once, the change made during the
// failover shown after the one made before it, ready again within 10 s of the takeover.
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { BEFORE, DURING, haIncident, type HaIncident } from './ha-incident.js';
import { redisServerTool } from './own-redis.js';
import { ask, clusterSet, type ClusterSet } from './redis-ha.js';
import { expectOneThread } from './thread.js';

let set: ClusterSet | undefined;
let inc: HaIncident | undefined;
afterEach(async () => {
  await inc?.close();
  await set?.stop();
  inc = set = undefined;
});

describe.runIf(redisServerTool.run)(`Redis Cluster failover${redisServerTool.note}`, () => {
  it("the primary of the bot's slot killed mid-incident: one thread, each change once and in order", async () => {
    redisServerTool.check();
    const c = (set = await clusterSet());
    const i = (inc = await haIncident(c.env));
    const slot = Number(await ask(c.nodes[0]!.port, ['CLUSTER', 'KEYSLOT', `{${i.prefix}}`]));
    const owner = await c.primaryOf(slot);
    const node = c.nodes.find((n) => n.port === owner)!;
    // The bot's records, queue and lease are all there, in that one slot.
    const keys = (await ask(owner, ['KEYS', `{${i.prefix}}:*`])) as string[];
    expect(keys.some((k) => k.includes(':incident:')) && keys.some((k) => k.includes(':notify:'))).toBe(true);
    // Every write so far on the replica too (WAIT on the primary for one replica).
    await ask(owner, ['SET', `{${i.prefix}}:sync`, '1']);
    expect(await ask(owner, ['WAIT', '1', '5000'])).toBe(1);
    await node.kill();
    const killed = Date.now();
    i.recover(DURING);
    await until(
      async () => ![0, owner].includes(await c.primaryOf(slot).catch(() => 0)),
      'the replica took over',
      30_000,
    );
    const promoted = Date.now();
    await until(async () => (await i.child.status('/readyz')) === 200, 'ready again', 20_000);
    const readyAfter = Date.now() - promoted;
    await until(() => i.told(DURING) >= 0, 'the change during the failover', 20_000);
    const shownAfter = Date.now() - promoted;
    console.log(
      `redis cluster failover: slot ${slot} taken over ${promoted - killed} ms after the kill; ` +
        `ready ${readyAfter} ms and the change shown ${shownAfter} ms after`,
    );
    expect(i.prefix).toMatch(/^rwx-fault-ha-/); // Config wrapped it: {rwx-fault-ha-...}
    expect(readyAfter).toBeLessThan(10_000);
    expect(shownAfter).toBeLessThan(10_000);
    expect(i.told(BEFORE)).toBeLessThan(i.told(DURING));
    expectOneThread(i.slack, i.root.ts, { noInventedChange: true });
    expect(i.child.process.exitCode).toBeNull();
  }, 180_000);
});
