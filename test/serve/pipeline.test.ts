// The pipeline over the fake source with the real detectors and a recording correlator: what reaches the
// notifier, when, and that only candidate pods are evaluated.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { Finding } from '../../src/domain/findings.js';
import type { Incident } from '../../src/domain/incident.js';
import type { KubeObject, Pod } from '../../src/domain/objects.js';
import { detectContext } from '../../src/detect/config.js';
import { detectCronJob, detectPod } from '../../src/detect/registry.js';
import { Pipeline, YIELD_EVERY, isCandidate, type Sync } from '../../src/pipeline/pipeline.js';
import { FakeClusterSource } from '../support/fake-source.js';
import { ManualTimers } from '../../src/watch/timers.js';
import { ClusterWatcher } from '../../src/watch/watcher.js';

const flush = () => new Promise<void>((r) => setImmediate(r));
const T0 = Date.parse('2026-01-01T06:40:00Z');

function creatingPod(name: string, scheduledMs: number, phase = 'Pending'): KubeObject {
  return {
    kind: 'Pod',
    metadata: { name, namespace: 'platform', uid: `uid-${name}` },
    spec: { nodeName: 'node-19', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `data-${name}` } }] },
    status: {
      phase,
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: new Date(scheduledMs).toISOString() }],
      containerStatuses: [
        { name: 'app', state: phase === 'Running' ? { running: {} } : { waiting: { reason: 'ContainerCreating' } } },
      ],
    },
  };
}

function setup() {
  const clock = new ManualClock(T0);
  const timers = new ManualTimers(clock);
  const source = new FakeClusterSource();
  const watcher = new ClusterWatcher({ source, kinds: ['pods', 'events', 'cronJobs', 'jobs'], clock, timers });
  const detected: string[] = [];
  const sync: Sync = {
    detectPod: (index, pod, now) => {
      detected.push(pod.metadata?.name ?? '');
      return detectPod(index, pod, detectContext(now));
    },
    detectCronJob: (index, cj, now) => detectCronJob(index, cj, detectContext(now)),
    // One pseudo-incident per finding: the pipeline's contract does not depend on the correlator's grouping.
    evaluate: (_index, findings: Finding[]) => findings.map((f) => ({ key: f.key }) as Incident),
  };
  const submitted: string[][] = [];
  const sink = { submit: async (incidents: Incident[]) => void submitted.push(incidents.map((i) => i.key)) };
  const pipeline = new Pipeline(watcher.index, watcher.queue, sync, sink, clock);
  return { clock, timers, source, watcher, pipeline, detected, submitted };
}

