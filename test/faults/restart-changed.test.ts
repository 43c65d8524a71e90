// A restart is not a change: `rwx serve` restarted with an open incident that holds a CronJob's Job pod (the
// nightly backup) posts no "Changed" reply. Findings are computed once every kind is listed, so the pod is
// credited to its CronJob as before the restart, never to its Job for a moment. Real processes (the compiled
// CLI), the simulator in real time, the fake Slack, real Redis.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { REDIS_URL, cleanRedis, until } from '../serve/harness.js';
import { startServeChild, type ServeChild } from './child.js';

let sim: Simulator | undefined;
let slack: FakeSlack | undefined;
let child: ServeChild | undefined;
const prefix = `rwx-fault-restart-${randomBytes(4).toString('hex')}`;
afterEach(async () => {
  child?.process.kill('SIGKILL');
  await child?.exited;
  await slack?.close();
  await sim?.stop();
  await cleanRedis(prefix);
});

const texts = (s: FakeSlack, ts: string): string[] => s.replies(ts).map((r) => JSON.stringify(r.blocks));

describe('rwx serve restarted with an open incident holding a CronJob pod', () => {
  it('posts no Changed reply', async () => {
    sim = await startSimulator({ scenario: 'scenarios/propagation-loss.yaml' });
    slack = await startFakeSlack();
    const env = {
      SLACK_BOT_TOKEN: 'xoxb-restart-test',
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_CHANNEL: 'C0INCIDENT',
      SLACK_API_URL: slack.apiUrl,
      REDIS_URL,
      RWX_REDIS_PREFIX: prefix,
      RWX_GROUP_WAIT: '1s',
      RWX_GROUP_INTERVAL: '1s',
    };
    child = await startServeChild(sim.kubeconfigPath, env, 60_000);
    await until(
      () => slack!.roots().length === 1 && slack!.replies(slack!.roots()[0]!.ts).length >= 1,
      'root and evidence',
      30_000,
    );
    const root = slack.roots()[0]!;
    expect(JSON.stringify(root.blocks)).toMatch(/nightly-backup/);
    await new Promise((r) => setTimeout(r, 3_000));
    const before = texts(slack, root.ts).length;
    for (let restart = 0; restart < 2; restart++) {
      child.process.kill('SIGTERM');
      await child.exited;
      child = await startServeChild(sim.kubeconfigPath, env, 60_000);
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
