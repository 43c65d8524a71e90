// What holds the volume mount of a pod whose claim is UNPUBLISH_STUCK, in triage's evidence: the lines the thread
// states for the same pod (correlate/unmount-holds.ts, terminatingPodHolds), from the node agent's busy mounts, or
// "not visible from the API" where no agent said; none for a pod a finalizer or a node that is not Ready holds.
//
// Why the API cannot show it (pkg/volume/util/operationexecutor/operation_generator.go, GenerateUnmountVolumeFunc:
// a failed TearDown is "UnmountVolume.TearDown failed" with no event recorded on error, only the kubelet's log):
// see test/correlate/unmount-holds.test.ts.
import { describe, expect, it } from 'vitest';
import { releaseHeldStep } from '../../src/advise/release.js';
import { renderTriage } from '../../src/commands/render-triage.js';
import { terminatingPodHolds } from '../../src/correlate/unmount-holds.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { NodeReports } from '../../src/domain/proof.js';
import type { Snapshot } from '../../src/domain/snapshot.js';
import { escapeSlack } from '../../src/render/escape.js';
import { renderJson, renderTable } from '../../src/triage/render.js';
import { triage } from '../../src/triage/triage.js';
import { healthyReport } from '../agent/report-fixtures.js';
import { NOW, baseCluster, event, pod, pv, pvc } from './fixtures.js';

const NS = 'shop';
const UID = `uid-pod-${NS}-data-web-0`;
const MOUNT = `/var/lib/kubelet/pods/${UID}/volumes/kubernetes.io~csi/pvc-data/mount`;

/** shop/data, its pod data-web-0 on node-01 deleted 20 minutes ago (`finalizers`: none unless given). */
function stuckCluster(o: { finalizers?: string[]; unmountEvent?: boolean; nodeDown?: boolean } = {}): Snapshot {
  const s = baseCluster();
  s.pvcs.push(pvc(NS, 'data'));
  s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
  s.pods.push(
    pod(NS, 'data-web-0', { claim: 'data', state: 'terminating', deletedAgo: 1200, finalizers: o.finalizers ?? null }),
  );
  if (o.unmountEvent)
    s.events.push(
      event(NS, 'Pod', 'data-web-0', 'FailedUnmount', 'UnmountVolume.TearDown failed: device or resource busy'),
    );
  if (o.nodeDown)
    for (const n of s.nodes)
      if (n.metadata?.name === 'node-01') n.status = { conditions: [{ type: 'Ready', status: 'Unknown' }] };
  return s;
}

/** node-01's agent: the pod's mount held by tar through its working directory. */
const heldByTar: NodeReports = {
  kind: 'asked',
  states: new Map([
    [
      'node-01',
      {
        kind: 'report',
        at: NOW,
        report: healthyReport('node-01', {
          busyMounts: {
            status: 'ok',
            processesChecked: 120,
            unreadableCount: 0,
            unreadable: [],
            mounts: [
              {
                mountPoint: MOUNT,
                podUid: UID,
                pv: 'pvc-data',
                processCount: 1,
                processes: [{ pid: 31337, comm: 'tar', via: 'cwd', path: MOUNT }],
                namespaces: [],
              },
            ],
          },
        }),
      },
    ],
  ]),
};

const CASES: {
  name: string;
  cluster: Snapshot;
  reports?: NodeReports;
  want: { text: RegExp; held: boolean }[];
}[] = [
  // The agent answered: the process that holds the mount, named.
  {
    name: 'the agent names the holder',
    cluster: stuckCluster({ unmountEvent: true }),
    reports: heldByTar,
    want: [{ text: new RegExp(`^tar \\(pid 31337, on the host\\) holds ${MOUNT}$`), held: true }],
  },
  // No agent asked (a snapshot, or the option absent): not visible from the API, with what to run on node-01.
  {
    name: 'no agent asked',
    cluster: stuckCluster(),
    want: [
      {
        text: /^What holds the volume mount of shop\/data-web-0 on node-01 is not visible from the API \(the node agents were not asked\).*On node-01, read-only: journalctl -u kubelet \| grep uid-pod-shop-data-web-0/,
        held: false,
      },
    ],
  },
  // Asked, but no agent runs on node-01: said so, never "nothing holds it".
  {
    name: 'no agent on the node',
    cluster: stuckCluster({ unmountEvent: true }),
    reports: { kind: 'asked', states: new Map() },
    want: [{ text: /not visible from the API \(no rwx agent runs on node-01\)/, held: false }],
  },
  // A finalizer and no unmount event: the finalizer holds the pod, not its mount (as the thread locates it).
  { name: 'held by a finalizer', cluster: stuckCluster({ finalizers: ['example.com/drain-guard'] }), want: [] },
  // node-01 not Ready: the node itself holds the pod, whatever its agent would say.
  { name: 'node not ready', cluster: stuckCluster({ nodeDown: true }), reports: heldByTar, want: [] },
];

