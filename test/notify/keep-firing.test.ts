// The keep-firing window as a fact of the record (record.ts keptFiring, reopens): what each evaluation records when
// an incident goes and comes back, and what the thread then says. The in-memory store and Slack, a ManualClock.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { keptFiring, recordEvaluation } from '../../src/notify/record.js';
import { processIncident, type StepDeps } from '../../src/notify/steps-run.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import type { ResolutionFacts } from '../../src/domain/resolution.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { MemoryIncidentStore } from '../support/memory-store.js';
import { H, KEY, M, S, record, stageDeps } from './harness.js';

const W = DEFAULT_TIMERS.keepFiring;
let clock: ManualClock;
let slack: MemorySlack;
let deps: StepDeps;
let writes: { creates: number; deletes: number };

/**
 * Records one evaluation at the clock's time with the product's window; `facts` as observed when it clears. The
 * jobs it asks for and the keys of the incidents it kept open.
 */
async function evaluate(incidents = [rolloutIncident()], facts?: ResolutionFacts) {
  const resolutions = facts ? new Map([[KEY, facts]]) : undefined;
  const ctx = { store: deps.store, channel: 'C1', groupWait: 30 * S, keepFiring: W, resolutions };
  const { jobs, kept } = await recordEvaluation(ctx, incidents, clock.now());
  return { jobs, kept: kept.map((i) => i.key) };
}

const ids = (): string[] =>
  slack.roots().flatMap((r) => slack.replies(r.ts).map((m) => String(m.metadata?.event_payload.reply)));
const awaitingBackup: ResolutionFacts = {
  recovered: ['platform/postgres-2'],
  deleted: [],
  cronJobs: [{ cronJob: 'data/nightly-backup', completedSince: false }],
};

beforeEach(async () => {
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  const store = new MemoryIncidentStore(clock);
  writes = { creates: 0, deletes: 0 };
  const create = store.create.bind(store);
  const del = store.delete.bind(store);
  store.create = async (r) => ((await create(r)) ? (writes.creates++, true) : false);
  store.delete = async (k) => (writes.deletes++, del(k));
  deps = stageDeps(clock, slack, store);
  // An established incident: posted, and firing for longer than the window.
  await evaluate();
  clock.advance(30 * S);
  await processIncident(deps, KEY);
  clock.advance(2 * M);
  await evaluate();
});

describe('keptFiring', () => {
  it.each<[string, Partial<ReturnType<typeof record>['observed']>, number, boolean]>([
    // fired for the window or longer, gone for less: kept
    ['established, just gone', { absentSince: FIXTURE_NOW + W }, FIXTURE_NOW + W + 10 * S, true],
    // gone for the whole window: no longer kept
    ['established, gone the whole window', { absentSince: FIXTURE_NOW + W }, FIXTURE_NOW + 2 * W, false],
    // fired for less than the window: a blip itself, never kept
    ['short-lived', { absentSince: FIXTURE_NOW + 10 * S }, FIXTURE_NOW + 20 * S, false],
    // not yet marked absent: measured from now
    ['established, first pass without it', {}, FIXTURE_NOW + 2 * W, true],
    // came back after a resolution: the same incident, established since its first record
    ['came back lately', { reopenedAt: FIXTURE_NOW + H }, FIXTURE_NOW + H + 30 * S, true],
  ])('%s', (_why, observed, now, want) => {
    const r = record();
    expect(keptFiring({ ...r, observed: { ...r.observed, ...observed } }, now, W)).toBe(want);
  });
});

