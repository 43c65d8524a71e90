// Partial recovery is not resolution: on the rollout incident, one stuck pod mounts while the others stay stuck. The
// incident stays one thread (no second root for the pods still stuck), the thread says which pod recovered, the
// root is not resolved, and /rwx drain still blocks a node where the rollout breaks mounts. Whole stack: the
// simulator over HTTP, the pipeline on real Redis, the fake Slack.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { runCommand } from '../../src/commands/handle.js';
import { serveServices } from '../../src/commands/serve.js';
import { Redis } from 'ioredis';
import { REDIS_URL, harness, type Harness } from '../serve/harness.js';
import { until } from '../support/until.js';

const SCENARIO = 'scenarios/propagation-loss.yaml';
const KEY = 'rollout/kube-system/ebs-csi-node@2';
let h: Harness | undefined;
let redis: Redis | undefined;
afterEach(async () => {
  await h?.close();
  redis?.disconnect();
  h = redis = undefined;
});

const keys = (x: Harness): unknown[] => x.slack.roots().map((r) => r.metadata?.event_payload.key);
const text = (x: Harness, ts: string): string => JSON.stringify(x.slack.replies(ts).map((r) => r.blocks));

/** /rwx drain <node> as the running bot answers it (its cache, its open incidents). */
async function drainText(x: Harness, node: string): Promise<string> {
  redis ??= new Redis(REDIS_URL);
  const config = loadConfig({
    env: { SLACK_BOT_TOKEN: 'xoxb-t', SLACK_CHANNEL: 'C0INCIDENT', SLACK_SIGNING_SECRET: 's', REDIS_URL },
  });
  const svc = serveServices({
    config,
    index: () => x.serve!.watcher.index,
    redis,
    clock: x.clock,
    openKeys: () => x.serve!.pipeline.openKeys(),
  });
  const reply = await runCommand({ kind: 'drain', node, public: false } as never, svc);
  return JSON.stringify(reply.response);
}

describe('a member of a rollout incident recovers while the others are stuck', () => {
  it('stays one thread, reports the recovery in it, does not resolve, and drain still blocks', async () => {
    h = await harness(SCENARIO);
    await h.start();
    await h.advance(1_000);
    await until(() => h!.slack.roots().length === 1, 'the root');
    const root = h.slack.roots()[0]!;
    await until(() => h!.slack.evidenceShown(root.ts), 'the evidence replies');
    expect(await drainText(h, 'node-23')).toMatch(/BLOCK/);

    // postgres-2 on node-19 (revision 2) mounts: a pod whose containers started after its node's plugin pod, on
    // the new revision. On its own, the rollout test would now call the revision "proven" and drop the verdict.
    await h.sim.apply({
      set: [{ kind: 'Pod', namespace: 'platform', name: 'postgres-2', fields: { 'status.phase': 'Running' } }],
    });
    for (let i = 0; i < 3; i++) await h.advance(2_000);
    await until(() => /recovered on its own/.test(text(h!, root.ts)), 'the reply naming the recovered pod');

    const replies = text(h, root.ts);
    expect(replies).toMatch(/recovered on its own[^"]*platform\/postgres-2/);
    expect(replies).not.toMatch(/Resolved|resolved:/);
    // One thread: the pods still stuck did not start an "unexplained" incident of their own.
    expect(keys(h)).toEqual([KEY]);
    const current = h.serve!.pipeline.current().map((i) => [i.key, i.verdict, i.pods.length]);
    expect(current).toEqual([[KEY, 'FOLLOWS_ROLLOUT', 3]]);
    expect(JSON.stringify(h.slack.roots()[0]!.blocks)).not.toMatch(/Resolved/);
    // The rollout still breaks mounts on node-23: never OK.
    expect(await drainText(h, 'node-23')).toMatch(/BLOCK/);

    // A restart in the middle (a new process, the same Redis) keeps the incident as it was: no new root.
    await h.serve!.stop();
    await h.start();
    for (let i = 0; i < 3; i++) await h.advance(2_000);
    expect(keys(h)).toEqual([KEY]);
    expect(h.serve!.pipeline.current().map((i) => i.verdict)).toEqual(['FOLLOWS_ROLLOUT']);
  });
});
