// What the first evidence reply leaves out is the second reply: posted once, right after the first, never twice
// across a crash, and edited in place when the incident changes. In-memory fakes (the fake Slack, the store), a
// ManualClock; the "crash" is a call that throws after its side effect.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { RwxError } from '../../src/errors.js';
import type { Incident } from '../../src/domain/incident.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import { FIRST_REPLY_BUDGET } from '../../src/render/slack-evidence.js';
import { renderEvidenceRest } from '../../src/render/slack-thread.js';
import { type MemoryMessage, MemorySlack } from '../../src/slack/memory-slack.js';
import { visibleLines } from '../../src/slack/terminal-slack.js';
import { MemoryIncidentStore } from '../support/memory-store.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { KEY, M, S, byReplyId, losingAnswers, stageDeps } from './harness.js';

let clock: ManualClock;
let slack: MemorySlack;
let store: MemoryIncidentStore;
let deps: StepDeps;
/** Reply ids whose chat.postMessage reaches Slack and then throws (the process dies before the record write). */
let crashOn: (id: string) => boolean;

/** The rollout incident with stuck pods on `n` more nodes: 36 are more than the first reply holds. */
const big = (n = 36): Incident =>
  rolloutIncident(Array.from({ length: n }, (_, i) => ({ node: `node-${100 + i}`, pod: `search-extra-${i}` })));
const rootTs = (): string => slack.roots().at(-1)!.ts;
const replies = (): MemoryMessage[] => slack.replies(rootTs());
const replyIds = (): string[] => replies().map((m) => String(m.metadata?.event_payload.reply ?? ''));
const text = (m: MemoryMessage | undefined): string => JSON.stringify(m?.blocks);
const restTs = async (): Promise<string | undefined> => {
  const l = (await store.get(KEY))?.lifecycle;
  return l?.phase === 'open' ? l.thread.rest?.ts : undefined;
};

async function submit(incident: Incident): Promise<void> {
  const ctx = { store: deps.store, channel: 'C1', groupWait: DEFAULT_TIMERS.groupWait };
  await recordEvaluation(ctx, [incident], clock.now());
}

beforeEach(() => {
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  store = new MemoryIncidentStore(clock);
  crashOn = () => false;
  const crashing = losingAnswers(
    slack,
    byReplyId((id) => crashOn(id)),
  );
  deps = stageDeps(clock, crashing, store);
});

describe('the second evidence reply', () => {
  it('holds what the first reply left out, within the same budget, posted right after it', async () => {
    await submit(big());
    clock.advance(30 * S);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['post-root', 'post-evidence', 'post-rest'] });
    expect(replyIds()).toEqual(['evidence', 'evidence-rest']);
    const [first, rest] = replies();
    expect(text(first)).toMatch(/Not shown here: [^"]*: the next reply holds them/);
    expect(text(rest)).toContain('(continued)');
    for (const m of [first!, rest!]) expect(visibleLines(m).join('').length).toBeLessThanOrEqual(FIRST_REPLY_BUDGET);
    expect(await restTs()).toBe(rest!.ts);
  });

  it('is not posted when the first reply holds everything', async () => {
    const small = rolloutIncident();
    expect(renderEvidenceRest(small)).toBeUndefined();
    await submit(small);
    clock.advance(30 * S);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['post-root', 'post-evidence'] });
    expect(replyIds()).toEqual(['evidence']);
  });

  it('a crash after Slack accepted it never makes a second copy', async () => {
    crashOn = (id) => id === 'evidence-rest';
    await submit(big());
    clock.advance(30 * S);
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'SLACK_API' });
    expect(replyIds()).toEqual(['evidence', 'evidence-rest']);
    expect(await restTs()).toBeUndefined(); // Slack has it, the record does not know yet

    crashOn = () => false;
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['post-rest'] });
    expect(replyIds()).toEqual(['evidence', 'evidence-rest']);
    expect(await restTs()).toBe(replies()[1]!.ts);
  });

  it('once the first reply announced it, it is posted even if the incident shrank meanwhile: "Nothing more"', async () => {
    // The second reply's first attempt fails before reaching Slack; the incident then fits the first reply.
    let refused = false;
    deps = {
      ...deps,
      slack: Object.assign(Object.create(slack) as StepDeps['slack'], {
        postMessage: async (a: Parameters<StepDeps['slack']['postMessage']>[0]) => {
          if (a.metadata?.event_payload.reply === 'evidence-rest' && !refused) {
            refused = true;
            throw new RwxError('SLACK_API', 'connection reset', { retryable: true });
          }
          return slack.postMessage(a);
        },
      }),
    };
    await submit(big());
    clock.advance(30 * S);
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'SLACK_API' });
    expect(text(replies()[0])).toMatch(/the next reply holds them/);
    await submit(rolloutIncident());
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['post-rest'] });
    expect(replyIds()).toEqual(['evidence', 'evidence-rest']);
    expect(text(replies()[1])).toContain('Nothing more');
  });

  it('is edited in place when the incident changes, never posted again', async () => {
    await submit(big());
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    const rest = replies()[1]!;
    const before = text(rest);

    clock.advance(5 * M);
    await submit(big(51)); // node-100..node-150
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['update'] });
    expect(replyIds()).toEqual(['evidence', 'evidence-rest', expect.stringMatching(/^change:/)]);
    expect(rest.edits).toBe(1);
    expect(text(rest)).not.toBe(before);
    expect(text(rest)).toBe(text({ blocks: renderEvidenceRest(big(51))!.blocks } as MemoryMessage));

    // The incident shrinks until the first reply would hold it all: the second says so.
    clock.advance(5 * M);
    await submit(rolloutIncident());
    await processIncident(deps, KEY);
    expect(rest.edits).toBe(2);
    expect(text(rest)).toContain('Nothing more');
    expect(await restTs()).toBe(rest.ts);
  });
});
