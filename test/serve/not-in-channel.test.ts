// The bot not invited to its channel: Slack answers not_in_channel. Nothing is lost and nothing gives up: the job
// waits (RWX channel retry, 5 min in production, 300 ms here), one clear log line says what to do each time and
// rwx_slack_channel_refused_total counts it, and the root is posted at the first retry after the invitation.
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness.js';
import { until } from '../support/until.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const metrics = async (x: Harness): Promise<string> =>
  (await fetch(`http://127.0.0.1:${x.serve!.port}/metrics`)).text();
const refusals = (text: string): number =>
  Number(/rwx_slack_channel_refused_total\{channel="C0INCIDENT"\} (\d+)/.exec(text)?.[1] ?? 0);

describe('a channel the bot is not in', () => {
  it('is logged and counted, retried, and posted in once the bot is invited', async () => {
    h = await harness('scenarios/propagation-loss.yaml');
    h.slack.leave('C0INCIDENT');
    await h.start();
    await h.advance(1_000);
    const said = (): string[] => h!.lines.filter((l) => l.includes('the bot cannot post in this channel'));
    await until(() => said().length >= 2, 'the refusal logged twice (a retry)');
    const line = JSON.parse(said()[0]!) as { level: number; err: string; retryInMs: number };
    expect(line.err).toBe('conversations.history: not_in_channel (channel C0INCIDENT)');
    expect(line.retryInMs).toBe(300);
    expect(refusals(await metrics(h))).toBeGreaterThanOrEqual(2);
    expect(h.lines.join('\n')).not.toContain('notify failed for good');
    expect(h.slack.roots()).toHaveLength(0);

    h.slack.join('C0INCIDENT');
    await until(() => h!.slack.roots().length === 1 && h!.slack.evidenceShown(h!.slack.roots()[0]!.ts), 'the root');
    expect(h.slack.roots()).toHaveLength(1);
  });
});
