// The invariants every fault must keep for the thread it touches: one root, each reply once (the evidence, and each
// change reply by its id), and nothing resolved while members are still stuck (the fault tests only make pods
// recover, never all of them); and, where the test makes no new member stuck, no "Changed:" the cluster did not
// make (a relist or a restart misread as a change).
import { expect } from 'vitest';
import type { FakeSlack } from '../support/fake-slack.js';

/** The bot's notices about itself (it cannot see the cluster, or reach Redis): roots, but of no incident. */
const NOTICE = /^(dead-man|redis-outage)\//;

/**
 * Asserts the thread of `rootTs` is the only incident root (the bot's notices aside), its replies are each once,
 * and nothing was resolved.
 */
export function expectOneThread(slack: FakeSlack, rootTs: string, o: { noInventedChange?: boolean } = {}): void {
  const notice = (key: unknown): boolean => NOTICE.test(String(key));
  expect(
    slack
      .roots()
      .filter((r) => !notice(r.metadata?.event_payload.key))
      .map((r) => r.ts),
  ).toEqual([rootTs]);
  const ids = slack.replies(rootTs).map((r) => r.metadata?.event_payload.reply);
  expect(ids.filter((id) => id === 'evidence')).toHaveLength(1);
  expect(new Set(ids).size).toBe(ids.length);
  const thread = JSON.stringify([
    slack.replies(rootTs).map((r) => r.blocks),
    slack.callsOf('chat.update').map((c) => c.args.blocks),
  ]);
  expect(thread).not.toMatch(/Resolved/);
  if (o.noInventedChange) expect(thread).not.toMatch(/new node|new workload|new CronJob|newly stuck/);
}

/** The value of one sample (`name{labels}`) in a /metrics text, 0 when absent. */
export function sample(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : 0;
}
