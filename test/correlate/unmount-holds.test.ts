// What holds the volume mount of a pod stuck at unpublish: the node agent's busy mounts where it answered, "not
// visible from the API" where it did not, never "nothing holds it" from not knowing.
//
// Why the API cannot show it, from the Kubernetes source:
// - pkg/volume/util/operationexecutor/operation_generator.go, GenerateUnmountVolumeFunc: a failed TearDown returns
//   GenerateError("UnmountVolume.TearDown failed", ...) with "Caller will log and retry", and the operation's
//   EventRecorderFunc is nil ("nil because we do not want to generate event on error"): no event, only the kubelet's
//   log line (nestedpendingoperations.go: Operation for ... failed. No retries permitted until ... Error:
//   UnmountVolume.TearDown failed for volume ...).
// - pkg/volume/csi/csi_mounter.go, (*csiMountMgr).TearDownAt: after NodeUnpublishVolume, removeMountDir fails with
//   "Unmounter.TearDownAt failed to clean mount dir [DIR]: ... failed to remove dir [DIR]: remove DIR: device or
//   resource busy" while DIR (pods/UID/volumes/kubernetes.io~csi/PV/mount) is still mounted: that error is the
//   TearDown error above, so it too reaches the log only.
import { describe, expect, it } from 'vitest';
import { podUnmountHolds } from '../../src/correlate/unmount-holds.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { StuckPodFinding } from '../../src/domain/findings.js';
import type { AgentReport, BusyMount } from '../../src/domain/node-report.js';
import type { NodeReports } from '../../src/domain/proof.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { healthyReport } from '../agent/report-fixtures.js';
import { withDemoAgents as withAgents } from '../support/demo-reports.js';
import { scenarioPath, simSnapshot, testSim } from '../support/sim.js';

const mountOf = (uid: string, pv: string) => `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~csi/${pv}/mount`;

describe('what holds the mount of a pod stuck at unpublish', () => {
  it('terminal-phase-terminating with its agent: the holder is in the explanations and the drain step', async () => {
    const { index, now, reports } = await withAgents('terminal-phase-terminating', ['node-2']);
    const { incidents, drain } = evaluate(index, { now, nodeReports: reports });
    const pod = incidents.flatMap((i) => i.pods).find((p) => p.pod.name === 'report-builder-0');
    const uid = pod?.pod.uid ?? '';
    expect(uid).not.toBe('');
    const line = `(simulated agent) tar (pid 31337, on the host) holds ${mountOf(uid, 'pvc-reports-7d1e')}`;
    expect(pod?.location?.unmountHolds).toEqual([
      { pod: 'batch/report-builder-0', node: 'node-2', text: line, held: true },
    ]);
    const inc = incidents.find((i) => i.pods.includes(pod!));
    expect(inc?.explanations).toContain(`${line}.`);
    expect(inc?.location?.evidence).toContain(line);
    const steps = drain('node-2').steps.join('\n');
    expect(steps).toContain(`Release what holds the mount on node-2 ("device or resource busy"): ${line};`);
    expect(steps).not.toContain('Find what holds the mount');
  });

  it('terminal-phase-terminating without an agent: not visible from the API, with what to run, never "nothing"', async () => {
    const { sim } = await testSim(scenarioPath('terminal-phase-terminating'));
    const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
    const none: NodeReports = { kind: 'asked', states: new Map() };
    const { incidents, drain } = evaluate(index, { now: sim.now(), nodeReports: none });
    const text = incidents.flatMap((i) => i.explanations ?? []).find((e) => e.includes('not visible from the API'));
    expect(text).toMatch(
      /^What holds the volume mount of batch\/report-builder-0 on node-2 is not visible from the API \(no rwx agent runs on node-2\)/,
    );
    expect(text).toContain('UnmountVolume.TearDown failed');
    expect(text).toMatch(
      /journalctl -u kubelet \| grep [0-9a-f-]+; findmnt -rn -o TARGET,SOURCE \| grep [0-9a-f-]+; grep -l /,
    );
    expect(incidents.flatMap((i) => i.explanations ?? []).join('\n')).not.toMatch(/nothing holds|no process/i);
    expect(drain('node-2').steps.join('\n')).toContain(
      'Find what holds the mount on node-2 ("device or resource busy")',
    );
  });

  it('terminating-rollout with agents on the broken nodes: the node plugin namespace holds a copy', async () => {
    const { index, now, reports } = await withAgents(
      'terminating-rollout',
      ['node-1', 'node-2', 'node-3'],
      ['bad57d4b9c'],
    );
    const { incidents } = evaluate(index, { now, nodeReports: reports });
    const holds = incidents.flatMap((i) => i.pods).flatMap((p) => p.location?.unmountHolds ?? []);
    expect(holds.map((h) => [h.pod, h.node, h.held])).toEqual([
      ['ml/features-0', 'node-2', true],
      ['ml/scores-0', 'node-3', true],
      ['shop/orders-0', 'node-1', true],
    ]);
    expect(holds[0]?.text).toMatch(
      /^\(simulated agent\) the mount namespace of csi-node-plugin \(pid 4242, pod kube-system\/ebs-csi-node-\S+\) holds a copy of \/var\/lib\/kubelet\/pods\/\S+\/mount$/,
    );
  });
});

