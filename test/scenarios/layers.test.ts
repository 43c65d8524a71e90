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
//   pkg/scheduler/framework/plugins/noderesources/fit.go;
// - "conflicting SELinux labels of volume %s: %q and %q": the kubelet's desired state of world,
//   pkg/kubelet/volumemanager/cache/desired_state_of_world.go, and the Normal SELinuxLabelConflict event of the
//   SELinux warning controller (component selinux_warning), pkg/controller/volume/selinuxwarning/cache/conflict.go;
// - VolumePermissionChangeInProgress "Setting volume ownership for %s is taking longer than expected, consider using
//   OnRootMismatch - ..." and "..., processed %d files.": the kubelet's fsGroup ownership change,
//   pkg/volume/volume_linux.go.
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

  it('selinux-fsgroup: both waits on the configuration layer, held by no node, never the driver or a rollout', async () => {
    const { index, now } = await at0('selinux-fsgroup');
    const ev = evaluate(index, { now });
    expect(ev.incidents.map((i) => [i.key, i.verdict, i.location?.layer, i.location?.holder])).toEqual([
      ['config/studio/fsgroup/originals', 'NOT_STORAGE', 'configuration', undefined],
      ['config/studio/selinux/media', 'NOT_STORAGE', 'configuration', undefined],
    ]);
    const [chown, selinux] = ev.incidents;
    expect(selinux!.pods.map((p) => [p.key, p.cause, p.storage, p.configWait])).toEqual([
      [
        'stuck-creating/studio/media-thumbnailer-5b7f9c8d6-p8w3n',
        'config',
        [],
        { kind: 'selinux', volume: 'media', claim: 'media', otherPod: 'media-writer-7c9d8b6f5-k2m4x' },
      ],
    ]);
    expect(selinux!.location?.evidence[0]).toMatch(/^FailedMount: .*conflicting SELinux labels of volume pvc-5e6f/);
    expect(selinux!.location?.outlook).toMatch(/^This does not heal by itself/);
    expect(selinux!.nextSteps.join('\n')).toMatch(/seLinuxOptions.*seLinuxChangePolicy: Recursive/s);
    expect(chown!.pods.map((p) => [p.key, p.cause, p.configWait?.kind])).toEqual([
      ['stuck-creating/studio/indexer-0', 'config', 'fsgroup'],
    ]);
    expect(chown!.location?.evidence[0]).toMatch(/^VolumePermissionChangeInProgress: Setting volume ownership/);
    expect(chown!.location?.outlook).toMatch(/^This heals by itself: indexer-0 is waiting, not broken/);
    expect(chown!.nextSteps.join('\n')).toMatch(/fsGroupChangePolicy: OnRootMismatch/);
    // Not the driver, a node or a rollout: no plugin step, no cordon, no gate, no rollback; draining does not help.
    const all = texts(ev);
    expect(all).not.toMatch(/kubectl cordon|rwx gate|rollout undo|node plugin logs|FOLLOWS_/);
    expect(ev.drain('node-02').reason).toMatch(/SELinux label \(configuration, not storage\); draining does not help/);
    expect(ev.drain('node-03').reason).toMatch(/fsGroup \(configuration, not storage\); draining does not help/);
    expect(ev.drain('node-01').decision).toBe('OK');
    // rwx triage does not call either claim's mount failed.
    expect(triage(index, { now }).claims.filter((c) => c.phase === 'MOUNT_FAILED')).toEqual([]);
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
