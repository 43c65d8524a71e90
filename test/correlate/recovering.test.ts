// Pods recovering after their node's plugin pod was replaced (rollback): members of the rollout incident, never
// evidence. Pure fixtures here; the simulator walk through the whole propagation-loss timeline is below them.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Incident } from '../../src/domain/incident.js';
import type { Pod } from '../../src/domain/objects.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { ago, MIN, NOW } from '../detect/builders.js';
import { SIM_START, testSim, simSnapshot } from '../support/sim.js';
import { miniCluster, type Placed } from './mini-cluster.js';

const scan = (index: ClusterIndex): Incident[] => evaluate(index, { now: NOW }).incidents;
const summary = (incs: Incident[]) => incs.map((i) => [i.key, i.verdict, i.pods.map((p) => p.pod.name).sort()]);
const KEY = 'rollout/kube-system/ebs-csi-node@2';

/** `kubectl rollout undo`: revision 1 renumbered 3 (creation time kept). */
function undo(index: ClusterIndex): void {
  const r1 = index.get('controllerRevisions', 'kube-system/ebs-csi-node-h1')!;
  index.upsert('controllerRevisions', { ...r1, revision: 3 });
}

/** Replaces the plugin pod on `node` by one on revision hash `hash` created `createdAgo` ms ago. */
function replacePlugin(index: ClusterIndex, node: string, hash: string, createdAgo: number): void {
  const old = index.get('pods', `kube-system/ebs-csi-node-${node}`)!;
  const t = ago(createdAgo);
  index.upsert('pods', {
    ...old,
    metadata: {
      ...old.metadata,
      creationTimestamp: t,
      labels: { ...old.metadata?.labels, 'controller-revision-hash': hash },
    },
  } as Pod);
}

/** Stuck on revision-2 nodes n-01 and n-02 (scheduled 20m ago), revision 1 elsewhere; `extra` pods added. */
const rolling = (extra: Placed[] = []) =>
  miniCluster({
    onRevision2: ['n-01', 'n-02', 'n-03'],
    pods: [{ name: 'a', node: 'n-01' }, { name: 'b', node: 'n-02' }, ...extra],
  });

