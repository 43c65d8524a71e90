// `rwx gate` against the simulator: the per-node table, the exit code, and that every object it created is
// deleted (audit log and final state) - after a normal run, on an unknown node, on Ctrl-C, and by --cleanup.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/domain/clock.js';
import type { Simulator } from '@rwx/kube-sim';
import { simSnapshot } from '../support/sim.js';
import { gate, startGateSim, writes } from './sim.js';

let sim: Simulator;
let clock: ManualClock;
beforeEach(async () => ({ sim, clock } = await startGateSim()));
afterEach(async () => sim.stop());

/** Pods and claims left in the gate's namespace. */
function leftInNamespace(): string[] {
  const s = simSnapshot(sim);
  return [...s.pods, ...s.pvcs]
    .filter((o) => o.metadata?.namespace === 'rwx-gate')
    .map((o) => `${o.kind}/${o.metadata?.name}`);
}

/** Every create of a pod and a claim is matched by a delete of the same name. */
function expectAllDeleted(probes: number): void {
  const w = writes(sim);
  expect(w.filter((x) => x === 'create pods 201')).toHaveLength(probes);
  expect(w.filter((x) => x === 'create persistentvolumeclaims 201')).toHaveLength(probes);
  for (let i = 0; i < probes; i++) {
    expect(w).toContain(`delete pods rwx-gate-r1a2b3-${i} 200`);
    expect(w).toContain(`delete persistentvolumeclaims rwx-gate-r1a2b3-${i} 200`);
  }
  expect(leftInNamespace()).toEqual([]);
}

