// ClusterWatcher + Reflector against the in-memory FakeClusterSource: listing, events, 410, the watchdog,
// backoff, and reporting an outage once.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { KubeObject } from '../../src/domain/objects.js';
import { RwxError } from '../../src/errors.js';
import { FakeClusterSource } from '../support/fake-source.js';
import { ManualTimers } from '../../src/watch/timers.js';
import { ClusterWatcher, type WatchLog } from '../../src/watch/watcher.js';

const flush = () => new Promise<void>((r) => setImmediate(r));

function pod(name: string, phase = 'Pending'): KubeObject {
  return { kind: 'Pod', metadata: { name, namespace: 'ns', uid: `uid-${name}` }, status: { phase } };
}

function setup(kinds: ('pods' | 'nodes')[] = ['pods']) {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const timers = new ManualTimers(clock);
  const source = new FakeClusterSource();
  const lines: { level: string; msg: string }[] = [];
  const log: WatchLog = {
    info: (_o, msg) => lines.push({ level: 'info', msg }),
    warn: (_o, msg) => lines.push({ level: 'warn', msg }),
  };
  const restarts: string[] = [];
  const w = new ClusterWatcher({
    source,
    kinds,
    clock,
    timers,
    log,
    metrics: { restart: (k, r) => restarts.push(`${k}:${r}`), apiReachable: () => undefined, event: () => undefined },
    reflector: { stallMs: 60_000, backoffInitialMs: 1000, backoffMaxMs: 8000, pageSize: 2 },
  });
  return { clock, timers, source, w, lines, restarts };
}

function drain(w: ClusterWatcher): string[] {
  const out: string[] = [];
  for (let k = w.queue.get(); k !== undefined; k = w.queue.get()) {
    out.push(k);
    w.queue.done(k);
  }
  return out;
}

