// The notifier's observer hook (metrics): told once per root that reached Slack and was recorded (also when a retry
// adopts the root an interrupted attempt posted), never for an edit, and unable to break a post by throwing.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { Incident } from '../../src/domain/incident.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { type NotifierObserver, type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { KEY, M, S, losingAnswers, stageDeps } from './harness.js';

let clock: ManualClock;
let slack: MemorySlack;
let posted: { key: string; verdict: string; now: number }[];
let deps: StepDeps;
const observer: NotifierObserver = {
  rootPosted: (i, now) => posted.push({ key: i.key, verdict: i.verdict, now }),
};

const submit = (incidents: Incident[] = [rolloutIncident()]) =>
  recordEvaluation({ store: deps.store, channel: 'C1', groupWait: DEFAULT_TIMERS.groupWait }, incidents, clock.now());

beforeEach(() => {
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  posted = [];
  deps = { ...stageDeps(clock, slack), observer };
});

describe('notifier observer', () => {
  it('hears of the root once, when it is posted, not of the edit that follows', async () => {
    await submit();
    await processIncident(deps, KEY);
    expect(posted).toEqual([]); // still in group_wait
    clock.advance(30 * S);
    await processIncident(deps, KEY);
    expect(posted).toEqual([{ key: KEY, verdict: 'FOLLOWS_ROLLOUT', now: FIXTURE_NOW + 30 * S }]);
    await submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])]);
    clock.advance(5 * M);
    expect(await processIncident(deps, KEY)).toMatchObject({ steps: ['update'] });
    expect(posted).toHaveLength(1);
  });

  it('counts a root adopted after a crash between Slack and the record once, when the retry records it', async () => {
    let crash = true;
    const crashing = losingAnswers(slack, (a) => crash && a.metadata !== undefined);
    const d = { ...deps, slack: crashing };
    await submit();
    clock.advance(30 * S);
    await expect(processIncident(d, KEY)).rejects.toMatchObject({ code: 'SLACK_API' });
    expect(posted).toEqual([]); // in Slack, but not recorded: not yet
    crash = false;
    await processIncident(d, KEY);
    expect(slack.roots()).toHaveLength(1);
    expect(posted).toHaveLength(1);
  });

  it('a throwing observer does not fail the post', async () => {
    const d = {
      ...deps,
      observer: {
        rootPosted: () => {
          throw new Error('boom');
        },
      },
    };
    await submit();
    clock.advance(30 * S);
    await expect(processIncident(d, KEY)).resolves.toMatchObject({ steps: ['post-root', 'post-evidence'] });
    expect(slack.roots()).toHaveLength(1);
    expect((await deps.store.get(KEY))?.lifecycle.phase).toBe('open');
  });
});
