// The rollback step: undo to the newest revision with another pod template, naming what it restores; while a
// rollback is under way, rollout status and never an undo. One rule behind scan, drain-check, /rwx drain and the root.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Incident } from '../../src/domain/incident.js';
import type { DrainAdvisor } from '../../src/advise/drain.js';
import { rollbackFor } from '../../src/advise/rollback.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { renderEvidenceReply } from '../../src/render/slack-thread.js';
import { renderIncidents } from '../../src/render/terminal-incidents.js';
import { renderDrain } from '../../src/commands/render-drain.js';
import { ago, DAY, ebsDaemonSet, HOUR, NOW, revision, snapshotOf, withoutPropagation } from '../detect/builders.js';
import { rolloutObjects } from '../correlate/rollout-fixture.js';
import { scenarioPath, simSnapshot, testSim } from '../support/sim.js';

const run = promisify(execFile);
const UNDO = /kubectl rollout undo daemonset\//;

/** Every line an on-call engineer reads for the rollout incident: scan, the root, drain advice, /rwx drain. */
function everyOutput(incidents: Incident[], inc: Incident, drain: DrainAdvisor): string {
  const advice = inc.drain.map((d) => drain(d.node));
  return [
    renderIncidents(incidents),
    JSON.stringify(renderIncidentRoot(inc).blocks),
    JSON.stringify(renderEvidenceReply(inc).blocks),
    ...advice.flatMap((a) => [a.reason, ...a.steps, renderDrain(a, incidents, false).response.text]),
    ...inc.nextSteps,
  ].join('\n');
}

describe('the rollback step on the propagation-loss scenario', () => {
  it('before the rollback: undo to revision 1 by number, naming its image and the propagation it restores', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
    const { incidents, drain } = evaluate(index, { now: sim.now() });
    const inc = incidents.find((i) => i.verdict === 'FOLLOWS_ROLLOUT')!;
    expect(inc.rollback).toMatchObject({ state: 'undo', toRevision: 1 });
    expect(inc.rollback?.restores).toEqual([
      'volumeMount kubelet-dir mountPropagation Bidirectional in container ebs-plugin',
      'image public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.30.0 in container ebs-plugin',
    ]);
    const command = 'kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1';
    expect(inc.rollback?.command).toBe(command);
    // The same step everywhere: scan's next steps, drain-check and /rwx drain (BLOCK), the thread's next steps.
    expect(inc.nextSteps.filter((s) => s.endsWith(command))).toHaveLength(1);
    expect(drain('node-19').steps.filter((s) => s.endsWith(command))).toHaveLength(1);
    expect(JSON.stringify(renderEvidenceReply(inc).blocks)).toContain(command);
    // Every undo any output gives names its revision.
    const all = everyOutput(incidents, inc, drain);
    for (const line of all.split('\n').filter((l) => UNDO.test(l))) expect(line).toMatch(/--to-revision=1\b/);
  });

  it('the advised undo restores what it says (real kubectl, --dry-run=client against the simulator)', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    const { stdout } = await run(
      'kubectl',
      [
        '--kubeconfig',
        sim.kubeconfigPath,
        ...'rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1 --dry-run=client'.split(' '),
      ],
      { timeout: 20_000 },
    );
    expect(stdout).toMatch(/Image:\s+public\.ecr\.aws\/ebs-csi-driver\/aws-ebs-csi-driver:v1\.30\.0/);
  });

  it('while the rollback is under way: says so, gives rollout status, and no output offers an undo', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    await sim.advance(13 * 60_000); // the rollback began at +12m: revision 1 renumbered 3, nodes moving back
    const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
    const { incidents, drain } = evaluate(index, { now: sim.now() });
    const inc = incidents.find((i) => i.verdict === 'FOLLOWS_ROLLOUT')!;
    expect(inc.rollback).toMatchObject({
      state: 'under-way',
      toRevision: 3,
      command: 'kubectl rollout status daemonset/ebs-csi-node -n kube-system',
    });
    expect(inc.rollback?.text).toMatch(/^A rollback to revision 3 \(restores .*v1\.30\.0.*\) is under way; /);
    const all = everyOutput(incidents, inc, drain);
    expect(all).not.toMatch(UNDO);
    expect(all).toContain('kubectl rollout status daemonset/ebs-csi-node -n kube-system');
    // Why: a plain undo now goes back to revision 2, the broken template.
    const { stdout } = await run(
      'kubectl',
      [
        '--kubeconfig',
        sim.kubeconfigPath,
        ...'rollout undo daemonset/ebs-csi-node -n kube-system --dry-run=client'.split(' '),
      ],
      { timeout: 20_000 },
    );
    expect(stdout).toMatch(/aws-ebs-csi-driver:v1\.31\.0/);
  });
});

describe('rollbackFor on hand-made revision histories', () => {
  const ev = (newRevision: number) => ({
    daemonSet: { namespace: 'kube-system', name: 'ebs-csi-node' },
    newRevision,
    updatedNodes: 12,
    desiredNodes: 40,
    counts: { newStuck: 4, newFine: 8, oldStuck: 0, oldFine: 28 },
    nodesOnNewRevision: [],
    diff: [],
  });
  const ds = ebsDaemonSet();
  const t1 = ds.spec!.template!;
  const bad = withoutPropagation(t1, 'kubelet-dir');
  const index = (revs: [number, typeof t1][]) =>
    ClusterIndex.fromSnapshot(
      snapshotOf([ds, ...revs.map(([n, t], i) => revision(ds, `h${n}`, n, t, ago((10 - i) * DAY + HOUR)))]),
    );

  it('the newest revision with another template, not simply the one before (2 differs only by image: undo to 2)', () => {
    const t2 = structuredClone(t1);
    t2.spec!.containers![0]!.image = 'example.com/ebs:v1.29.9';
    const r = rollbackFor(
      index([
        [1, t1],
        [2, t2],
        [3, bad],
      ]),
      ev(3),
    );
    expect([r.state, r.toRevision, r.command]).toEqual([
      'undo',
      2,
      'kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=2',
    ]);
  });

  it('skips a revision with the same bad template', () => {
    const r = rollbackFor(
      index([
        [1, t1],
        [2, bad],
        [3, structuredClone(bad)],
      ]),
      ev(3),
    );
    expect([r.state, r.toRevision]).toEqual(['undo', 1]);
  });

  it('no kept revision with another template: nothing to undo to, and no undo command', () => {
    const r = rollbackFor(
      index([
        [2, bad],
        [3, structuredClone(bad)],
      ]),
      ev(3),
    );
    expect(r.state).toBe('none');
    expect(r.command).toBeUndefined();
    expect(r.text).toMatch(/nothing to undo to/);
  });

  it('the rollout incident: undo to 1, restoring the propagation', () => {
    const inc = evaluate(ClusterIndex.fromSnapshot(snapshotOf(rolloutObjects())), { now: NOW }).incidents[0]!;
    expect(inc.rollback?.restores).toEqual([
      'volumeMount kubelet-dir mountPropagation Bidirectional in container ebs-plugin',
    ]);
  });
});
