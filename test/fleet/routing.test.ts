// §1 routing across a fleet: three simulated clusters, one Redis, the fake Slack and a fake Socket Mode server
// that hands each command and click to a random connected bot. Every command is answered by the cluster it is
// about, whichever bot received it; a name in two clusters is a question; a killed cluster is reported, first as
// "has not answered" (its last heartbeat is still fresh) and, a minute on, as silent in /rwx status.
import { parseScenario } from '@rwx/kube-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/render/slack-blocks.js';
import { RedisIncidentStore } from '../../src/store/redis-store.js';
import { fleetKeys } from '../../src/fleet/keys.js';
import { ACTION_QUEUE } from '../../src/fleet/actions.js';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { REDIS_URL } from '../serve/harness.js';
import { until } from '../support/until.js';
import { scenarioPath } from '../support/sim.js';
import { seeded } from '../support/fake-socket-mode.js';
import { click, command, startFleet, type Fleet } from './harness.js';

const EU_NODES = parseScenario(
  {
    name: 'eu',
    objects: ['eu-node-1', 'eu-node-2', 'eu-node-3'].map((name) => ({
      kind: 'Node',
      metadata: { name, creationTimestamp: '-30d' },
    })),
  },
  'inline eu cluster',
);
const ROLLOUT = 'staging-1:rollout/kube-system/ebs-csi-node@2';

let fleet: Fleet;
let redis: Redis;
let n = 0;

/** Sends `/rwx text` (to a random bot unless `to`), and returns its ack and the one answer on its response_url. */
async function ask(text: string, o: { to?: number; channel?: string } = {}) {
  const rid = `r${++n}`;
  const fields: Record<string, string> = o.channel ? { channel_id: o.channel, channel_name: 'eu-team' } : {};
  const ack = await fleet.socket.send('slash_commands', command(fleet.slack, text, rid, fields), {
    ...(o.to !== undefined ? { to: o.to } : {}),
  });
  await until(() => (fleet.slack.responses.get(rid)?.length ?? 0) > 0, `the answer to ${text}`);
  const [answer] = fleet.slack.responses.get(rid) as { text: string }[];
  return { ack, text: answer?.text ?? '', receivedBy: ack.connection };
}

beforeAll(async () => {
  fleet = await startFleet(
    [
      {
        name: 'staging-1',
        scenario: scenarioPath('propagation-loss'),
        env: { RWX_CHANNEL_CLUSTERS: 'C0EU=prod-eu-1' },
      },
      { name: 'prod-eu-1', scenario: EU_NODES, env: { RWX_CHANNEL_CLUSTERS: 'C0EU=prod-eu-1' } },
      { name: 'prod-us-1', scenario: scenarioPath('node-fault'), env: { RWX_CHANNEL_CLUSTERS: 'C0EU=prod-eu-1' } },
    ],
    { random: seeded(14) },
  );
  redis = new Redis(REDIS_URL);
  // Past group_wait: the staging rollout and the prod-us node fault get their threads.
  await fleet.advance(1_000);
  await until(() => fleet.slack.roots().some((m) => m.metadata?.event_payload.key === ROLLOUT), 'the staging root');
}, 60_000);

afterAll(async () => {
  await redis?.quit();
  await fleet?.close();
});

describe('routing', () => {
  it('a command naming its cluster is answered by that cluster, whichever bot receives it', async () => {
    for (const to of [1, 2, 3]) {
      const a = await ask('drain node-19 @staging-1', { to });
      expect(a.receivedBy).toBe(to);
      expect(a.text).toMatch(/^From cluster \*staging-1\*/);
      expect(a.text).toContain('BLOCK');
    }
  });

  it('without a name, the only cluster that has the node answers', async () => {
    for (const to of [1, 3]) {
      const a = await ask('drain eu-node-2', { to });
      expect(a.text).toMatch(/^From cluster \*prod-eu-1\*/);
      expect(a.text).toContain('OK');
    }
  });

  it('a node two clusters have is a question listing them', async () => {
    const a = await ask('drain node-07');
    expect(a.text).toContain('Which cluster?');
    expect(a.text).toContain('`prod-us-1`');
    expect(a.text).toContain('`staging-1`');
    expect(a.text).not.toContain('`prod-eu-1`');
    expect(a.text).toContain('/rwx drain node-07 @prod-us-1');
  });

  it('the channel default cluster answers a command that names none', async () => {
    const a = await ask('drain eu-node-1', { channel: 'C0EU' });
    expect(a.text).toMatch(/^From cluster \*prod-eu-1\*/);
  });

  it('an unknown cluster or a node no cluster has: said so, nothing run', async () => {
    expect((await ask('drain node-19 @prod-ap-9')).text).toContain('No cluster `prod-ap-9` in this fleet');
    expect((await ask('drain ghost-node')).text).toContain('No cluster of the fleet has node `ghost-node`');
  });

  it('status lists every cluster, grouped, with its open incidents', async () => {
    const a = await ask('status');
    const lines = a.text.split('\n');
    const at = (name: string) => lines.findIndex((l) => l.startsWith(`*${name}*`));
    expect(at('prod-eu-1')).toBeGreaterThan(0);
    expect(at('prod-us-1')).toBeGreaterThan(at('prod-eu-1'));
    expect(at('staging-1')).toBeGreaterThan(at('prod-us-1'));
    expect(lines[at('prod-eu-1')]).toContain('answering · no open incidents');
    expect(lines.slice(at('staging-1')).join('\n')).toContain('ebs-csi-node');
  });

  it('a button of staging-1 clicked on another bot acts on staging-1 (its value carries the cluster)', async () => {
    const root = fleet.slack.roots().find((m) => m.metadata?.event_payload.key === ROLLOUT)!;
    const ack = await fleet.socket.send('interactive', click(fleet.slack, ACTION_IDS.ack, ROLLOUT, 'b1'), { to: 2 });
    expect(ack.connection).toBe(2);
    const store = new RedisIncidentStore(redis, fleetKeys(fleet.base).cluster('staging-1'));
    await until(async () => (await store.get(ROLLOUT))?.buttons.ack?.user === 'U0ALICE', 'the ack on staging-1');
    // staging-1's bot edited its root to show who acknowledged it; no other cluster holds a record of it.
    await until(() => JSON.stringify(fleet.slack.roots().find((m) => m.ts === root.ts)).includes('U0ALICE'), 'root');
    const eu = new RedisIncidentStore(redis, fleetKeys(fleet.base).cluster('prod-eu-1'));
    expect(await eu.get(ROLLOUT)).toBeUndefined();
  });
});