describe('the keep-firing window on the record', () => {
  it('a blip shorter than the window changes nothing; gone for the whole window, it is resolved once', async () => {
    clock.advance(10 * S);
    expect(await evaluate([])).toEqual({ jobs: [], kept: [KEY] });
    expect((await deps.store.get(KEY))?.observed.absentSince).toBe(clock.now());
    clock.advance(20 * S);
    expect(await evaluate([])).toEqual({ jobs: [], kept: [KEY] }); // the mark is written once
    clock.advance(5 * S);
    expect(await evaluate()).toEqual({ jobs: [], kept: [] }); // back: no longer absent, nothing to notify
    expect((await deps.store.get(KEY))?.observed.absentSince).toBeUndefined();

    clock.advance(10 * S);
    await evaluate([]);
    clock.advance(W - S);
    expect((await evaluate([])).kept).toEqual([KEY]);
    clock.advance(S);
    expect(await evaluate([])).toEqual({ jobs: [{ key: KEY, delayMs: 0 }], kept: [] });
    await processIncident(deps, KEY);
    expect(ids()).toEqual(['evidence', 'resolution']);
  });

  it('back within the window after its resolution: the same thread reopens, the record is never recreated', async () => {
    clock.advance(10 * S);
    await evaluate([]);
    clock.advance(W);
    await evaluate([], awaitingBackup);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['resolve'] });
    const root = slack.roots()[0]!;
    expect(JSON.stringify(root.blocks)).toContain('Resolved');

    clock.advance(30 * S);
    expect(await evaluate()).toEqual({ jobs: [{ key: KEY, delayMs: 0 }], kept: [] });
    expect(await evaluate()).toEqual({ jobs: [], kept: [] }); // every later pass: nothing to write, no job
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['reopen'] });
    expect(slack.roots()).toHaveLength(1);
    expect(JSON.stringify(root.blocks)).not.toContain('Resolved');
    const back = slack.replies(root.ts).at(-1)!;
    expect(back.text).toMatch(/It came back 30s after it was resolved/);
    expect(back.broadcast).toBe(true); // the channel was told "Resolved": it is told this too
    expect((await deps.store.get(KEY))?.lifecycle.phase).toBe('open');

    // It goes again: the same established incident, kept through the window, then resolved with a reply of its own.
    clock.advance(10 * S);
    expect((await evaluate([])).kept).toEqual([KEY]);
    clock.advance(W);
    await evaluate([], awaitingBackup);
    await processIncident(deps, KEY);
    expect(ids()).toEqual([
      'evidence',
      'resolution',
      `reopen:${FIXTURE_NOW + 30 * S + 2 * M + 10 * S + W}`,
      expect.stringMatching(/^resolution:/),
    ]);
    expect(writes).toEqual({ creates: 1, deletes: 0 });
  });

  it('while its missed backup is awaited it reopens even hours later; the follow-up still comes once, after', async () => {
    clock.advance(10 * S);
    await evaluate([]);
    clock.advance(W);
    await evaluate([], awaitingBackup);
    await processIncident(deps, KEY);
    expect((await deps.store.get(KEY))?.lifecycle.phase).toBe('following-up');
    clock.advance(3 * H);
    await evaluate();
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['reopen'] });
    clock.advance(10 * S);
    await evaluate([]);
    clock.advance(W);
    await evaluate([], awaitingBackup);
    await processIncident(deps, KEY);
    const l = (await deps.store.get(KEY))?.lifecycle;
    expect(l).toMatchObject({ phase: 'following-up', awaiting: { cronJobs: ['data/nightly-backup'] } });
    const done = { ...awaitingBackup, cronJobs: [{ cronJob: 'data/nightly-backup', completedSince: true }] };
    const observe = () => done;
    clock.advance(H);
    await recordEvaluation({ store: deps.store, channel: 'C1', groupWait: 0, keepFiring: W, observe }, [], clock.now());
    await processIncident(deps, KEY);
    expect(ids().filter((i) => i.startsWith('follow-up:'))).toHaveLength(1);
    expect(slack.roots()).toHaveLength(1);
    expect(writes).toEqual({ creates: 1, deletes: 0 });
  });

  it('after the window, closed: a recurrence is a new incident with a new thread, created once', async () => {
    clock.advance(10 * S);
    await evaluate([]);
    clock.advance(W);
    await evaluate([]);
    await processIncident(deps, KEY);
    clock.advance(W);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['close'] });
    clock.advance(M);
    expect((await evaluate()).jobs).toEqual([{ key: KEY, delayMs: 30 * S }]);
    expect((await evaluate()).jobs).toEqual([]);
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    expect(slack.roots()).toHaveLength(2);
    expect(writes).toEqual({ creates: 2, deletes: 1 });
  });
});
