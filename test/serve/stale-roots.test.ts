// The dead-man notice on the roots themselves (src/notify/stale.ts, the stale step): `rwx serve` against the
// simulator, real Redis and the fake Slack. Blind longer than RWX_BLIND_AFTER, every open root gets a "stale since"
// line by one edit, with no reply in its thread (it is not a change of the incident); seen again, the line goes.
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness.js';
import { until } from '../support/until.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const STALE = /Stale since <!date\^\d+\^\{date_short_pretty\} \{time\}\|[^>]+>: the bot cannot see the cluster/;

describe('stale roots while the bot is blind', () => {
  it('marks every open root stale with one edit each, and clears the line when the bot sees again', async () => {
    h = await harness('scenarios/node-fault.yaml', undefined, { RWX_BLIND_AFTER: '30s' });
    const serve = await h.start();
    await h.advance(1_000); // past group_wait on the notifier's clock
    await until(() => h!.slack.roots().length >= 1, 'the roots');
    const roots = h.slack.roots().filter((m) => m.metadata?.event_type === 'rwx_incident');
    expect(roots.length).toBeGreaterThan(0);
    for (const r of roots) await until(() => h!.slack.evidenceShown(r.ts), 'the evidence replies');
    const blocks = (ts: string) => JSON.stringify(h!.slack.roots().find((m) => m.ts === ts)?.blocks);
    const edits = (ts: string) => h!.slack.callsOf('chat.update').filter((c) => c.args.ts === ts).length;
    const replies = new Map(roots.map((r) => [r.ts, h!.slack.replies(r.ts).length]));
    const editsBefore = new Map(roots.map((r) => [r.ts, edits(r.ts)]));
    for (const r of roots) expect(blocks(r.ts)).not.toMatch(STALE);

    // Blind past RWX_BLIND_AFTER: the notice, then each root edited once to say since when.
    h.sim.faults.down('refused');
    await until(() => !serve.watcher.reachable(), 'the API seen down');
    await serve.tick();
    h.clock.advance(31_000);
    await serve.tick();
    for (const r of roots) await until(() => STALE.test(blocks(r.ts)), `the stale line on ${r.ts}`);
    await serve.tick();
    await new Promise((r) => setTimeout(r, 200)); // a second edit, if one were coming, has had time to arrive
    for (const r of roots) {
      expect(edits(r.ts)).toBe(editsBefore.get(r.ts)! + 1);
      expect(h.slack.replies(r.ts)).toHaveLength(replies.get(r.ts)!); // not a change: nothing in the thread
    }

    // Seen again: the next edit of each root takes the line away, and none brings it back. (The evaluation after
    // the reconnect may edit the root again on its own account, e.g. while a kind is still unreadable.)
    h.sim.faults.up();
    await until(() => serve.watcher.current(), 'the watches current again');
    await serve.tick();
    for (const r of roots) await until(() => !STALE.test(blocks(r.ts)), `the stale line gone from ${r.ts}`);
    await serve.tick();
    await new Promise((r) => setTimeout(r, 200));
    for (const r of roots) {
      const after = h.slack
        .callsOf('chat.update')
        .filter((c) => c.args.ts === r.ts)
        .slice(editsBefore.get(r.ts)! + 1)
        .map((c) => STALE.test(JSON.stringify(c.args.blocks)));
      expect(after.length).toBeGreaterThan(0);
      expect(after).not.toContain(true);
    }
  });
});