/** A pod stuck at unpublish on node-a, with uid u-1. */
const stuck: StuckPodFinding & { node: string } = {
  kind: 'stuck-terminating',
  key: 'stuck-terminating/shop/db-0',
  pod: { namespace: 'shop', name: 'db-0', uid: 'u-1' },
  node: 'node-a',
  workload: { kind: 'StatefulSet', namespace: 'shop', name: 'db' },
  since: '2026-11-30T09:00:00Z',
  stuckSeconds: 900,
  cause: 'storage',
  storage: [],
  events: [],
  location: { layer: 'unpublish', actor: 'the kubelet', evidence: [] },
};

const mount = (over: Partial<BusyMount> = {}): BusyMount => ({
  mountPoint: mountOf('u-1', 'pv-db'),
  podUid: 'u-1',
  pv: 'pv-db',
  processCount: 0,
  processes: [],
  namespaces: [],
  ...over,
});
const busy = (mounts: BusyMount[], over: Partial<NonNullable<AgentReport['busyMounts']>> = {}) =>
  healthyReport('node-a', {
    busyMounts: { status: 'ok', mounts, processesChecked: 200, unreadableCount: 0, unreadable: [], ...over },
  });
const asked = (r: AgentReport | undefined): NodeReports => ({
  kind: 'asked',
  states: new Map(r ? [['node-a', { kind: 'report' as const, report: r, at: 0 }]] : []),
});
const index = new ClusterIndex();

describe('podUnmountHolds', () => {
  const cases: { name: string; reports: NodeReports | undefined; want: RegExp[]; held: boolean[] }[] = [
    {
      // A process of another pod with a file open through its own bind of the volume: named with its pod UID.
      name: 'a process holding it through an open file',
      reports: asked(
        busy([
          mount({
            processCount: 1,
            processes: [{ pid: 77, comm: 'backup', podUid: 'u-9', via: 'fd', path: '/data/x' }],
          }),
        ]),
      ),
      want: [
        /^backup \(pid 77, pod UID u-9\) holds \/var\/lib\/kubelet\/pods\/u-1\/volumes\/kubernetes.io~csi\/pv-db\/mount \(its open file \/data\/x\)$/,
      ],
      held: [true],
    },
    {
      // More holders than listed: the rest are counted.
      name: 'more processes than listed',
      reports: asked(
        busy([
          mount({ processCount: 12, processes: [{ pid: 5, comm: 'sh', via: 'cwd', path: mountOf('u-1', 'pv-db') }] }),
        ]),
      ),
      want: [/^sh \(pid 5, on the host\) holds \S+$/, /^and 11 more processes hold \S+$/],
      held: [true, true],
    },
    {
      // Still mounted, nothing found, everything read: said as found, with where to look next.
      name: 'mounted, nothing holding it, all read',
      reports: asked(busy([mount()])),
      want: [/still mounted, and its rwx agent finds no process and no other mount namespace holding it/],
      held: [false],
    },
    {
      // Still mounted, nothing found, but some processes unreadable: a holder cannot be ruled out.
      name: 'mounted, nothing found, some processes unreadable',
      reports: asked(
        busy([mount()], { status: 'unknown', unreadableCount: 3, unreadable: [{ pid: 9, reason: 'fd: EACCES' }] }),
      ),
      want: [
        /no holder among the processes its rwx agent could read, but 3 could not be read \(pid 9 \(fd: EACCES\)\): a holder cannot be ruled out/,
      ],
      held: [false],
    },
    {
      // An agent from before the busy mounts section: not visible, and why.
      name: 'an older agent',
      reports: asked(healthyReport('node-a')),
      want: [/not visible from the API \(the rwx agent on node-a \(0\.1\.0\) is too old to report busy mounts\)/],
      held: [false],
    },
    {
      // No agent on the node.
      name: 'no agent',
      reports: asked(undefined),
      want: [/not visible from the API \(no rwx agent runs on node-a\)/],
      held: [false],
    },
    {
      // The agent could not read the host's mounts at all: not visible, and why.
      name: 'host mounts unreadable',
      reports: asked(
        healthyReport('node-a', {
          problems: ['cannot read the host mount namespace (/proc/1/mountinfo): EACCES'],
          busyMounts: { status: 'unknown', mounts: [], processesChecked: 0, unreadableCount: 0, unreadable: [] },
        }),
      ),
      want: [
        /not visible from the API \(the rwx agent on node-a could not read the host's mounts: cannot read the host mount namespace/,
      ],
      held: [false],
    },
    {
      // The agent read everything and the pod has no mount left on the host.
      name: 'no mount of the pod left',
      reports: asked(busy([mount({ podUid: 'u-2', mountPoint: mountOf('u-2', 'pv-db') })])),
      want: [/finds no volume mount of shop\/db-0 left on the host/],
      held: [false],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const holds = podUnmountHolds(index, stuck, c.reports);
      expect(holds.map((h) => h.held)).toEqual(c.held);
      c.want.forEach((re, i) => expect(holds[i]?.text).toMatch(re));
      for (const h of holds) expect(h.text).not.toMatch(/nothing holds/i);
    });
});