describe('isCandidate', () => {
  it.each([
    ['Pending pods can become stuck by time alone', { status: { phase: 'Pending' } }, true],
    ['Running pods cannot', { status: { phase: 'Running' } }, false],
    ['Succeeded pods cannot', { status: { phase: 'Succeeded' } }, false],
    [
      'a terminating Running pod can (stuck Terminating)',
      { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Running' } },
      true,
    ],
    ['a pod with no status yet can', {}, true],
  ])('%s', (_why, pod, want) => {
    expect(isCandidate(pod as Pod)).toBe(want);
  });
});

describe('Pipeline', () => {
  it('tick yields to the event loop between batches, so probes are answered during a long evaluation', async () => {
    const { source, watcher, pipeline, detected } = setup();
    const n = 3 * YIELD_EVERY + 1;
    for (let i = 0; i < n; i++) source.apply('pods', 'ADDED', creatingPod(`p-${i}`, T0));
    watcher.start();
    await flush();
    // A "probe" that runs on every turn of the event loop while tick works through the queued pods.
    let turns = 0;
    let done = false;
    const probe = (): void => {
      if (done) return;
      turns++;
      setImmediate(probe);
    };
    setImmediate(probe);
    await pipeline.tick();
    done = true;
    expect(new Set(detected).size).toBe(n); // every pod was evaluated...
    expect(turns).toBeGreaterThanOrEqual(3); // ...in batches, with the loop turning in between (not one block)
    watcher.stop();
  });

  it('finds a pod crossing stuckAfter on tick with no new event, and clears it when it runs', async () => {
    const { source, watcher, pipeline, timers, submitted } = setup();
    source.apply('pods', 'ADDED', creatingPod('postgres-2', T0));
    watcher.start();
    await flush();
    pipeline.processKeys();
    await pipeline.flush();
    expect(submitted.at(-1)).toEqual([]);
    timers.advance(5 * 60_000 + 1000);
    await pipeline.tick();
    expect(submitted.at(-1)).toEqual(['stuck-creating/platform/postgres-2']);
    source.apply('pods', 'MODIFIED', creatingPod('postgres-2', T0, 'Running'));
    pipeline.processKeys();
    await pipeline.flush();
    expect(submitted.at(-1)).toEqual([]);
    expect(pipeline.currentFindings()).toEqual([]);
    watcher.stop();
  });

  it('evaluates only the changed pod per event and never Running pods on tick', async () => {
    const { source, watcher, pipeline, detected } = setup();
    for (let i = 0; i < 50; i++) source.apply('pods', 'ADDED', creatingPod(`web-${i}`, T0, 'Running'));
    source.apply('pods', 'ADDED', creatingPod('pending-1', T0));
    watcher.start();
    await flush();
    pipeline.processKeys();
    detected.length = 0;
    source.apply('pods', 'MODIFIED', creatingPod('pending-1', T0));
    pipeline.processKeys();
    expect(detected).toEqual(['pending-1']);
    detected.length = 0;
    await pipeline.tick();
    expect(detected).toEqual(['pending-1']);
    watcher.stop();
  });

  it('a deleted pod loses its finding', async () => {
    const { source, watcher, pipeline, timers } = setup();
    source.apply('pods', 'ADDED', creatingPod('a', T0));
    watcher.start();
    await flush();
    timers.advance(6 * 60_000);
    await pipeline.tick();
    expect(pipeline.currentFindings()).toHaveLength(1);
    source.apply('pods', 'DELETED', creatingPod('a', T0));
    pipeline.processKeys();
    await pipeline.flush();
    expect(pipeline.currentFindings()).toHaveLength(0);
    expect(pipeline.current()).toEqual([]);
    watcher.stop();
  });
});

describe('Pipeline keep-firing', () => {
  // The window is the record's (src/notify/record.ts): the pipeline only holds what the sink kept open as open.
  it('an incident the sink keeps open though not reported is open for the correlator, until the sink lets it go', async () => {
    const clock = new ManualClock(T0);
    const source = new FakeClusterSource();
    const watcher = new ClusterWatcher({ source, kinds: ['pods'], clock, timers: new ManualTimers(clock) });
    let next: string[] = ['r'];
    let keep: string[] = [];
    const opened: string[][] = [];
    const sync: Sync = {
      detectPod: () => [],
      detectCronJob: () => undefined,
      evaluate: (_i, _f, _now, open) => {
        opened.push([...open].sort());
        return next.map((key) => ({ key }) as Incident);
      },
    };
    const sink = { submit: async () => ({ kept: keep.map((key) => ({ key }) as Incident) }) };
    const pipeline = new Pipeline(watcher.index, watcher.queue, sync, sink, clock);
    await pipeline.tick();
    next = [];
    keep = ['r'];
    await pipeline.tick(); // r is not reported: the sink keeps it
    await pipeline.tick(); // ...so the next pass holds it open
    keep = [];
    await pipeline.tick(); // the window is over: let go
    await pipeline.tick();
    expect(opened).toEqual([[], ['r'], ['r'], ['r'], []]);
    expect(pipeline.openKeys()).toEqual(new Set());
  });
});

describe('Pipeline before every kind is listed', () => {
  it('detects again once ready: a finding made while a kind was missing never reaches the notifier', async () => {
    const { clock, source, watcher } = setup();
    let ready = false;
    // The detector credits the pod to its CronJob only when the pod's Job is in the cache (as owner.ts does).
    const sync: Sync = {
      detectPod: (index, pod) => {
        const owner = index.get('jobs', 'platform/backup-1') ? 'CronJob' : 'Job';
        return [{ key: `${pod.metadata?.name}@${owner}` } as Finding as never];
      },
      detectCronJob: () => undefined,
      evaluate: (_index, findings: Finding[]) => findings.map((f) => ({ key: f.key }) as Incident),
    };
    const submitted: string[][] = [];
    const sink = { submit: async (incidents: Incident[]) => void submitted.push(incidents.map((i) => i.key)) };
    const pipeline = new Pipeline(watcher.index, watcher.queue, sync, sink, clock, undefined, () => ready);
    source.apply('pods', 'ADDED', creatingPod('backup-1-x', T0));
    watcher.start();
    await flush();
    pipeline.processKeys();
    await pipeline.flush();
    expect(submitted).toEqual([]); // not ready: nothing correlated
    // The Job is listed (no event of the pod): the finding made before rests on a cache without it.
    source.apply('jobs', 'ADDED', { kind: 'Job', metadata: { name: 'backup-1', namespace: 'platform' } });
    await flush();
    ready = true;
    pipeline.processKeys();
    await pipeline.flush();
    expect(submitted).toEqual([['backup-1-x@CronJob']]);
  });
});
