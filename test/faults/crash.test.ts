// kill -9 in the middle of a Slack call, then a restart of the same replica: the new process resumes the work its
// predecessor was killed in at start-up (resume.ts) instead of waiting for the lock TTL and BullMQ's stalled sweep,
// so changes appear within max(group interval, 10 s). One root, no reply twice. Real processes (the compiled CLI),
// the simulator in real time, the fake Slack, real Redis.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { REDIS_URL, cleanRedis, until } from '../serve/harness.js';
import { startServeChild, type ServeChild } from './child.js';

const KEY = 'rollout/kube-system/ebs-csi-node@2';
let sim: Simulator | undefined;
let slack: FakeSlack | undefined;
const children: ServeChild[] = [];
const prefix = `rwx-fault-crash-${randomBytes(4).toString('hex')}`;
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.process.kill('SIGKILL');
    await c.exited;
  }
  await slack?.close();
  await sim?.stop();
  await cleanRedis(prefix);
});

const recovered = (s: FakeSlack, ts: string, pod: string): boolean =>
  s
    .replies(ts)
    .some((r) => JSON.stringify(r.blocks).includes(pod) && /recovered on its own/.test(JSON.stringify(r.blocks)));

describe('kill -9 during a Slack call', () => {
  it('the restarted replica resumes at once: the change shows within 10 s, one root, no reply twice', async () => {
    sim = await startSimulator({ scenario: 'scenarios/propagation-loss.yaml' });
    slack = await startFakeSlack();
    const env = {
      SLACK_BOT_TOKEN: 'xoxb-crash-test',
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_CHANNEL: 'C0INCIDENT',
      SLACK_API_URL: slack.apiUrl,
      REDIS_URL,
      RWX_REDIS_PREFIX: prefix,
      RWX_GROUP_WAIT: '1s',
      RWX_GROUP_INTERVAL: '1s',
      RWX_REPLICA_ID: 'rwx-7d9f-abcde', // the pod: the same across a restart in place
    };
    const first = await startServeChild(sim.kubeconfigPath, env);
    children.push(first);
    await until(
      () => slack!.roots().length === 1 && slack!.replies(slack!.roots()[0]!.ts).length >= 1,
      'root and evidence',
    );
    const root = slack.roots()[0]!;
    expect(root.metadata?.event_payload.key).toBe(KEY);

    // The edit for postgres-2's recovery hangs in Slack; the process is killed right there, holding the lock.
    slack.hang('chat.update', 1);
    sim.apply({
      set: [{ kind: 'Pod', namespace: 'platform', name: 'postgres-2', fields: { 'status.phase': 'Running' } }],
    });
    await until(() => slack!.callsOf('chat.update').length >= 1, 'the hung edit', 20_000);
    first.process.kill('SIGKILL');
    await first.exited;
    children.splice(children.indexOf(first), 1);

    const started = Date.now();
    const second = await startServeChild(sim.kubeconfigPath, env);
    children.push(second);
    const ready = Date.now();
    await until(() => recovered(slack!, root.ts, 'platform/postgres-2'), 'the interrupted change', 30_000);
    const resumedAfter = Date.now() - ready;
    // A change made after the restart is not held behind the dead process's work either.
    const changed = Date.now();
    sim.apply({
      set: [
        { kind: 'Pod', namespace: 'search', name: 'search-7c9d8f6b5-kccvl', fields: { 'status.phase': 'Running' } },
      ],
    });
    await until(() => recovered(slack!, root.ts, 'search/search-7c9d8f6b5-kccvl'), 'the next change', 30_000);
    const nextAfter = Date.now() - changed;
    console.log(
      `after kill -9 mid-post: restart to ready ${ready - started} ms; interrupted change shown ${resumedAfter} ms after ready; next change ${nextAfter} ms`,
    );
    expect(second.lines.join('\n')).toMatch(/resumed work interrupted by a crash/);
    expect(resumedAfter).toBeLessThan(10_000);
    expect(nextAfter).toBeLessThan(10_000);
    // One root; each reply once (the evidence, and each change reply by its id).
    expect(slack.roots()).toHaveLength(1);
    const ids = slack.replies(root.ts).map((r) => r.metadata?.event_payload.reply);
    expect(new Set(ids).size).toBe(ids.length);
  }, 60_000); // two process starts: on a loaded CI machine each takes up to 20 s
});
