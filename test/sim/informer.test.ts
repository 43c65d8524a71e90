// Proof of fidelity: a @kubernetes/client-node informer (the production watch path) sees ADDED / MODIFIED /
// DELETED from the simulator, relists after a 410 Expired, and gets past the watch fault knobs as it would past a
// real API server's: a stream cut inside a chunk, an ERROR 410 event on an open watch.
import { describe, expect, test } from 'vitest';
import { CoreV1Api, KubeConfig, makeInformer, type V1Pod } from '@kubernetes/client-node';
import { testSim } from '../support/sim.js';
import { until } from '../support/until.js';
import { smallScenario } from './fixtures.js';

describe('client-node informer', () => {
  test('receives add, update and delete for timeline changes', async () => {
    const { sim } = await testSim(smallScenario());
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const inf = makeInformer<V1Pod>(kc, '/api/v1/namespaces/shop/pods', () =>
      core.listNamespacedPod({ namespace: 'shop' }),
    );
    const seen: string[] = [];
    inf.on('add', (p) => seen.push(`add ${p.metadata?.name}`));
    inf.on('update', (p) => seen.push(`update ${p.metadata?.name} ${p.status?.phase}`));
    inf.on('delete', (p) => seen.push(`delete ${p.metadata?.name}`));
    await inf.start();
    await until(() => seen.length === 4 && sim.audit.some((a) => a.verb === 'watch'), 'initial list and watch');
    await sim.advance(3 * 60_000);
    await until(() => seen.includes('add web-3'), 'three timeline steps');
    // Deleting a pod on a node is graceful: first marked (update), then gone (delete).
    expect(seen.slice(4)).toEqual(['update db-0 Running', 'update web-2 Running', 'delete web-2', 'add web-3']);
    await inf.stop();
  });

  test('relists after the watch gets 410 Expired, and catches up with what it missed', async () => {
    const { sim } = await testSim(smallScenario());
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const inf = makeInformer<V1Pod>(kc, '/api/v1/namespaces/shop/pods', () =>
      core.listNamespacedPod({ namespace: 'shop' }),
    );
    const deleted: string[] = [];
    let errors = 0;
    inf.on('delete', (p) => deleted.push(p.metadata?.name ?? ''));
    // The documented client-node pattern: restart the informer when its watch fails.
    let stopped = false;
    inf.on('error', () => {
      if (stopped) return;
      errors++;
      void inf.start();
    });
    await inf.start();
    await until(() => sim.audit.some((a) => a.verb === 'watch'), 'first watch');
    const lists = () => sim.audit.filter((a) => a.verb === 'list').length;
    expect(lists()).toBe(1);
    // Cut the stream, change something and compact history: the reconnect's resourceVersion is now too old.
    sim.faults.dropWatches();
    sim.apply({ delete: [{ kind: 'Pod', namespace: 'shop', name: 'web-1' }] });
    sim.compact();
    await until(() => lists() === 2 && deleted.includes('web-1'), 'relist after 410');
    expect(errors).toBe(1);
    // Watch 1 was dropped, watch 2 (old resourceVersion) got 410, watch 3 follows the relist.
    await until(() => sim.audit.filter((a) => a.verb === 'watch').length === 3, 'third watch');
    expect(
      inf
        .list()
        .map((p) => p.metadata?.name)
        .sort(),
    ).toEqual(['db-0', 'web-0', 'web-2']);
    stopped = true;
    await inf.stop();
  });

  /** An informer on shop pods that restarts when its watch fails (the documented client-node pattern). */
  async function restartingInformer(sim: Awaited<ReturnType<typeof testSim>>['sim']) {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const core = kc.makeApiClient(CoreV1Api);
    const inf = makeInformer<V1Pod>(kc, '/api/v1/namespaces/shop/pods', () =>
      core.listNamespacedPod({ namespace: 'shop' }),
    );
    const state = { errors: 0, stopped: false, deleted: [] as string[] };
    inf.on('delete', (p) => state.deleted.push(p.metadata?.name ?? ''));
    inf.on('error', () => {
      if (state.stopped) return;
      state.errors++;
      void inf.start();
    });
    await inf.start();
    await until(() => sim.audit.some((a) => a.verb === 'watch'), 'first watch');
    const stop = async () => {
      state.stopped = true;
      await inf.stop();
    };
    return { inf, state, stop };
  }

  test('a change cut inside its chunk is not lost: the informer re-watches and gets it', async () => {
    const { sim } = await testSim(smallScenario());
    const { state, stop } = await restartingInformer(sim);
    sim.faults.cutWatches();
    sim.apply({ delete: [{ kind: 'Pod', namespace: 'jobs', name: 'batch-0' }] }); // another namespace: not cut
    sim.apply({ delete: [{ kind: 'Pod', namespace: 'shop', name: 'web-1' }] });
    await until(() => state.deleted.includes('web-1'), 'the change after the cut');
    expect(state.errors).toBeGreaterThanOrEqual(1);
    await stop();
  });

  test('an ERROR 410 event on the open watch makes it relist', async () => {
    const { sim } = await testSim(smallScenario());
    const { state, stop } = await restartingInformer(sim);
    const lists = () => sim.audit.filter((a) => a.verb === 'list').length;
    sim.faults.expireWatches();
    await until(() => lists() === 2, 'a relist');
    expect(state.errors).toBe(0); // client-node relists on a 410 ERROR event by itself, without reporting an error
    await stop();
  });
});
