// Every message the bot posts while it plays a story, checked against Block Kit's limits and the escaping rules
// (test/support/block-kit.ts): the demo's scenario (rwx demo plays it by default) and the one-node fault, through
// the whole `rwx serve` pipeline to the fake Slack, with the optional link buttons and user group mention on.
import { afterEach, describe, expect, it } from 'vitest';
import { blockKitProblems } from '../support/block-kit.js';
import type { FakeCall } from '../support/fake-slack.js';
import { harness, type Harness } from './harness.js';
import { until } from '../support/until.js';

const RUNBOOK = 'https://runbooks.example.com/storage?team=platform&page=csi';
const MESSAGES = {
  RWX_RUNBOOK_URL: RUNBOOK,
  RWX_DASHBOARD_URL: 'https://grafana.example.com/d/rwx',
  RWX_MENTION_USERGROUP: 'S0ONCALL',
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const replyIds = (x: Harness): string[] =>
  x.slack.messages.map((m) => String(m.metadata?.event_payload.reply ?? 'root').split(':')[0]!);

/**
 * Plays `scenario` for `minutes` of simulated time, one tick a minute, then waits for every root to have its
 * evidence and, when `resolves`, its resolution.
 */
async function play(scenario: string, minutes: number, resolves: boolean): Promise<Harness> {
  h = await harness(scenario, undefined, MESSAGES);
  await h.start();
  await h.advance(1_000);
  await until(() => h!.slack.roots().length >= 1, 'the first root');
  for (let m = 0; m < minutes; m++) await h.advance(60_000);
  const count = (id: string) => replyIds(h!).filter((r) => r === id).length;
  await until(() => count('evidence') >= h!.slack.roots().length, 'the evidence replies');
  if (resolves) await until(() => count('resolution') >= h!.slack.roots().length, 'the resolution replies');
  return h;
}

const posted = (x: Harness): FakeCall[] =>
  x.slack.calls.filter((c) => c.method === 'chat.postMessage' || c.method === 'chat.update');

describe('Block Kit: every message of a story', () => {
  it.each([
    ['scenarios/propagation-loss.yaml', 32, true], // the demo's story, to its resolution and follow-up
    ['scenarios/cni-sandbox.yaml', 12, true], // not storage, resolved when the subnet is extended
    ['scenarios/node-fault.yaml', 8, false], // one broken node, still open
  ] as const)(
    '%s: every post and edit is within the limits and escaped',
    async (scenario, minutes, resolves) => {
      const x = await play(scenario, minutes, resolves);
      const calls = posted(x);
      expect(calls.length).toBeGreaterThanOrEqual(resolves ? 4 : 2); // root, evidence (, resolution, resolved root)
      const problems = calls.flatMap((c, i) => blockKitProblems(c.args, `${c.method} #${i}`));
      expect(problems).toEqual([]);
    },
    120_000,
  );

  it('the story as a phone shows it: the verdict first, one mention, a broadcast resolution', async () => {
    const x = await play('scenarios/propagation-loss.yaml', 32, true);
    const calls = posted(x);
    const roots = calls.filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts === undefined);
    expect(roots).toHaveLength(1);
    // The push notification: "Do not drain" and the verdict before anything else, while the incident is open.
    expect(String(roots[0]!.args.text)).toMatch(/^Do not drain\. Follows a node plugin rollout\. /);
    // The user group is mentioned once, by the new root; no edit or reply mentions it again.
    const mentions = calls.filter((c) => JSON.stringify(c.args).includes('<!subteam^S0ONCALL>'));
    expect(mentions).toEqual([roots[0]]);
    // The root's link buttons (the & of the runbook URL is sent as it is: a URL field, not mrkdwn).
    expect(JSON.stringify(roots[0]!.args.blocks)).toContain(JSON.stringify(RUNBOOK));
    // The resolution reply is also sent to the channel; no other reply is.
    const broadcast = calls.filter((c) => c.args.reply_broadcast === 'true' || c.args.reply_broadcast === true);
    expect(
      broadcast.map((c) => (c.args.metadata as { event_payload: { reply?: string } }).event_payload.reply),
    ).toEqual(['resolution']);
    // Times are Slack dates, so each reader sees their own time zone.
    expect(JSON.stringify(calls.map((c) => c.args.blocks))).toMatch(/<!date\^\d+\^\{date_short_pretty\} \{time\}\|/);
  }, 120_000);
});