describe('a burst of commands at random bots', () => {
  it('every one is answered by the cluster it names or whose node it names', async () => {
    const asks = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? { text: 'drain node-19 @staging-1', cluster: 'staging-1' }
        : i % 3 === 1
          ? { text: `drain eu-node-${(i % 3) + 1}`, cluster: 'prod-eu-1' }
          : { text: 'drain node-07 @prod-us-1', cluster: 'prod-us-1' },
    );
    const started = Date.now();
    const timed = await Promise.all(
      asks.map(async (a) => {
        const t0 = Date.now();
        const answer = await ask(a.text);
        return { ...a, answer, ms: Date.now() - t0 };
      }),
    );
    for (const t of timed) expect(t.answer.text).toMatch(new RegExp(`^From cluster \\*${t.cluster}\\*`));
    // Not every command stayed on the bot that received it: routing did the work.
    expect(
      timed.some((t) => t.answer.receivedBy !== [1, 2, 3][['staging-1', 'prod-eu-1', 'prod-us-1'].indexOf(t.cluster)]),
    ).toBe(true);
    const ms = timed.map((t) => t.ms).sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))];
    console.log(
      `fleet routing: ${ms.length} commands at random bots in ${Date.now() - started} ms; ` +
        `receive -> answer p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${ms[ms.length - 1]} ms`,
    );
  });
});

describe('a cluster that dies', () => {
  it('a command routed to it right after is withdrawn and answered, not left waiting', async () => {
    await fleet.kill('prod-us-1');
    const a = await ask('drain node-07 @prod-us-1');
    expect(a.text).toMatch(/prod-us-1 has not answered in \d+s: its bot is down or cannot reach Redis/);
    expect(a.text).toContain('nothing was run');
  });

  it('a click on its incident right after is withdrawn and the clicker told, not left waiting', async () => {
    const keys = fleet.slack.roots().map((m) => String(m.metadata?.event_payload.key ?? ''));
    const key = keys.find((k) => k.startsWith('prod-us-1:')) ?? '';
    expect(key).not.toBe('');
    const ack = await fleet.socket.send('interactive', click(fleet.slack, ACTION_IDS.ack, key, 'b-dead'), { to: 2 });
    expect(ack.connection).toBe(2);
    await until(() => (fleet.slack.responses.get('b-dead')?.length ?? 0) > 0, 'the answer to the click');
    const [answer] = fleet.slack.responses.get('b-dead') as { text: string }[];
    expect(answer?.text).toMatch(/^prod-us-1 has not answered in \ds: its bot is down or cannot reach Redis\./);
    expect(answer?.text).toContain('The click was withdrawn; nothing was changed.');
    // Withdrawn: nothing waits on prod-us-1's action queue to be acted on when its bot comes back.
    const queue = new Queue(ACTION_QUEUE, { connection: redis, prefix: fleetKeys(fleet.base).cluster('prod-us-1') });
    expect(await queue.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 0, active: 0, delayed: 0 });
    await queue.close();
  });

  it('a minute later it is silent: in /rwx status, and in the answer to a command routed to it', async () => {
    await fleet.advance(61_000);
    await new Promise((r) => setTimeout(r, 300)); // the live bots' next heartbeats (every 100 ms)
    const status = await ask('status');
    expect(status.text).toMatch(/\*prod-us-1\* · :red_circle: silent for 6\ds: its bot is down or cannot reach Redis/);
    expect(status.text).toMatch(/\*staging-1\* · :large_green_circle: answering/);
    const a = await ask('triage @prod-us-1');
    expect(a.text).toMatch(/prod-us-1 has not answered in 6\ds: its bot is down or cannot reach Redis/);
    expect(a.text).toContain('Nothing was run there');
  });
});
