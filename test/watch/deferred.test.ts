// While a reader holds the index (an evaluation that hands the event loop back: src/domain/holds.ts), the watcher
// applies no change to it and queues no work key; once released, every change is applied in arrival order.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/domain/objects.js';
import { ClusterWatcher } from '../../src/watch/watcher.js';
import { FakeClusterSource } from '../support/fake-source.js';

const flush = () => new Promise<void>((r) => setImmediate(r));

function pod(name: string, phase = 'Pending'): KubeObject {
  return { kind: 'Pod', metadata: { name, namespace: 'ns', uid: `uid-${name}` }, status: { phase } };
}

const phases = (w: ClusterWatcher) => [...w.index.all('pods')].map((p) => `${p.metadata?.name}:${p.status?.phase}`);

async function started() {
  const source = new FakeClusterSource();
  source.apply('pods', 'ADDED', pod('a'));
  const w = new ClusterWatcher({ source, kinds: ['pods'] });
  w.start();
  await flush();
  for (let k = w.queue.get(); k !== undefined; k = w.queue.get()) w.queue.done(k); // the first list's keys
  return { source, w };
}

describe('ClusterWatcher while the index is held', () => {
  it('defers changes and their work keys until released, then applies them in order', async () => {
    const { source, w } = await started();
    const release = w.index.holds.hold();
    source.apply('pods', 'MODIFIED', pod('a', 'Running'));
    source.apply('pods', 'ADDED', pod('b'));
    source.apply('pods', 'MODIFIED', pod('b', 'Running'));
    await flush();
    expect(phases(w)).toEqual(['a:Pending']);
    expect(w.queue.length).toBe(0);
    release();
    await flush();
    expect(phases(w)).toEqual(['a:Running', 'b:Running']);
    expect(w.queue.length).toBe(2);
    w.stop();
  });

  it('replays on release, holds off again on the next hold, and applies at once when nothing is held or waiting', async () => {
    const { source, w } = await started();
    let release = w.index.holds.hold();
    for (let i = 0; i < 3; i++) source.apply('pods', 'MODIFIED', pod('a', `Phase${i}`));
    expect(phases(w)).toEqual(['a:Pending']);
    release();
    expect(phases(w)).toEqual(['a:Phase2']); // the last of the three, applied after the others
    release = w.index.holds.hold();
    source.apply('pods', 'MODIFIED', pod('a', 'Last'));
    await flush();
    expect(phases(w)).toEqual(['a:Phase2']);
    release();
    await flush();
    expect(phases(w)).toEqual(['a:Last']);
    source.apply('pods', 'MODIFIED', pod('a', 'Now'));
    expect(phases(w)).toEqual(['a:Now']);
    w.stop();
  });

  it('drops what waits when stopped', async () => {
    const { source, w } = await started();
    const release = w.index.holds.hold();
    source.apply('pods', 'MODIFIED', pod('a', 'Running'));
    w.stop();
    release();
    await flush();
    expect(phases(w)).toEqual(['a:Pending']);
  });
});