describe('ClusterWatcher', () => {
  it('lists across pages, syncs, then applies watch events and enqueues pod keys', async () => {
    const { source, w } = setup();
    for (const n of ['a', 'b', 'c']) source.apply('pods', 'ADDED', pod(n));
    w.start();
    await flush();
    expect(w.synced()).toBe(true);
    expect(w.index.count('pods')).toBe(3);
    expect(drain(w).sort()).toEqual(['pod:ns/a', 'pod:ns/b', 'pod:ns/c']);
    source.apply('pods', 'MODIFIED', pod('a', 'Running'));
    source.apply('pods', 'DELETED', pod('b'));
    expect(w.index.get('pods', 'ns/a')?.status?.phase).toBe('Running');
    expect(w.index.get('pods', 'ns/b')).toBeUndefined();
    expect(drain(w)).toEqual(['pod:ns/a', 'pod:ns/b']);
    w.stop();
  });

  it('projects each list page as it arrives, and asks for the next before the page in hand is indexed', async () => {
    const source = new FakeClusterSource();
    for (const n of ['a', 'b', 'c', 'd', 'e']) source.apply('pods', 'ADDED', pod(n));
    const projectedAt: Record<string, number> = {};
    const indexedAt: Record<string, number> = {};
    const index = new ClusterIndex();
    const upsert = index.upsert.bind(index);
    index.upsert = (kind, obj) => {
      indexedAt[obj.metadata?.name ?? ''] = source.calls.list;
      upsert(kind, obj);
    };
    const w = new ClusterWatcher({
      source,
      index,
      kinds: ['pods'],
      reflector: { pageSize: 2 },
      project: (_k, o) => {
        projectedAt[o.metadata?.name ?? ''] = source.calls.list;
        return { ...o, projected: true } as KubeObject;
      },
    });
    w.start();
    await flush();
    expect(w.synced()).toBe(true);
    // Pages [a b] [c d] [e]: a page is projected when it arrives, so a page that waits for the consumer waits
    // small; it is indexed once the next page has been asked for (the server prepares it meanwhile).
    expect(projectedAt).toEqual({ a: 1, b: 1, c: 2, d: 2, e: 3 });
    expect(indexedAt).toEqual({ a: 2, b: 2, c: 3, d: 3, e: 3 });
    expect(w.index.get('pods', 'ns/a')).toMatchObject({ projected: true });
    w.stop();
  });

  it('relists after 410 and drops objects deleted while the watch was gone', async () => {
    const { source, w, restarts } = setup();
    source.apply('pods', 'ADDED', pod('a'));
    source.apply('pods', 'ADDED', pod('b'));
    w.start();
    await flush();
    source.stallWatches(); // miss the delete below...
    source.apply('pods', 'DELETED', pod('a'));
    source.compact(); // ...and then the history is gone: 410
    await flush();
    expect(restarts).toContain('pods:gone');
    expect(source.calls.list).toBe(2); // the first list, then the relist
    expect(w.index.get('pods', 'ns/a')).toBeUndefined();
    expect(w.index.get('pods', 'ns/b')).toBeDefined();
    w.stop();
  });

  it('the watchdog restarts a silent watch and the new watch replays what was missed', async () => {
    const { source, w, timers, restarts } = setup();
    w.start();
    await flush();
    source.stallWatches();
    source.apply('pods', 'ADDED', pod('late'));
    expect(w.index.get('pods', 'ns/late')).toBeUndefined();
    timers.advance(59_000);
    expect(w.tick()).toBe(0); // not yet silent for stallMs
    timers.advance(1_000);
    expect(w.tick()).toBe(1);
    await flush();
    expect(restarts).toEqual(['pods:stalled']);
    expect(w.index.get('pods', 'ns/late')).toBeDefined();
    w.stop();
  });

  it('a relisted kind stays stalled until its new watch streams: the cache is fresh, the watch not yet proven', async () => {
    const { source, w, timers } = setup();
    w.start();
    await flush();
    source.stallWatches();
    timers.advance(60_000);
    expect(w.stalled()).toEqual([{ kind: 'pods', silentMs: 60_000 }]); // silent: readiness says so at once
    w.tick();
    await flush();
    expect(w.stalled()).toEqual([{ kind: 'pods', silentMs: 60_000 }]);
    expect(w.current()).toBe(true); // the relist is a current view: answers may use it
    w.tick();
    expect(w.index.readable('pods')).toBe(true);
    source.bookmark('pods'); // the new watch is heard from
    expect(w.stalled()).toEqual([]);
    w.stop();
  });

  it('silent and then unanswered: unreadable as silent, then as the API unreachable; readable once listed', async () => {
    const { source, w, timers, lines } = setup();
    w.start();
    await flush();
    source.stallWatches();
    source.hangLists = true; // a blackhole: the open watch says nothing, the relist is never answered
    timers.advance(60_000);
    w.tick();
    await flush();
    expect(w.index.unreadable).toEqual([{ kind: 'pods', reason: 'watch silent: no event or bookmark for 60s' }]);
    expect(w.current()).toBe(false);
    timers.advance(15_000); // the list timeout
    await flush();
    expect(w.reachable()).toBe(false);
    expect(w.index.unreadable[0]?.reason).toMatch(/^API server unreachable: list pods: no answer .* within 15s/);
    expect(lines.map((l) => l.msg)).toContain(
      'Kubernetes API unreachable; retrying with backoff (logged once until it answers)',
    );
    source.hangLists = false;
    timers.advance(1_000); // the first backoff
    await flush();
    w.tick();
    expect(w.reachable()).toBe(true);
    expect(w.index.unreadable).toEqual([]);
    expect(w.current()).toBe(true);
    w.stop();
  });

  it('a bookmark counts as life: no watchdog restart', async () => {
    const { source, w, timers } = setup();
    w.start();
    await flush();
    timers.advance(50_000);
    source.bookmark('pods');
    timers.advance(50_000);
    expect(w.tick()).toBe(0);
    w.stop();
  });

  it('reports an outage once across kinds and retries, backs off, and recovers', async () => {
    const { source, w, timers, lines } = setup(['pods', 'nodes']);
    source.failWith = new RwxError('KUBE_UNREACHABLE', 'cannot reach the API server (ECONNREFUSED)');
    w.start();
    await flush();
    expect(w.reachable()).toBe(false);
    for (let i = 0; i < 5; i++) {
      timers.advance(8_000);
      await flush();
    }
    expect(source.calls.list).toBeGreaterThanOrEqual(10); // both kinds kept retrying
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(w.synced()).toBe(false);
    source.failWith = undefined;
    timers.advance(8_000);
    await flush();
    expect(w.synced()).toBe(true);
    expect(w.reachable()).toBe(true);
    expect(lines.filter((l) => l.msg.includes('reachable again'))).toHaveLength(1);
    w.stop();
  });

  it('backoff doubles up to the maximum between failed attempts', async () => {
    const { source, w, timers } = setup();
    source.failWith = new RwxError('KUBE_API', 'HTTP 500');
    w.start();
    await flush();
    const attempts: number[] = [];
    for (let t = 0; t < 40; t++) {
      timers.advance(500);
      await flush();
      attempts.push(source.calls.list);
    }
    // attempts at 0s, then after 1s, 2s, 4s, 8s (capped): at 0, 1, 3, 7, 15 -> 5 lists within 20s
    expect(source.calls.list).toBe(5);
    w.stop();
  });

  it('a normal server-side close rewatches from the last resourceVersion without relisting', async () => {
    const { source, w, timers, restarts } = setup();
    source.apply('pods', 'ADDED', pod('a'));
    w.start();
    await flush();
    const lists = source.calls.list;
    timers.advance(5_000);
    source.closeWatches();
    await flush();
    expect(restarts).toEqual(['pods:closed']);
    expect(source.calls.list).toBe(lists);
    source.apply('pods', 'ADDED', pod('b'));
    expect(w.index.get('pods', 'ns/b')).toBeDefined();
    w.stop();
  });
});