describe('rwx gate on the simulator', () => {
  it('passes healthy nodes, fails the broken one with its FailedMount, skips cordoned/NotReady, deletes everything', async () => {
    const r = await gate(sim, clock, ['--storage-class', 'ebs-gp3', '--timeout', '1m']);
    expect(r.code).toBe(2);
    const rows = r.out.split('\n');
    expect(rows[0]).toMatch(/^NODE +MOUNTED +WROTE +READ BACK +TIME +RESULT$/);
    expect(
      rows.slice(1, 5).map((l) =>
        l
          .split(/ {2,}/)
          .filter((c) => !/^\d/.test(c))
          .join('|'),
      ),
    ).toEqual([
      'gate-node-1|yes|yes|yes|ok',
      'gate-node-2|yes|yes|yes|ok',
      'gate-node-3|no|-|-|FAIL: ContainerCreating after 1m0s: FailedMount (x2): Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], timed out waiting for the condition',
      'gate-node-4|yes|yes|yes|ok',
    ]);
    expect(rows[3]).toMatch(/ 1m0s /);
    expect(r.out).toContain('3/4 node(s) passed; FAILED: gate-node-3');
    expect(r.out).toContain('cleanup: deleted 8 object(s)\n');
    expect(r.out).not.toMatch(/gate-node-[56]/);
    expectAllDeleted(4);
  });

  it('pins each pod with spec.nodeName and makes the pod own its claim', async () => {
    let seen: { pods: string[]; claims: string[] } = { pods: [], claims: [] };
    await gate(sim, clock, ['--storage-class', 'ebs-gp3', '--nodes', 'gate-node-2', '--timeout', '1m'], {
      // While the probe runs, look at what it created.
      onSleep: () => {
        const s = simSnapshot(sim);
        const pod = s.pods.find((p) => p.metadata?.namespace === 'rwx-gate');
        const pvc = s.pvcs.find((p) => p.metadata?.namespace === 'rwx-gate');
        if (!pod || !pvc) return;
        seen = {
          pods: [`${pod.metadata?.name} node=${pod.spec?.nodeName} ${JSON.stringify(pod.metadata?.labels)}`],
          claims: [
            `${pvc.metadata?.name} owner=${pvc.metadata?.ownerReferences?.[0]?.kind}/${pvc.metadata?.ownerReferences?.[0]?.name} uid-matches=${pvc.metadata?.ownerReferences?.[0]?.uid === pod.metadata?.uid}`,
          ],
        };
      },
    });
    expect(seen.pods).toEqual([
      'rwx-gate-r1a2b3-0 node=gate-node-2 {"app.kubernetes.io/managed-by":"rwx-gate","rwx.dev/gate-run":"r1a2b3"}',
    ]);
    expect(seen.claims).toEqual(['rwx-gate-r1a2b3-0 owner=Pod/rwx-gate-r1a2b3-0 uid-matches=true']);
  });

  it('lists a named cordoned node as skipped and tests the rest (exit 0)', async () => {
    const r = await gate(sim, clock, ['--storage-class', 'ebs-gp3', '--nodes', 'gate-node-5,gate-node-1']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^gate-node-1 +yes +yes +yes +\S+ +ok$/m);
    expect(r.out).toMatch(/^gate-node-5 +- +- +- +- +skipped: cordoned$/m);
    expectAllDeleted(1);
  });

  it('refuses an unknown node or storage class before creating anything (exit 1)', async () => {
    const a = await gate(sim, clock, ['--storage-class', 'ebs-gp3', '--nodes', 'gate-node-1,node-typo']);
    expect([a.code, a.err]).toEqual([1, 'rwx gate: node(s) not found: node-typo\n']);
    const b = await gate(sim, clock, ['--storage-class', 'nope']);
    expect([b.code, b.err]).toEqual([1, 'rwx gate: storage class "nope" not found\n']);
    expect(writes(sim)).toEqual([]);
  });

  it('on Ctrl-C stops, marks the rest, and still deletes everything it created (exit 130)', async () => {
    const ac = new AbortController();
    let sleeps = 0;
    // Interrupt during the first wait: three probes have been created, one node is still queued.
    const r = await gate(sim, clock, ['--storage-class', 'ebs-gp3', '--parallel', '3'], {
      signal: ac.signal,
      onSleep: () => {
        if (++sleeps === 1) ac.abort();
      },
    });
    expect(r.code).toBe(130);
    expect(r.out).toContain('INTERRUPTED');
    expect(r.out).toMatch(/^gate-node-4 +- +- +- +- +not run$/m);
    // A probe that had already finished when the abort came reports its real result; the others say interrupted.
    const others = r.out
      .split('\n')
      .filter((l) => /^gate-node-[123] /.test(l))
      .map((l) => l.replace(/^.*\d\.\ds +/, ''));
    expect(others).toHaveLength(3);
    for (const o of others) expect(o).toMatch(/^(ok|interrupted: interrupted before the probe finished)$/);
    expect(others).toContain('interrupted: interrupted before the probe finished');
    expect(r.err).toContain('gate-node-2: interrupted');
    expectAllDeleted(3);
  });

  it('--cleanup deletes leftovers of earlier runs and nothing else', async () => {
    const labels = { 'app.kubernetes.io/managed-by': 'rwx-gate', 'rwx.dev/gate-run': 'old999' };
    sim.apply({
      add: [
        {
          kind: 'Pod',
          metadata: { name: 'rwx-gate-old999-0', namespace: 'rwx-gate', labels },
          spec: { nodeName: 'gate-node-1', containers: [{ name: 'probe', image: 'busybox' }] },
        },
        {
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'rwx-gate-old999-0', namespace: 'rwx-gate', labels },
          spec: { storageClassName: 'ebs-gp3' },
        },
        {
          kind: 'Pod',
          metadata: { name: 'someone-else', namespace: 'rwx-gate' },
          spec: { nodeName: 'gate-node-1', containers: [{ name: 'c', image: 'busybox' }] },
        },
      ],
    });
    const r = await gate(sim, clock, ['--cleanup']);
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      'cleanup in rwx-gate: deleted 2 leftover object(s): pod/rwx-gate-old999-0 (run old999), persistentvolumeclaim/rwx-gate-old999-0 (run old999)\n',
    );
    expect(leftInNamespace()).toEqual(['Pod/someone-else']);
  });

  it('prints JSON with -o json', async () => {
    const r = await gate(sim, clock, [
      '--storage-class',
      'ebs-gp3',
      '--nodes',
      'gate-node-3',
      '--timeout',
      '1m',
      '-o',
      'json',
    ]);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.out) as {
      results: { node: string; result: string; mounted: string }[];
      deleted: string[];
    };
    expect(report.results.map((x) => `${x.node} ${x.result} ${x.mounted}`)).toEqual(['gate-node-3 FAIL no']);
    expect(report.deleted).toEqual(['pod/rwx-gate-r1a2b3-0', 'persistentvolumeclaim/rwx-gate-r1a2b3-0']);
  });
});
