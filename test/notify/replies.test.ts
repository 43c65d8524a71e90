// Thread replies survive a crash like the root does: a reply Slack accepted but the record never heard of is found
// by its metadata on the retry, never posted twice; a later, new reply is still posted. In-memory fakes, a
// ManualClock; the "crash" is a call that throws after its side effect.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { RwxError } from '../../src/errors.js';
import { createIncidentActions } from '../../src/notify/actions.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import type { IncidentStore } from '../../src/store/incident-store.js';
import type { RecordPatch } from '../../src/store/record.js';
import { MemoryIncidentStore } from '../support/memory-store.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { H, KEY, M, S, byReplyId, losingAnswers, replyingOf, stageDeps } from './harness.js';

let clock: ManualClock;
let slack: MemorySlack;
let store: MemoryIncidentStore;
let deps: StepDeps;
/** Reply ids whose chat.postMessage reaches Slack and then throws (the process dies before the record write). */
let crashOn: (id: string) => boolean;
/** Record patches that fail in Redis (after Slack accepted what they would record). */
let failPatch: (fields: RecordPatch) => boolean;

const replyId = (m: { metadata?: { event_payload: Record<string, unknown> } }): string =>
  String(m.metadata?.event_payload.reply ?? '');
const rootTs = (): string => slack.roots().at(-1)!.ts;
const replies = (ts = rootTs()): string[] => slack.replies(ts).map(replyId);
const lookups = (): number => slack.calls.filter((c) => c.method === 'findThreadReply').length;
const resolvedTexts = (ts = rootTs()): string[] =>
  slack
    .replies(ts)
    .map((m) => m.text)
    .filter((t) => t.startsWith('Resolved'));

async function submit(incidents = [rolloutIncident()], groupWait = DEFAULT_TIMERS.groupWait): Promise<void> {
  const resolutions = new Map([[KEY, { recovered: ['platform/postgres-2'], deleted: [], cronJobs: [] }]]);
  await recordEvaluation({ store: deps.store, channel: 'C1', groupWait, resolutions }, incidents, clock.now());
}

/** Posts the root and its evidence reply. */
async function open(): Promise<void> {
  await submit();
  clock.advance(30 * S);
  await processIncident(deps, KEY);
}

beforeEach(() => {
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  store = new MemoryIncidentStore(clock);
  crashOn = () => false;
  failPatch = () => false;
  const crashing = losingAnswers(
    slack,
    byReplyId((id) => crashOn(id)),
  );
  const failing: IncidentStore = Object.assign(Object.create(store) as IncidentStore, {
    patch: async (key: string, fields: RecordPatch) => {
      if (failPatch(fields)) throw new RwxError('REDIS_UNREACHABLE', 'redis: connection lost');
      return store.patch(key, fields);
    },
  });
  deps = stageDeps(clock, crashing, failing);
});