describe('pods recovering after their plugin was replaced', () => {
  it.each<[string, (i: ClusterIndex) => void, string[]]>([
    // rollback reached n-01 a minute ago, a is still stuck (kubelet backoff): a recovers inside the incident
    [
      'node rolled back',
      (i) => {
        undo(i);
        replacePlugin(i, 'n-01', 'h1', MIN);
      },
      ['ns/a'],
    ],
    // n-01's plugin pod deleted, its replacement not created yet (watch order): being replaced
    [
      'no plugin pod',
      (i) => {
        i.remove('pods', i.get('pods', 'kube-system/ebs-csi-node-n-01')!);
      },
      ['ns/a'],
    ],
    // n-01's plugin pod Terminating with no replacement yet: being replaced
    [
      'plugin Terminating',
      (i) => {
        const p = i.get('pods', 'kube-system/ebs-csi-node-n-01')!;
        i.upsert('pods', {
          ...p,
          metadata: { ...p.metadata, deletionTimestamp: ago(10_000), deletionGracePeriodSeconds: 30 },
        });
      },
      ['ns/a'],
    ],
  ])('%s: one rollout incident, not counted as stuck', (_name, change, recovering) => {
    const index = rolling();
    change(index);
    const incs = scan(index);
    expect(summary(incs)).toEqual([[KEY, 'FOLLOWS_ROLLOUT', ['a', 'b']]]);
    const ev = incs[0]!.rollout!;
    expect(ev.recoveringPods).toEqual(recovering);
    expect([ev.counts.newStuck, ev.counts.oldStuck]).toEqual([1, 0]);
  });

  it('the last stuck pod, recovering on a rolled-back node, keeps the incident FOLLOWS_ROLLOUT (not FOLLOWS_NODE)', () => {
    // a revision-1 node mounted a fresh pod 30m ago: without the rule this single pod would follow its node
    const index = miniCluster({
      onRevision2: ['n-01', 'n-02'],
      pods: [
        { name: 'a', node: 'n-01' },
        { name: 'ok', node: 'n-05', runningFor: 30 * MIN },
      ],
    });
    undo(index);
    replacePlugin(index, 'n-01', 'h1', MIN);
    replacePlugin(index, 'n-02', 'h1', 2 * MIN);
    const incs = scan(index);
    expect(summary(incs)).toEqual([[KEY, 'FOLLOWS_ROLLOUT', ['a']]]);
    const inc = incs[0]!;
    expect(inc.summary).toMatch(/^FOLLOWS_ROLLOUT \(rolling back, recovering\): 0 of 0 nodes on revision 2/);
    expect([inc.rollout?.rolledBack, inc.rollout?.counts.oldStuck]).toEqual([true, 0]);
    // a second `rollout undo` would restore revision 2: never advised once rolled back
    expect(inc.nextSteps.filter((s) => s.startsWith('Roll back'))).toEqual([]);
    expect(
      inc.drain.map((d) => [d.node, d.decision, d.reason.includes('recovering after its plugin pod was replaced')]),
    ).toEqual([['n-01', 'BLOCK', true]]);
  });

  it('a pod still stuck a full recovery window after its node was rolled back is evidence again', () => {
    // n-01 rolled back 6m ago (kubelet retries at most every 2m2s) and a is still stuck: the good revision does not
    // mount there either, so the rollout no longer explains it
    const index = rolling();
    undo(index);
    replacePlugin(index, 'n-01', 'h1', 6 * MIN);
    const incs = scan(index);
    expect(incs.find((i) => i.key === KEY)?.rollout?.recoveringPods ?? []).not.toContain('ns/a');
    expect(incs.some((i) => i.key !== KEY && i.pods.some((p) => p.pod.name === 'a'))).toBe(true);
  });

  it('without a rollback, a pod stuck before its plugin was replaced is no evidence for a rollout', () => {
    // the rollout reached n-01 after a got stuck there: a got stuck under revision 1, so no rollout incident
    const index = miniCluster({ onRevision2: ['n-02'], pods: [{ name: 'a', node: 'n-01' }] });
    replacePlugin(index, 'n-01', 'h2', MIN);
    expect(summary(scan(index))).toEqual([['unexplained/ebs.csi.aws.com', 'UNEXPLAINED', ['a']]]);
  });

  it('recovering pods do not rescue a rollout the evidence rejects', () => {
    // c is stuck on a revision-1 node since after its plugin started: evidence against revision 2
    const index = rolling([{ name: 'c', node: 'n-05' }]);
    index.remove('pods', index.get('pods', 'kube-system/ebs-csi-node-n-01')!);
    expect(summary(scan(index)).map(([k, v]) => [k, v])).toEqual([['unexplained/ebs.csi.aws.com', 'UNEXPLAINED']]);
  });
});

describe('propagation-loss timeline through the rollback', () => {
  it('every storage finding stays in the single rollout incident at every step until all recover', async () => {
    const { sim } = await testSim('scenarios/propagation-loss.yaml');
    const seen = new Set<string>();
    let last = 0;
    for (let t = 0; t <= 30 * 60_000; t += 15_000) {
      if (t > 0) await sim.advance(15_000);
      const { findings, incidents } = evaluate(ClusterIndex.fromSnapshot(simSnapshot(sim)), { now: sim.now() });
      const storage = findings
        .flatMap((f) =>
          f.kind !== 'cronjob-missed' && f.cause === 'storage' ? [`${f.pod.namespace}/${f.pod.name}`] : [],
        )
        .sort();
      const at = `t+${(sim.now() - SIM_START) / 1000}s`;
      if (storage.length === 0) {
        expect(
          incidents.map((i) => i.key),
          at,
        ).toEqual([]);
        continue;
      }
      last = t;
      expect(
        incidents.map((i) => [i.key, i.verdict]),
        at,
      ).toEqual([[KEY, 'FOLLOWS_ROLLOUT']]);
      expect(incidents[0]!.pods.map((p) => `${p.pod.namespace}/${p.pod.name}`).sort(), at).toEqual(storage);
      expect(incidents[0]!.rollout?.counts.oldStuck, at).toBe(0);
      for (const p of incidents[0]!.rollout?.recoveringPods ?? []) seen.add(p);
    }
    // the walk crossed the rollback (12m30s..22m10s) with stuck pods recovering on rolled-back nodes
    expect(last).toBeGreaterThanOrEqual(21 * 60_000);
    expect([...seen]).toContain('platform/postgres-2');
  }, 60_000);
});
