// One contract, two adapters: the FakeClusterSource used by unit tests and benchmarks must behave like the real
// KubeClusterSource against the API simulator for everything the reflector relies on.
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { KubeObject } from '../../src/domain/objects.js';
import { connect } from '../../src/kube/index.js';
import { parseScenario, startSimulator, type Simulator } from '@rwx/kube-sim';
import { FakeClusterSource } from '../support/fake-source.js';
import { KubeClusterSource } from '../../src/watch/kube-source.js';
import type { ClusterSource, WatchEventType } from '../../src/watch/source.js';
import { until } from '../support/until.js';

const node = (name: string): KubeObject => ({ kind: 'Node', metadata: { name } });

interface Subject {
  source: ClusterSource;
  add(obj: KubeObject): void;
  compact(): void;
}

const sims: Simulator[] = [];
afterAll(async () => {
  for (const s of sims) await s.stop();
});

const subjects: [string, () => Promise<Subject>][] = [
  [
    'fake',
    async () => {
      const f = new FakeClusterSource();
      for (const n of ['n1', 'n2', 'n3']) f.apply('nodes', 'ADDED', node(n));
      return { source: f, add: (o) => f.apply('nodes', 'ADDED', o), compact: () => f.compact() };
    },
  ],
  [
    'kube over the simulator',
    async () => {
      const sim = await startSimulator({
        scenario: parseScenario({ name: 'c', objects: ['n1', 'n2', 'n3'].map(node) }),
        clock: new ManualClock(Date.parse('2026-01-01T00:00:00Z')),
      });
      sims.push(sim);
      const conn = await connect({ kubeconfig: sim.kubeconfigPath, env: {} });
      return { source: new KubeClusterSource(conn), add: (o) => sim.apply({ add: [o] }), compact: () => sim.compact() };
    },
  ],
];

async function collect(
  source: ClusterSource,
  rv: string,
  enough: (evs: { type: WatchEventType; name?: string; code?: number }[]) => boolean,
) {
  const evs: { type: WatchEventType; name?: string; code?: number }[] = [];
  let done = false;
  const h = source.watch(
    'nodes',
    { resourceVersion: rv },
    {
      onEvent: (type, o) =>
        evs.push({
          type,
          ...(o.metadata?.name ? { name: o.metadata.name } : {}),
          ...(typeof o.code === 'number' ? { code: o.code } : {}),
        }),
      onDone: () => (done = true),
    },
  );
  try {
    await until(() => enough(evs) || done, 'the watch events', 2_000);
  } finally {
    h.abort();
  }
  return evs;
}

describe.each(subjects)('ClusterSource contract: %s', (_name, make) => {
  it('lists in pages with a continue token and a resourceVersion', async () => {
    const s = await make();
    const p1 = await s.source.list('nodes', { limit: 2 });
    expect(p1.items).toHaveLength(2);
    expect(p1.continueToken).toBeTruthy();
    const p2 = await s.source.list('nodes', { limit: 2, continueToken: p1.continueToken! });
    expect(p2.items.map((o) => o.metadata?.name)).toEqual(['n3']);
    expect(p2.continueToken).toBeUndefined();
    expect(p1.resourceVersion).not.toBe('');
  });

  it('watches from a resourceVersion: later changes only', async () => {
    const s = await make();
    const { resourceVersion } = await s.source.list('nodes', { limit: 10 });
    s.add(node('n4'));
    const evs = await collect(s.source, resourceVersion, (e) => e.some((x) => x.name === 'n4'));
    expect(evs.filter((e) => e.type !== 'BOOKMARK')).toEqual([{ type: 'ADDED', name: 'n4' }]);
  });

  it('a compacted resourceVersion gets an ERROR event with code 410', async () => {
    const s = await make();
    const { resourceVersion } = await s.source.list('nodes', { limit: 10 });
    s.add(node('n5'));
    s.compact();
    const evs = await collect(s.source, resourceVersion, (e) => e.some((x) => x.type === 'ERROR'));
    expect(evs).toContainEqual({ type: 'ERROR', code: 410 });
  });
});
