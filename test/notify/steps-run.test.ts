// The notify stages end to end on the in-memory fakes: timers on a ManualClock, Slack as MemorySlack.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { RwxError } from '../../src/errors.js';
import { createIncidentActions } from '../../src/notify/actions.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { H, KEY, M, S, losingAnswers, stageDeps, tsOf } from './harness.js';

let clock: ManualClock;
let slack: MemorySlack;
let deps: StepDeps;
const text = (m: { blocks?: unknown[] } | undefined): string => JSON.stringify(m?.blocks ?? []);

/** Records one evaluation; the jobs it asks for. */
async function submit(incidents = [rolloutIncident()], resolutions?: Map<string, never>) {
  const ctx = { store: deps.store, channel: 'C1', groupWait: DEFAULT_TIMERS.groupWait, resolutions };
  return (await recordEvaluation(ctx, incidents, clock.now())).jobs;
}

beforeEach(() => {
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  deps = stageDeps(clock, slack);
});

describe('notify stages', () => {
  it('waits group_wait, posts one root with metadata and the evidence reply, then edits it on change', async () => {
    expect(await submit()).toEqual([{ key: KEY, delayMs: 30 * S }]);
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'wait', until: FIXTURE_NOW + 30 * S, steps: [] });
    expect(slack.messages).toHaveLength(0);
    clock.advance(30 * S);
    expect(await processIncident(deps, KEY)).toMatchObject({ kind: 'wait', steps: ['post-root', 'post-evidence'] });
    expect(slack.roots()).toHaveLength(1);
    const root = slack.roots()[0]!;
    expect(root.metadata).toEqual({ event_type: 'rwx_incident', event_payload: { key: KEY } });
    expect(slack.replies(root.ts)).toHaveLength(1);
    expect(text(slack.replies(root.ts)[0])).toContain('*Next steps*');

    // Same incident again (ages moved on): no job, nothing sent.
    clock.advance(M);
    const aged = rolloutIncident();
    aged.pods[0]!.stuckSeconds += 60;
    expect(await submit([aged])).toEqual([]);

    // A new node joins: edit the root (after group_interval) and reply with what is new.
    expect(await submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])])).toEqual([
      { key: KEY, delayMs: 0 },
    ]);
    expect(await processIncident(deps, KEY)).toMatchObject({ kind: 'wait', until: FIXTURE_NOW + 30 * S + 5 * M });
    clock.advance(5 * M);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['update'] });
    expect(slack.roots()).toHaveLength(1);
    expect(root.edits).toBe(1);
    expect(text(root)).toContain('Stuck on 5 nodes');
    expect(text(slack.replies(root.ts).at(-1))).toContain('new node `node-50`');
  });

  it('buttons: ack shown at once and idempotent; mute holds updates; resolution is still posted', async () => {
    await submit();
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    const root = slack.roots()[0]!;
    const actions = createIncidentActions(deps);
    expect((await actions.acknowledge(KEY, 'U1ALICE', clock.now())).status).toBe('done');
    expect((await actions.acknowledge(KEY, 'U2BOB', clock.now())).status).toBe('already');
    expect(text(root)).toContain('Acknowledged by <@U1ALICE>');
    expect((await actions.mute(KEY, 'U1ALICE', 60 * M, clock.now())).status).toBe('done');
    expect((await actions.mute(KEY, 'U1ALICE', 60 * M, clock.now())).status).toBe('already');
    expect(text(root)).toContain('Muted until');
    const edits = root.edits;

    clock.advance(10 * M);
    await submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])]);
    expect(await processIncident(deps, KEY)).toMatchObject({ kind: 'wait', until: FIXTURE_NOW + 30 * S + 60 * M });
    expect(root.edits).toBe(edits);

    clock.advance(M);
    const facts = new Map([
      [
        KEY,
        {
          recovered: ['platform/postgres-2'],
          deleted: [],
          cronJobs: [{ cronJob: 'data/nightly-backup', completedSince: false }],
        },
      ],
    ]);
    await recordEvaluation({ store: deps.store, channel: 'C1', groupWait: 0, resolutions: facts }, [], clock.now());
    expect(await processIncident(deps, KEY)).toEqual({
      kind: 'wait',
      until: clock.now() + 26 * H,
      steps: ['resolve'],
    });
    const last = slack.replies(root.ts).at(-1);
    expect(text(last)).toContain('recovered on its own');
    expect(text(root)).toContain('Resolved');
    expect(root.blocks?.some((b) => b.type === 'actions')).toBe(false);
    // The backup has not run since: the record stays open to follow it up (follow-up tests in resolution.test.ts).
    expect(await deps.store.listOpen()).toEqual([KEY]);
    expect((await deps.store.get(KEY))?.lifecycle).toMatchObject({
      phase: 'following-up',
      awaiting: { cronJobs: ['data/nightly-backup'] },
    });
  });

  it('manual Resolve closes the thread once; it stays closed while it fires, and a recurrence after it cleared opens a new thread', async () => {
    await submit();
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    const actions = createIncidentActions(deps);
    expect((await actions.resolve(KEY, 'U1', clock.now())).status).toBe('done');
    expect((await actions.resolve(KEY, 'U1', clock.now())).status).toBe('already');
    expect(slack.replies(slack.roots()[0]!.ts).filter((m) => m.text.startsWith('Resolved'))).toHaveLength(1);
    // Firing on, even with new members: silence, and nothing in /rwx status.
    expect(await submit([rolloutIncident([{ node: 'node-50', pod: 'x' }])])).toEqual([]);
    expect(slack.roots()).toHaveLength(1);
    // The cluster stops reporting it: the record is closed, with nothing more said in the thread.
    const before = slack.messages.length;
    expect(await submit([])).toEqual([{ key: KEY, delayMs: 0 }]);
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'done', steps: ['close'] });
    expect(await deps.store.listOpen()).toEqual([]);
    expect(slack.messages).toHaveLength(before);
    // It comes back later: a new incident, a new thread.
    clock.advance(H);
    expect(await submit()).toEqual([{ key: KEY, delayMs: 30 * S }]);
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    expect(slack.roots()).toHaveLength(2);
  });

  it('manual Resolve of an incident the cluster already cleared: its job closes the record', async () => {
    await submit();
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    await submit([]); // cleared; its job has not run yet
    expect((await createIncidentActions(deps).resolve(KEY, 'U1', clock.now())).status).toBe('done');
    // The job that runs after the click (the notifier enqueues it) closes the record.
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'done', steps: ['close'] });
    expect(await deps.store.listOpen()).toEqual([]);
    expect(slack.replies(slack.roots()[0]!.ts).filter((m) => m.text.startsWith('Resolved'))).toHaveLength(1);
  });

  it('an incident that comes back after an automatic resolution opens a new thread', async () => {
    await submit();
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    await submit([]);
    await processIncident(deps, KEY);
    clock.advance(M);
    expect(await submit()).toEqual([{ key: KEY, delayMs: 30 * S }]);
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    expect(slack.roots()).toHaveLength(2);
  });

  it('a crash after Slack accepted the root but before it was recorded never makes a second root', async () => {
    // The post reaches Slack, then the process "dies" (the call throws) before the record is written.
    let crash = true;
    const crashing = losingAnswers(slack, (a) => crash && a.metadata !== undefined);
    const d = { ...deps, slack: crashing };
    await submit();
    clock.advance(30 * S);
    await expect(processIncident(d, KEY)).rejects.toMatchObject({ code: 'SLACK_API' });
    expect((await deps.store.get(KEY))?.lifecycle.phase).toBe('posting-root');
    expect(tsOf(await deps.store.get(KEY))).toBeUndefined();
    crash = false;
    await processIncident(d, KEY);
    expect(slack.roots()).toHaveLength(1);
    expect(tsOf(await deps.store.get(KEY))).toBe(slack.roots()[0]!.ts);
    // Every attempt looks first (the first one too: a record lost with Redis leaves the root in Slack).
    expect(slack.calls.filter((c) => c.method === 'findRootByIncidentKey')).toHaveLength(2);
  });

  it('a failed Slack call records nothing: the retry starts from the same record', async () => {
    await submit();
    clock.advance(30 * S);
    slack.failNext('postMessage', new RwxError('SLACK_RATE_LIMITED', 'rate limited', { retryAfterSeconds: 3 }));
    await expect(processIncident(deps, KEY)).rejects.toMatchObject({
      code: 'SLACK_RATE_LIMITED',
      retryAfterSeconds: 3,
    });
    expect(tsOf(await deps.store.get(KEY))).toBeUndefined();
    await processIncident(deps, KEY);
    expect(slack.roots()).toHaveLength(1);
  });

  it('a root deleted in Slack is posted again on the next change', async () => {
    await submit();
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    slack.remove(slack.roots()[0]!.ts);
    clock.advance(5 * M);
    await submit([rolloutIncident([{ node: 'node-50', pod: 'x' }])]);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['update', 'post-root', 'post-evidence'] });
    expect(slack.roots()).toHaveLength(1);
    expect(tsOf(await deps.store.get(KEY))).toBe(slack.roots()[0]!.ts);
  });

  it('the lock keeps a second worker out while one posts', async () => {
    await submit();
    clock.advance(30 * S);
    const token = await deps.store.tryLock(KEY, 30 * S);
    expect(await processIncident(deps, KEY)).toEqual({ kind: 'locked' });
    await deps.store.unlock(KEY, token!);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['post-root', 'post-evidence'] });
  });
});
