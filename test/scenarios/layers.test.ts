// The three reproduced classes located on their layer, each a scenario of its own, evaluated as the bot sees it at
// offset 0. The wording the scenarios carry is Kubernetes':
// - "Multi-Attach error for volume %q Volume is already exclusively attached to one node and can't be attached to
//   another": the attach/detach controller, pkg/controller/volume/attachdetach/reconciler/reconciler.go;
// - "unmounted volumes=%v, unattached volumes=%v, failed to process volumes=%v: %w": the kubelet's volume manager,
//   pkg/kubelet/volumemanager/volume_manager.go (WaitForAttachAndMount);
// - Ready=Unknown, reason NodeStatusUnknown, "Kubelet stopped posting node status.", and the
//   node.kubernetes.io/unreachable taints: the node lifecycle controller,
//   pkg/controller/nodelifecycle/node_lifecycle_controller.go;
// - the forced detach after maxWaitForUnmountDuration only for a node that is not healthy, or at once with the
//   node.kubernetes.io/out-of-service taint: reconciler.go again;
// - "0/3 nodes are available: 3 Insufficient cpu.": the scheduler, pkg/scheduler/schedule_one.go and
//   pkg/scheduler/framework/plugins/noderesources/fit.go.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { triage } from '../../src/triage/index.js';
import { scenarioPath, simSnapshot, testSim } from '../support/sim.js';

/** The scenario's cluster at offset 0, indexed as the bot reads it. */
async function at0(name: string): Promise<{ index: ClusterIndex; now: number }> {
  const { sim } = await testSim(scenarioPath(name));
  return { index: ClusterIndex.fromSnapshot(simSnapshot(sim)), now: sim.now() };
}

/** Every text an incident and the drain advice of its nodes carry, for the "never says" checks. */
function texts(ev: ReturnType<typeof evaluate>): string {
  return JSON.stringify([ev.incidents, ev.incidents.flatMap((i) => i.drain)]);
}

describe('stuck pods located on their layer, held by the node the evidence names', () => {
  it('multi-attach-node-lost: attach layer held by node-a (NotReady), never a step against healthy node-b', async () => {
    const { index, now } = await at0('multi-attach-node-lost');
    const ev = evaluate(index, { now });
    expect(ev.incidents.map((i) => [i.key, i.verdict, i.node, i.location?.layer, i.location?.holder])).toEqual([
      ['node/node-a', 'FOLLOWS_NODE', 'node-a', 'attach', 'node-a'],
    ]);
    const [inc] = ev.incidents;
    expect(inc!.pods.map((p) => [p.key, p.node, p.location?.layer, p.location?.holder])).toEqual([
      ['stuck-creating/db/postgres-0', 'node-b', 'attach', 'node-a'],
    ]);
    expect(inc!.location?.evidence.join('\n')).toMatch(/VolumeAttachment csi-\S+: pvc-\S+ on node-a, attached=true/);
    expect(inc!.explanations?.join('\n')).toMatch(/node-a is NotReady/);
    // No propagation story, no cordon, mount test or drain of node-b.
    const all = texts(ev);
    expect(all).not.toMatch(/cannot see it|was told it succeeded/);
    expect(all).not.toMatch(/cordon node-b|--nodes node-b|drain node-b --ignore/);
    expect(inc!.nextSteps.join('\n')).toMatch(/node-b is not at fault: do not cordon or drain it/);
    expect(inc!.nextSteps.join('\n')).toMatch(/Only if node-a is really shut down.*out-of-service.*corrupted/s);
    // The attach/detach controller heals it by itself: nothing on node-a uses the volume and node-a is not Ready.
    expect(inc!.location?.outlook).toMatch(/No pod on node-a uses pvc-\S+ any more: because node-a is not Ready/);
    expect(ev.drain('node-b').reason).toMatch(/waiting for an attachment node-a holds: node-b is not at fault/);
    expect(ev.drain('node-c').decision).toBe('OK');
  });

  it('node-not-ready: one incident for node-3 with all its stuck pods, its plugin pod included; nothing runs there', async () => {
    const { index, now } = await at0('node-not-ready');
    const ev = evaluate(index, { now });
    expect(ev.incidents.map((i) => [i.key, i.location?.layer, i.location?.holder])).toEqual([
      ['node/node-3', 'node', 'node-3'],
    ]);
    const [inc] = ev.incidents;
    expect(inc!.pods.map((p) => p.key)).toEqual([
      'stuck-creating/ml/report-builder-0',
      'stuck-terminating/kube-system/ebs-csi-node-x7k2p',
      'stuck-terminating/shop/api-6d8f7c9b5-q4w7e',
      'stuck-terminating/shop/web-0',
    ]);
    expect(inc!.title).toBe('node-3 is NotReady: its pods and volumes are stuck');
    expect(inc!.explanations?.[0]).toBe(
      'Where: the node layer, owned by the kubelet on node-3, which is not posting a Ready status; held by node-3.',
    );
    expect(inc!.explanations?.[1]).toMatch(
      /^node-3 is NotReady \(Ready=Unknown since .*Kubelet stopped posting node status/,
    );
    const all = texts(ev);
    expect(all).not.toMatch(/cause unknown|device or resource busy|rwx gate|fresh mount on node-3|cannot see it/);
    expect(all).not.toMatch(/--grace-period=0|--force/);
    // It does not heal by itself: pods there still hold their volumes as far as the API knows.
    expect(inc!.location?.outlook).toMatch(
      /will not detach them by itself: this does not heal until node-3 comes back/,
    );
    expect(inc!.nextSteps.join('\n')).toMatch(/Only if node-3 is really shut down/);
    const drain = ev.drain('node-3');
    expect([drain.decision, drain.reason]).toEqual(['CAUTION', expect.stringMatching(/^node-3 is NotReady/)]);
    expect(drain.steps.join('\n')).toMatch(/Do not drain node-3 to fix this/);
  });

  it('wffc-unschedulable: the scheduling layer holds the claim (UNSCHEDULABLE), not the provisioner', async () => {
    const { index, now } = await at0('wffc-unschedulable');
    const [claim, ...rest] = triage(index, { now }).claims;
    expect(rest).toEqual([]);
    expect([claim!.name, claim!.phase]).toEqual(['scratch', 'UNSCHEDULABLE']);
    expect(claim!.detail).toMatch(/FailedScheduling: 0\/3 nodes are available: 3 Insufficient cpu/);
    expect(claim!.advice.join(' ')).not.toMatch(/StorageClass parameters|csi-provisioner/);
    expect(evaluate(index, { now }).incidents).toEqual([]);
  });
});
