// Reconciling the records with the channel after Redis was away (src/notify/reconcile.ts), on the in-memory fakes:
// every open root is redrawn from its record without a reply, every open record's job runs, and a change the
// redraw already shows still gets its change reply from the job.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { RwxError } from '../../src/errors.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { reconcile } from '../../src/notify/reconcile.js';
import { type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import type { Incident } from '../../src/domain/incident.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { KEY, M, S, stageDeps } from './harness.js';

let clock: ManualClock;
let slack: MemorySlack;
let deps: StepDeps;
let enqueued: string[];
const enqueue = async (key: string): Promise<void> => void enqueued.push(key);
const submit = (incidents: Incident[]) =>
  recordEvaluation({ store: deps.store, channel: 'C1', groupWait: DEFAULT_TIMERS.groupWait }, incidents, clock.now());
const text = (m: { blocks?: unknown[] } | undefined): string => JSON.stringify(m?.blocks ?? []);

beforeEach(async () => {
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  deps = stageDeps(clock, slack);
  enqueued = [];
  await submit([rolloutIncident()]);
  clock.advance(30 * S);
  await processIncident(deps, KEY); // root and evidence posted: open
});

describe('reconcile', () => {
  it('redraws an open root from its record, posts nothing, and runs every open job; the change reply still comes', async () => {
    const other = { ...rolloutIncident(), key: 'node/node-7' }; // a second incident, still pending
    await submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }]), other]);
    const root = slack.roots()[0]!;
    const replies = slack.replies(root.ts).length;
    expect(text(root)).not.toContain('Stuck on 5 nodes');

    expect(await reconcile(deps, enqueue)).toEqual({ redrawn: [KEY], enqueued: 2 });
    expect(enqueued.sort()).toEqual([KEY, 'node/node-7'].sort());
    expect(root.edits).toBe(1);
    expect(text(root)).toContain('Stuck on 5 nodes');
    expect(slack.replies(root.ts)).toHaveLength(replies);
    expect(slack.roots()).toHaveLength(1);

    clock.advance(5 * M); // group_interval after the last notification: the change is told
    await processIncident(deps, KEY);
    expect(slack.replies(root.ts).map((m) => m.text)).toContainEqual(expect.stringMatching(/Changed/));
  });

  it('leaves a root whose lock a worker holds to that worker, and still runs its job', async () => {
    const token = await deps.store.tryLock(KEY, 30 * S, 'another-replica');
    expect(token).toBeDefined();
    expect(await reconcile(deps, enqueue)).toEqual({ redrawn: [], enqueued: 1 });
    expect(enqueued).toEqual([KEY]);
    expect(slack.roots()[0]!.edits).toBe(0);
  });

  it('a root Slack refuses to edit (rate limit, API error) is left to its job; Redis errors are thrown', async () => {
    slack.failNext('update', new RwxError('SLACK_RATE_LIMITED', 'chat.update: rate limited', { retryAfterSeconds: 3 }));
    expect(await reconcile(deps, enqueue)).toEqual({ redrawn: [], enqueued: 1 });
    expect(enqueued).toEqual([KEY]);
    const store = Object.assign(Object.create(deps.store) as typeof deps.store, {
      listOpen: () => Promise.reject(new Error('ECONNREFUSED')),
    });
    const broken = { ...deps, store };
    await expect(reconcile(broken, enqueue)).rejects.toThrow('ECONNREFUSED');
  });
});