describe('thread replies across a crash', () => {
  it('a crash after Slack accepted the evidence reply never makes a second copy; the next change is still posted', async () => {
    crashOn = (id) => id === 'evidence';
    await submit();
    clock.advance(30 * S);
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'SLACK_API' });
    expect((await store.get(KEY))?.lifecycle).toEqual({
      phase: 'posting-evidence',
      thread: expect.objectContaining({ ts: rootTs(), replying: 'evidence' }),
    });

    crashOn = () => false;
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['post-evidence'] });
    expect(replies()).toEqual(['evidence']);
    expect(slack.replies(rootTs())[0]?.metadata).toEqual({
      event_type: 'rwx_incident',
      event_payload: { key: KEY, reply: 'evidence' },
    });
    expect(lookups()).toBe(1);
    const r = await store.get(KEY);
    expect(r?.lifecycle.phase).toBe('open');
    expect(replyingOf(r)).toBeUndefined();

    clock.advance(5 * M);
    await submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])]);
    await processIncident(deps, KEY);
    expect(replies()).toEqual(['evidence', expect.stringMatching(/^change:/)]);
    expect(lookups()).toBe(1); // a first attempt never looks up
  });

  it('a failed record write after Slack accepted a change reply never makes a second copy; later changes and repeats are posted', async () => {
    await open();
    clock.advance(5 * M);
    await submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])]);
    failPatch = (f) => f.lifecycle?.phase === 'open' && !f.lifecycle.thread.replying; // the step's own write
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'REDIS_UNREACHABLE' });
    expect(replies()).toEqual(['evidence', expect.stringMatching(/^change:/)]);
    const changeId = replies()[1]!;
    expect(replyingOf(await store.get(KEY))).toBe(changeId);

    failPatch = () => false;
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['update'] });
    expect(replies()).toEqual(['evidence', changeId]);
    expect(replyingOf(await store.get(KEY))).toBeUndefined();

    // Another node joins: a new change, a new id, a new reply.
    clock.advance(5 * M);
    await submit([
      rolloutIncident([
        { node: 'node-50', pod: 'search-new' },
        { node: 'node-51', pod: 'search-newer' },
      ]),
    ]);
    await processIncident(deps, KEY);
    expect(replies()).toHaveLength(3);
    expect(replies()[2]).not.toBe(changeId);
    expect(JSON.stringify(slack.replies(rootTs())[2]?.blocks)).toContain('node-51');
    // Nothing changes for repeat_interval: a reminder, with an id of its own.
    clock.advance(DEFAULT_TIMERS.repeatInterval);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['repeat'] });
    expect(replies()[3]).toMatch(/^repeat:/);
  });

  it('a crash after Slack accepted a repeat reply never makes a second copy; the next repeat is posted', async () => {
    await open();
    clock.advance(4 * H);
    crashOn = (id) => id.startsWith('repeat:');
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'SLACK_API' });
    crashOn = () => false;
    clock.advance(M); // the retry runs later: the id does not depend on when
    await processIncident(deps, KEY);
    expect(replies()).toEqual(['evidence', expect.stringMatching(/^repeat:/)]);
    clock.advance(4 * H);
    await processIncident(deps, KEY);
    expect(replies()).toHaveLength(3);
    expect(replies()[2]).not.toBe(replies()[1]);
  });

  it('a reply whose post never reached Slack is posted on the retry', async () => {
    await submit();
    clock.advance(30 * S);
    slack.failNext('postMessage', new RwxError('SLACK_RATE_LIMITED', 'rate limited', { retryAfterSeconds: 1 }));
    await processIncident(deps, KEY).catch(() => undefined); // the root: nothing started in the record yet
    await processIncident(deps, KEY);
    expect(replies()).toEqual(['evidence']);
    clock.advance(5 * M);
    await submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])]);
    slack.failNext('postMessage', new RwxError('SLACK_RATE_LIMITED', 'rate limited', { retryAfterSeconds: 1 }));
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'SLACK_RATE_LIMITED' });
    expect(replyingOf(await store.get(KEY))).toMatch(/^change:/);
    await processIncident(deps, KEY);
    expect(replies()).toEqual(['evidence', expect.stringMatching(/^change:/)]);
    expect(lookups()).toBe(1);
  });

  it('a crash after Slack accepted the resolution reply never makes a second copy; a recurrence is resolved in its new thread', async () => {
    await open();
    const first = rootTs();
    clock.advance(M);
    await submit([], 0);
    crashOn = (id) => id === 'resolution';
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({ code: 'SLACK_API' });
    expect(replyingOf(await store.get(KEY))).toBe('resolution');
    crashOn = () => false;
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['resolve'] });
    expect(resolvedTexts(first)).toHaveLength(1);
    expect(JSON.stringify(slack.roots()[0]?.blocks)).toContain('Resolved');
    clock.advance(M); // closed once the keep-firing window after the resolution is over
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['close'] });
    expect(await store.listOpen()).toEqual([]);

    clock.advance(H);
    await open();
    expect(slack.roots()).toHaveLength(2);
    clock.advance(M);
    await submit([], 0);
    await processIncident(deps, KEY);
    expect(resolvedTexts()).toHaveLength(1);
    expect(resolvedTexts(first)).toHaveLength(1);
  });

  it('a crash after Slack accepted the resolution reply of a Resolve click: the next click posts no second copy', async () => {
    await open();
    const actions = createIncidentActions(deps);
    crashOn = (id) => id === 'resolution';
    await expect(actions.resolve(KEY, 'U1', clock.now())).rejects.toMatchObject({ code: 'SLACK_API' });
    crashOn = () => false;
    expect((await actions.resolve(KEY, 'U2', clock.now())).status).toBe('already');
    expect(resolvedTexts()).toHaveLength(1);
    expect(JSON.stringify(slack.replies(rootTs()).at(-1)?.blocks)).toContain('<@U1>');
    expect(replyingOf(await store.get(KEY))).toBeUndefined();
  });
});
