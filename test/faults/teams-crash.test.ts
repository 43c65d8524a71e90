// Per-team routing under two replicas and kill -9: the team channel's root is posted by whichever replica holds
// its record's lock; that replica is killed while Slack holds the post (stored, never answered) and restarts in
// place. Still one root per channel, the team root adopted (found by its metadata), and each reply once, the
// incident thread's link to the team root included. Real processes (the compiled CLI), the simulator in real time,
// the fake Slack, real Redis.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { lockOwner } from '../../src/store/incident-store.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { REDIS_URL } from '../serve/harness.js';
import { until } from '../support/until.js';
import { childWorld } from './child-world.js';

const KEY = 'rollout/kube-system/ebs-csi-node@2';
const TEAM = `${KEY}#C0SEARCH`;
const w = childWorld('teams');
const redis = new Redis(REDIS_URL);
afterEach(() => redis.quit());

const replyIds = (s: FakeSlack, ts: string): string[] =>
  s.replies(ts).map((r) => `${String(r.metadata?.event_payload.key)} ${String(r.metadata?.event_payload.reply)}`);

describe('kill -9 of the replica posting a team root', () => {
  it('two replicas, the poster killed mid-post and restarted: one root per channel, each reply once', async () => {
    await w.open();
    const { slack } = w;
    // The search team's root reaches Slack, and its answer never comes back.
    slack.hang('chat.postMessage', 1, { handled: true, channel: 'C0SEARCH' });
    const env = (replica: string) =>
      w.env({ RWX_TEAM_CHANNELS: 'platform=C0PLAT,search=C0SEARCH', RWX_REPLICA_ID: replica });
    const started = await Promise.all(['rwx-a', 'rwx-b'].map((r) => w.start(env(r))));
    await until(() => slack.answered('hung').length === 1, 'the hung team root', 30_000);
    // Whoever holds the team record's lock is posting it: kill that one, right there.
    const owner = lockOwner((await redis.get(`${w.prefix}:team:lock:${TEAM}`)) ?? '') ?? '';
    const replica = owner.split('#')[0]!;
    expect(['rwx-a', 'rwx-b']).toContain(replica);
    const victim = started[replica === 'rwx-a' ? 0 : 1]!;
    victim.process.kill('SIGKILL');
    await victim.exited;
    w.forget(victim);
    const restarted = await w.start(env(replica));
    const ready = Date.now();

    const root = (c: string) => slack.roots(c)[0];
    await until(
      () =>
        ['C0INCIDENT', 'C0PLAT', 'C0SEARCH'].every((c) => root(c) && replyIds(slack, root(c)!.ts).length >= 1) &&
        replyIds(slack, root('C0INCIDENT')!.ts).includes(`${TEAM} team-root`),
      'every thread, and the link to the search root',
      30_000,
    );
    console.log(
      `after kill -9 mid team-root post: the team thread whole ${Date.now() - ready} ms after the restart was ready`,
    );
    expect(restarted.lines.join('\n')).toMatch(/resumed work interrupted by a crash/);
    for (const c of ['C0INCIDENT', 'C0PLAT', 'C0SEARCH']) {
      expect(slack.roots(c)).toHaveLength(1);
      const ids = replyIds(slack, root(c)!.ts);
      expect(new Set(ids).size).toBe(ids.length);
    }
    // The ghost the killed replica left is the one root there (adopted, not posted again), and the link points at it.
    const link = slack.replies(root('C0INCIDENT')!.ts).find((r) => r.metadata?.event_payload.key === TEAM);
    expect(link?.text).toContain(`p${root('C0SEARCH')!.ts.replace('.', '')}`);
  }, 90_000); // three process starts: on a loaded machine each takes up to 20 s
});
