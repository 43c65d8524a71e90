// rwx serve's evaluation hands the event loop back between its steps (src/watch/yielding.ts), so probes are
// answered during it, and holds the cache meanwhile: a watch event that arrives mid-evaluation is applied after it,
// and the evaluation's answer is the one a pass in one piece over the state before the event gives.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { KIND_KEYS } from '../../src/domain/kinds.js';
import type { KubeObject } from '../../src/domain/objects.js';
import type { Steps } from '../../src/domain/steps.js';
import { evaluate, evaluateFindings, evaluateSteps, evaluationSteps } from '../../src/evaluate/evaluate.js';
import { runHeld, runSteps } from '../../src/watch/yielding.js';
import { ClusterWatcher } from '../../src/watch/watcher.js';
import { NOW } from '../detect/builders.js';
import { miniCluster, miniNodes } from '../correlate/mini-cluster.js';
import { FakeClusterSource } from '../support/fake-source.js';

/** Counts the turns the event loop gets while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = (): void => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  done = true;
  return { result, turns };
}

function* busySteps(n: number, ms: number): Steps<number> {
  for (let i = 0; i < n; i++) {
    const end = performance.now() + ms;
    while (performance.now() < end);
    yield;
  }
  return n;
}

/** A watcher over a fake source holding the mini cluster's objects: 12 nodes, a stuck pod on each of the first 6. */
async function watched() {
  const mini = miniCluster({ nodes: 12, pods: miniNodes(6).map((n, i) => ({ name: `p${i}`, node: n })) });
  const source = new FakeClusterSource();
  for (const k of KIND_KEYS) for (const o of mini.all(k)) source.apply(k, 'ADDED', o as KubeObject);
  const w = new ClusterWatcher({ source });
  w.start();
  await new Promise((r) => setImmediate(r));
  return { source, w };
}

describe('runSteps', () => {
  it('hands the loop back whenever a stretch of steps passes the budget, and returns the result', async () => {
    const { result, turns } = await turnsDuring(() => runSteps(busySteps(20, 2), 5));
    expect(result).toBe(20);
    expect(turns).toBeGreaterThanOrEqual(5); // 40 ms of steps, a turn every 5 ms or so (not one 40 ms block)
  });
});

describe('runHeld: an evaluation in steps over a held cache', () => {
  it('holds the index while it runs, and a watch event arriving meanwhile waits until it is done', async () => {
    const { source, w } = await watched();
    const findings = evaluate(w.index, { now: NOW }).findings;
    const before = evaluateFindings(w.index, findings, { now: NOW });
    expect(before.incidents.length).toBeGreaterThan(0);
    const held: boolean[] = [];
    const p = runHeld(w.index, () => evaluationSteps(w.index, findings, { now: NOW }), 0);
    // Runs on the evaluation's first turn: the event is received, not applied.
    await new Promise((r) => setImmediate(r));
    held.push(w.index.holds.held);
    source.apply('pods', 'DELETED', w.index.get('pods', 'ns/p0') as KubeObject);
    expect(w.index.get('pods', 'ns/p0')).toBeDefined();
    const during = await p;
    expect(held).toEqual([true]);
    expect(w.index.holds.held).toBe(false);
    expect(JSON.stringify(during.incidents)).toBe(JSON.stringify(before.incidents));
    await new Promise((r) => setImmediate(r));
    expect(w.index.get('pods', 'ns/p0')).toBeUndefined();
    w.stop();
  });

  it("gives a whole evaluation's answer (detection included, as /rwx drain runs it) while the loop turns", async () => {
    const { w } = await watched();
    const { result, turns } = await turnsDuring(() => runHeld(w.index, () => evaluateSteps(w.index, { now: NOW }), 0));
    expect(turns).toBeGreaterThan(1);
    expect(JSON.stringify(result.incidents)).toBe(JSON.stringify(evaluate(w.index, { now: NOW }).incidents));
    expect(result.findings).toEqual(evaluate(w.index, { now: NOW }).findings);
    w.stop();
  });

  it('releases the index when the steps throw', async () => {
    const index = new ClusterIndex();
    function* failing(): Steps<never> {
      yield;
      throw new Error('boom');
    }
    await expect(runHeld(index, failing, 0)).rejects.toThrow('boom');
    expect(index.holds.held).toBe(false);
  });
});
