// The rollout incident end to end: simulator over HTTP -> watch -> detect -> correlate -> BullMQ on Redis -> fake
// Slack. One root, updated in place as the rollout spreads, resolved in the thread after the rollback.
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness.js';
import { until } from '../support/until.js';

const SCENARIO = 'scenarios/propagation-loss.yaml';
const ROLLOUT_KEY = 'rollout/kube-system/ebs-csi-node@2';
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const rolloutRoots = (x: Harness) => x.slack.roots().filter((r) => r.metadata?.event_payload.key === ROLLOUT_KEY);

describe('rwx serve on the propagation-loss scenario', () => {
  it('posts exactly one root, updates it when stuck pods are added, and resolves it in the thread', async () => {
    h = await harness(SCENARIO);
    await h.start();
    await h.advance(1_000); // past group_wait (200ms) on the notifier's clock
    await until(() => h!.slack.roots().length >= 1, 'the root post');
    // At 09:15 the four symptoms are one incident: one root, naming the driver and revision.
    expect(h.slack.roots()).toHaveLength(1);
    const root = rolloutRoots(h)[0]!;
    expect(root.text).toMatch(/ebs-csi-node revision 2/);
    // No agent runs in this cluster: the root says there is no proof, claiming nothing; how to install an agent is
    // said in /rwx help and docs/agent.md, not in every root.
    const rootBlocks = JSON.stringify(root.blocks);
    expect(rootBlocks).toContain('Proof:* no agent on these nodes');
    expect(rootBlocks).not.toContain('docs/agent.md');
    expect(rootBlocks).not.toMatch(/propagation lost|visible from the host/);
    // clickhouse-1 lands on node-13 at +5m and is stuck 5m later: the root is edited, never re-posted.
    for (let m = 0; m < 11; m++) await h.advance(60_000);
    await until(() => h!.slack.callsOf('chat.update').some((c) => c.args.ts === root.ts), 'chat.update of the root');
    expect(rolloutRoots(h)).toHaveLength(1);
    // Rollback at +12m, plugin pods replaced by +21m; stuck pods start on their own; the backup completes.
    for (let m = 0; m < 20; m++) await h.advance(60_000);
    await until(() => h!.slack.replies(root.ts).some((r) => /resolved/i.test(r.text)), 'the resolution reply');
    expect(rolloutRoots(h)).toHaveLength(1);
    // The resolution speaks for every member the incident ever had, not its last state (clickhouse-1 alone):
    // the pods stuck from the start and the CronJob, whose run is under way (it takes 6 minutes).
    const reply = JSON.stringify(h.slack.replies(root.ts).find((r) => /resolved/i.test(r.text))?.blocks);
    for (const pod of [
      'platform/postgres-2',
      'search/search-7c9d8f6b5-kccvl',
      'search/search-7c9d8f6b5-khvpc',
      'data/clickhouse-1',
    ]) {
      expect(reply).toMatch(new RegExp(`\`${pod}\`[^\\\\]*recovered on its own`));
    }
    expect(reply).toContain('CronJob `data/nightly-backup` (2 scheduled runs missed');
    expect(reply).toContain('one is running now');
    // Without agents nothing is rechecked from the nodes: the person's check stays in "Before closing".
    expect(reply).toMatch(/Checked again from the nodes[^"]*proof unavailable: no rwx agent runs on node-19/);
    expect(reply).toContain('check the CSI mount of a test volume appears in the host mount namespace');
    // The resolved root summarises the whole incident: the peak, not the last partial state.
    await until(() => /Resolved/.test(JSON.stringify(rolloutRoots(h!)[0]?.blocks)), 'the resolved root');
    const resolvedRoot = JSON.stringify(rolloutRoots(h)[0]?.blocks);
    expect(resolvedRoot).toContain('At its worst: 5 stuck pods on 5 nodes, 1 CronJob with missed runs');
    expect(resolvedRoot).toContain('5 nodes: node-11, node-19, node-23, node-31, node-36');
    expect(resolvedRoot).not.toContain('1 of 2 nodes');
    // Blips in the correlation while plugin pods are replaced never became threads of their own.
    expect(h.slack.roots().map((r) => r.metadata?.event_payload.key)).toEqual([ROLLOUT_KEY]);
    // Read-only: the bot's whole run used get/list/watch (and at most access reviews), nothing that writes.
    const writes = h.sim.audit.filter(
      (a) =>
        !['get', 'list', 'watch'].includes(a.verb) &&
        !(a.verb === 'create' && a.resource === 'selfsubjectaccessreviews'),
    );
    expect(writes).toEqual([]);
    // Tokens never reach the logs.
    expect(h.lines.join('')).not.toContain('xoxb-test-token');
  });

  it('a crash at the Slack boundary mid-post and a restart leave one root', async () => {
    h = await harness(SCENARIO);
    // The post reaches Slack but the answer is lost (500 after handling), and the pipeline dies right there.
    h.slack.failAfterHandling('chat.postMessage', 1);
    const first = await h.start();
    await h.advance(1_000);
    await until(() => h!.slack.callsOf('chat.postMessage').length >= 1, 'the first post attempt');
    await first.stop();
    expect(h.slack.roots()).toHaveLength(1);
    await h.start();
    await h.advance(60_000);
    // The restarted pipeline finds the root it posted (message metadata) and finishes the post in its thread.
    await until(
      () => h!.slack.callsOf('chat.postMessage').some((c) => c.args.thread_ts),
      'the evidence reply after restart',
    );
    expect(h.slack.roots()).toHaveLength(1);
  });
});
