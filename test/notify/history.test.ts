// mergeHistory: every member kept as first seen, bounded, and "unchanged" when nothing new was seen.
import { describe, expect, it } from 'vitest';
import { MAX_HISTORY_MEMBERS, mergeHistory } from '../../src/domain/history.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';

describe('mergeHistory', () => {
  it.each([
    // the same incident again (ages moved on by less than a minute): nothing to write
    [
      'same members',
      () => {
        const i = rolloutIncident();
        i.pods.forEach((p) => (p.stuckSeconds += 30));
        return i;
      },
      false,
    ],
    // ages moved on by a minute: the cluster-time end is written
    [
      'a minute later',
      () => {
        const i = rolloutIncident();
        i.pods.forEach((p) => (p.stuckSeconds += 60));
        return i;
      },
      true,
    ],
    // a new pod on a new node joins
    ['a new member', () => rolloutIncident([{ node: 'node-50', pod: 'search-new' }]), true],
    // the CronJob missed one more run
    [
      'more missed runs',
      () => {
        const i = rolloutIncident();
        i.cronJobs[0]!.missedRuns = 3;
        return i;
      },
      true,
    ],
  ])('%s', (_name, next, changed) => {
    const first = mergeHistory(undefined, rolloutIncident(), FIXTURE_NOW).history;
    const res = mergeHistory(first, next(), FIXTURE_NOW + 1000);
    expect(res.changed).toBe(changed);
    if (!changed) expect(res.history).toBe(first);
  });

  it('keeps a replaced pod as first seen (its first uid), and members that left', () => {
    const a = rolloutIncident();
    a.pods[0]!.pod.uid = 'uid-1';
    let h = mergeHistory(undefined, a, FIXTURE_NOW).history;
    const b = rolloutIncident();
    b.pods = [b.pods[0]!];
    b.pods[0]!.pod.uid = 'uid-2';
    b.cronJobs = [];
    h = mergeHistory(h, b, FIXTURE_NOW + 60_000).history;
    expect(h.pods.find((p) => p.pod === 'platform/postgres-2')?.uid).toBe('uid-1');
    expect(h.pods).toHaveLength(4);
    expect(h.cronJobs).toEqual([
      {
        cronJob: 'data/nightly-backup',
        schedule: '0 2 * * *',
        missedRuns: 2,
        lastSuccessfulTime: '2026-11-28T02:04:00Z',
        firstSeen: FIXTURE_NOW,
      },
    ]);
    expect(h.peak).toMatchObject({ pods: 4, nodes: 4, cronJobs: 1 });
  });

  it('is bounded: members past the limit are counted, the CronJob is kept', () => {
    const big = rolloutIncident(Array.from({ length: 700 }, (_, i) => ({ node: `n${i}`, pod: `p${i}` })));
    const h = mergeHistory(undefined, big, FIXTURE_NOW).history;
    expect(h.pods.length + h.cronJobs.length).toBe(MAX_HISTORY_MEMBERS);
    expect(h.cronJobs).toHaveLength(1);
    expect(h.omittedPods).toBe(704 - 499);
    expect(h.nodes).toHaveLength(500);
    expect(h.omittedNodes).toBe(204);
    // Seeing the same overflow again does not count it twice.
    expect(mergeHistory(h, big, FIXTURE_NOW).changed).toBe(false);
  });
});