describe("triage's UNPUBLISH_STUCK evidence: what holds the pod's mount", () => {
  it.each(CASES)('$name', (tc) => {
    const index = ClusterIndex.fromSnapshot(tc.cluster);
    const r = triage(index, { now: NOW, ...(tc.reports ? { nodeReports: tc.reports } : {}) });
    const c = r.claims[0]!;
    expect(c.phase).toBe('UNPUBLISH_STUCK');
    expect(c.evidence.holds.map((h) => h.held)).toEqual(tc.want.map((w) => w.held));
    tc.want.forEach((w, i) => expect(c.evidence.holds[i]?.text).toMatch(w.text));
    for (const h of c.evidence.holds) expect(h).toMatchObject({ pod: 'shop/data-web-0', node: 'node-01' });
    // The one function the thread uses for the same pod gives the same lines.
    const p = index.get('pods', `${NS}/data-web-0`)!;
    expect(c.evidence.holds).toEqual(terminatingPodHolds(index, p, NOW, tc.reports) ?? []);
  });

  it("its next steps release the holder the agent named, in the drain advice's words; without a name, find it", () => {
    const steps = (reports?: NodeReports) =>
      triage(ClusterIndex.fromSnapshot(stuckCluster({ unmountEvent: true })), {
        now: NOW,
        ...(reports ? { nodeReports: reports } : {}),
      }).claims[0]!.advice;
    const named = steps(heldByTar);
    expect(named).toContain(releaseHeldStep('node-01', [`tar (pid 31337, on the host) holds ${MOUNT}`]));
    expect(named.join('\n')).not.toMatch(/find it \(fuser/);
    expect(named.join('\n')).toMatch(/never force-delete/);
    expect(steps().join('\n')).toMatch(/On node-01, find it \(fuser -vm/);
  });

  it('an OK claim has no holds, and a pod not deleted has no lines', () => {
    const s = stuckCluster();
    delete s.pods[0]!.metadata!.deletionTimestamp;
    const index = ClusterIndex.fromSnapshot(s);
    expect(triage(index, { now: NOW }).claims[0]?.evidence.holds).toEqual([]);
    expect(terminatingPodHolds(index, s.pods[0]!, NOW, heldByTar)).toBeUndefined();
  });
});

describe('what holds the mount, where triage is read', () => {
  const withAgent = triage(ClusterIndex.fromSnapshot(stuckCluster({ unmountEvent: true })), {
    now: NOW,
    nodeReports: heldByTar,
  });
  const noAgent = triage(ClusterIndex.fromSnapshot(stuckCluster()), { now: NOW });
  const held = withAgent.claims[0]!.evidence.holds[0]!.text;
  const unseen = noAgent.claims[0]!.evidence.holds[0]!.text;

  it('rwx triage: a mount line under the claim, and evidence.holds in the JSON', () => {
    expect(renderTable(withAgent)).toContain(`\n        mount  ${held}\n`);
    expect(renderTable(noAgent)).toContain(`\n        mount  ${unseen}\n`);
    const json = JSON.parse(renderJson(withAgent)) as typeof withAgent;
    expect(json.claims[0]?.evidence.holds).toEqual([
      { pod: 'shop/data-web-0', node: 'node-01', text: held, held: true },
    ]);
  });

  it('/rwx triage: the line in the claim section, escaped', () => {
    const said = (r: typeof withAgent) => JSON.stringify(renderTriage(r, { kind: 'all' }, false).response.blocks);
    expect(said(withAgent)).toContain(JSON.stringify(`:lock: ${escapeSlack(held)}`).slice(1, -1));
    expect(said(noAgent)).toContain(JSON.stringify(`:grey_question: ${escapeSlack(unseen)}`).slice(1, -1));
  });
});
