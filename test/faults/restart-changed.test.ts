// A restart is not a change: `rwx serve` restarted with an open incident that holds a CronJob's Job pod (the
// scenario's nightly backup) posts no "Changed" reply. Findings are computed once every kind is listed, so the pod
// is credited to its CronJob as before the restart, never to its Job for a moment. Real processes (the compiled
// CLI), the simulator in real time, the fake Slack, real Redis.
import { describe, expect, it } from 'vitest';
import type { FakeSlack } from '../support/fake-slack.js';
import { until } from '../support/until.js';
import { childWorld } from './child-world.js';

const w = childWorld('restart');

const texts = (s: FakeSlack, ts: string): string[] => s.replies(ts).map((r) => JSON.stringify(r.blocks));

describe('rwx serve restarted with an open incident holding a CronJob pod', () => {
  it('posts no Changed reply', async () => {
    await w.open();
    const { slack } = w;
    const env = w.env();
    let child = await w.start(env, 60_000);
    // The first reply is enough: what follows it (the second evidence reply) is counted before the restarts.
    await until(
      () => slack.roots().length === 1 && slack.replies(slack.roots()[0]!.ts).length >= 1,
      'root and evidence',
      30_000,
    );
    const root = slack.roots()[0]!;
    // The incident holds the CronJob's pod: the root names three stuck nodes, its first reply every workload.
    expect(JSON.stringify([root.blocks, slack.replies(root.ts)[0]!.blocks])).toMatch(/nightly-backup/);
    await new Promise((r) => setTimeout(r, 3_000));
    const before = texts(slack, root.ts).length;
    for (let restart = 0; restart < 2; restart++) {
      child.process.kill('SIGTERM');
      await child.exited;
      w.forget(child);
      child = await w.start(env, 60_000);
      // Past group_interval a few times: a change would have been posted by now.
      await new Promise((r) => setTimeout(r, 5_000));
    }
    expect(
      texts(slack, root.ts)
        .slice(before)
        .filter((t) => /Changed/.test(t)),
    ).toEqual([]);
    expect(slack.roots()).toHaveLength(1);
  }, 180_000);
});
