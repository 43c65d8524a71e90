// The follow-up's pure parts: how long a resolved incident waits for its CronJobs, and which are done now.
import { describe, expect, it } from 'vitest';
import type { CronJob } from '../../src/domain/objects.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import { awaitingFrom, newlyDone } from '../../src/notify/follow-up.js';
import type { IncidentHistory } from '../../src/domain/history.js';
import type { ObserveResolution, ResolutionFacts } from '../../src/domain/resolution.js';
import { ManualClock } from '../../src/domain/clock.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { MemoryIncidentStore } from '../support/memory-store.js';
import { observeResolution } from '../../src/pipeline/resolution.js';
import { H, record } from './harness.js';

const NOW = Date.parse('2026-11-30T09:20:00Z');
const facts = (...cronJobs: ResolutionFacts['cronJobs']): ResolutionFacts => ({ recovered: [], deleted: [], cronJobs });

describe('awaitingFrom', () => {
  it.each<[string, ResolutionFacts['cronJobs'], number | undefined]>([
    [
      'nothing awaited when every CronJob completed, is gone or was not checked',
      [
        { cronJob: 'a/done', completedSince: true },
        { cronJob: 'a/gone', completedSince: false, gone: true },
        { cronJob: 'a/unchecked' },
      ],
      undefined,
    ],
    [
      'next scheduled run plus two hours',
      [{ cronJob: 'a/nightly', completedSince: false, nextRunAt: '2026-12-01T02:00:00Z' }],
      Date.parse('2026-12-01T04:00:00Z'),
    ],
    [
      'the latest of several',
      [
        { cronJob: 'a/hourly', completedSince: false, nextRunAt: '2026-11-30T10:00:00Z' },
        { cronJob: 'a/nightly', completedSince: false, nextRunAt: '2026-12-01T02:00:00Z' },
      ],
      Date.parse('2026-12-01T04:00:00Z'),
    ],
    ['no known next run (suspended): 26 hours', [{ cronJob: 'a/suspended', completedSince: false }], NOW + 26 * H],
    [
      'at least an hour',
      [{ cronJob: 'a/every-minute', completedSince: false, nextRunAt: '2026-11-30T08:00:00Z' }],
      NOW + H,
    ],
    [
      'at most eight days',
      [{ cronJob: 'a/monthly', completedSince: false, nextRunAt: '2026-12-31T00:00:00Z' }],
      NOW + 8 * 24 * H,
    ],
  ])('%s', (_name, cronJobs, until) => {
    const p = awaitingFrom(facts(...cronJobs), NOW);
    expect(p?.until).toBe(until);
    if (until !== undefined)
      expect(p?.cronJobs).toEqual(cronJobs.filter((c) => c.completedSince === false).map((c) => c.cronJob));
  });
});

describe('newlyDone', () => {
  const awaiting = ['a/x', 'a/y'];
  it('names the awaited CronJobs that completed or went, once', () => {
    const seen = facts(
      { cronJob: 'a/x', completedSince: true, at: '2026-12-01T02:07:00Z' },
      { cronJob: 'a/y', completedSince: false },
      { cronJob: 'a/other', completedSince: true },
    );
    expect(newlyDone(awaiting, undefined, seen)).toEqual([{ cronJob: 'a/x', at: '2026-12-01T02:07:00Z' }]);
    expect(newlyDone(awaiting, [{ cronJob: 'a/x', at: '2026-12-01T02:07:00Z' }], seen)).toBeUndefined();
    expect(newlyDone(awaiting, undefined, facts({ cronJob: 'a/y', completedSince: false, gone: true }))).toEqual([
      { cronJob: 'a/y', gone: true },
    ]);
    expect(newlyDone([], undefined, seen)).toBeUndefined();
    expect(newlyDone(awaiting, undefined, undefined)).toBeUndefined();
  });
});

describe('observeResolution: the next scheduled run of a CronJob that has not completed one', () => {
  const cj = (spec: Record<string, unknown>): CronJob =>
    ({
      metadata: { namespace: 'data', name: 'backup' },
      spec,
      status: { lastSuccessfulTime: '2026-11-28T02:04:00Z' },
    }) as CronJob;
  const history: IncidentHistory = {
    pods: [],
    nodes: [],
    omittedPods: 0,
    omittedCronJobs: 0,
    omittedNodes: 0,
    peak: { pods: 0, nodes: 0, cronJobs: 0, summary: '' },
    cronJobs: [
      {
        cronJob: 'data/backup',
        schedule: '0 2 * * *',
        missedRuns: 2,
        firstSeen: NOW,
        lastSuccessfulTime: '2026-11-28T02:04:00Z',
      },
    ],
  };
  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['daily at 02:00', { schedule: '0 2 * * *' }, '2026-12-01T02:00:00.000Z'],
    ['in its time zone', { schedule: '0 2 * * *', timeZone: 'Europe/Berlin' }, '2026-12-01T01:00:00.000Z'],
    ['suspended: none', { schedule: '0 2 * * *', suspend: true }, undefined],
    ['invalid schedule: none', { schedule: 'every night' }, undefined],
  ])('%s', (_name, spec, next) => {
    const index = ClusterIndex.fromSnapshot(emptySnapshot());
    index.upsert('cronJobs', cj(spec));
    const [c] = observeResolution(index)(history, NOW).cronJobs;
    expect(c?.completedSince).toBe(false);
    expect(c?.nextRunAt).toBe(next);
  });

  it('asked only about completion (every evaluation while waiting): no next run, no pods', () => {
    const index = ClusterIndex.fromSnapshot(emptySnapshot());
    index.upsert('cronJobs', cj({ schedule: '0 2 * * *' }));
    const withPod: IncidentHistory = {
      ...history,
      pods: [
        {
          pod: 'data/backup-1',
          kind: 'stuck-creating',
          workload: { kind: 'Job', namespace: 'data', name: 'backup' },
          since: '2026-11-30T08:00:00Z',
        },
      ],
    };
    const facts = observeResolution(index)(withPod, NOW, true);
    expect(facts.cronJobs).toEqual([{ cronJob: 'data/backup', completedSince: false }]);
    expect([...facts.recovered, ...facts.deleted, ...(facts.notRunning ?? []), ...(facts.terminated ?? [])]).toEqual(
      [],
    );
    expect(observeResolution(index)(withPod, NOW).deleted).toEqual(['data/backup-1']);
  });
});

describe('the evaluator while a resolved incident waits for a CronJob', () => {
  it('asks the cluster only about completion, and writes nothing while nothing is done', async () => {
    const store = new MemoryIncidentStore(new ManualClock(NOW));
    const r = record({ key: 'k' });
    await store.create({
      ...r,
      observed: { ...r.observed, cleared: { at: NOW } },
      lifecycle: {
        phase: 'following-up',
        threadTs: '1.1',
        resolution: { at: NOW },
        awaiting: { cronJobs: ['data/backup'], until: NOW + H },
      },
    });
    const asked: (boolean | undefined)[] = [];
    const observe: ObserveResolution = (_h, _now, completionOnly) => {
      asked.push(completionOnly);
      return facts({ cronJob: 'data/backup', completedSince: false });
    };
    expect(await recordEvaluation({ store, channel: 'C', groupWait: 0, observe }, [], NOW)).toEqual({
      jobs: [],
      kept: [],
    });
    expect(asked).toEqual([true]);
    expect((await store.get('k'))?.observed.cronJobsDone).toBeUndefined();
  });
});
