// Slack faults shorter than the retries, each under a running `rwx serve` (the whole composition: watch, pipeline,
// notifier, real Redis, the fake Slack over HTTP): a 429 storm with Retry-After, a 5xx storm, and the two ghost
// posts (Slack stored the message, the answer was lost: a 500 after storing, a dropped connection). Each hits the
// root, the evidence reply and the change reply; for each: one root, no reply twice, the change shown, the root
// edited in order, and the fault counted in the metrics and logged.
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../serve/harness.js';
import { until } from '../support/until.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { stuckCounts } from './replicas.js';
import { expectOneThread } from './thread.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Fault = (s: FakeSlack, method: string) => void;

const FAULTS: [name: string, fault: Fault, logged: RegExp, counted: string][] = [
  ['a 429 storm with Retry-After', (s, m) => s.rateLimit(m, 3, 1), /slack rate limited/, 'rate_limited'],
  ['a 5xx storm', (s, m) => s.serverError(m, 3, 503), /notify failed: will retry/, 'error'],
  ['ghost posts: stored, then 500', (s, m) => s.failAfterHandling(m, 1, 500), /notify failed: will retry/, 'error'],
  ['ghost posts: stored, then dropped', (s, m) => s.dropAfterHandling(m, 1), /notify failed: will retry/, 'error'],
];

describe('Slack storms and lost answers under rwx serve', () => {
  it.each(FAULTS)(
    '%s: one root, each reply once, the change shown',
    async (_name, fault, logged, counted) => {
      h = await harness('scenarios/propagation-loss.yaml');
      fault(h.slack, 'chat.postMessage'); // the root
      const t0 = Date.now();
      await h.start();
      await h.advance(1_000);
      await until(() => h!.slack.roots().length >= 1, 'the root', 30_000);
      const root = h.slack.roots()[0]!;
      fault(h.slack, 'chat.postMessage'); // the evidence reply
      await until(() => h!.slack.evidenceShown(root.ts), 'the evidence replies', 30_000);
      const posted = Date.now() - t0;

      fault(h.slack, 'chat.postMessage'); // the change reply
      fault(h.slack, 'chat.update'); // and the root's edit
      const changed = Date.now();
      h.sim.apply({
        set: [{ kind: 'Pod', namespace: 'platform', name: 'postgres-2', fields: { 'status.phase': 'Running' } }],
      });
      const shown = (): boolean => /recovered on its own/.test(JSON.stringify(h!.slack.replies(root.ts)));
      for (let i = 0; i < 20 && !shown(); i++) await h.advance(1_000);
      await until(shown, 'the change reply', 30_000);
      await until(
        () => h!.slack.callsOf('chat.update').some((c) => c.handled && c.args.ts === root.ts),
        'the root edited',
        30_000,
      );
      console.log(`${_name}: thread posted ${posted} ms after start, change shown ${Date.now() - changed} ms after`);

      expectOneThread(h.slack, root.ts, { noInventedChange: true });
      // The edits come in order: the last one shows fewer stuck pods than the post (postgres-2 mounted).
      const counts = stuckCounts(h.slack, root.ts);
      expect(counts.at(-1)).toBeLessThan(counts[0]!);
      expect(h.lines.join('\n')).toMatch(logged);
      expect((await fetch(`http://127.0.0.1:${h.serve!.port}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`http://127.0.0.1:${h.serve!.port}/metrics`)).text();
      expect(metrics).toMatch(
        new RegExp(`rwx_slack_calls_total\\{method="chat.postMessage",outcome="${counted}"\\} [1-9]`),
      );
    },
    60_000,
  );
});
