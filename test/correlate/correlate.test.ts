// Verdicts: rollout, node, unexplained, not storage; CronJobs joining their pods' incident.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Incident } from '../../src/domain/incident.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import {
  ago,
  cronJob,
  cronJobJob,
  csiNode,
  DAY,
  event,
  failedCronJobJob,
  MIN,
  NOW,
  runPod,
  snapshotOf,
} from '../detect/builders.js';
import { miniCluster, miniNodes, type MiniOpts } from './mini-cluster.js';
import { rolloutObjects, UPDATED } from './rollout-fixture.js';

const scan = (index: ClusterIndex): Incident[] => evaluate(index, { now: NOW }).incidents;
const summary = (incs: Incident[]) => incs.map((i) => [i.key, i.verdict, i.pods.map((p) => p.pod.name).sort()]);

describe('the rollout incident', () => {
  const incidents = scan(ClusterIndex.fromSnapshot(snapshotOf(rolloutObjects())));
  const inc = incidents[0]!;

  it('is exactly one FOLLOWS_ROLLOUT incident for ebs-csi-node revision 2 with every symptom in it', () => {
    expect(summary(incidents)).toEqual([
      [
        'rollout/kube-system/ebs-csi-node@2',
        'FOLLOWS_ROLLOUT',
        ['nightly-backup-29406600-x7k2p', 'postgres-2', 'search-7d9f8c6b5-d', 'search-7d9f8c6b5-e'],
      ],
    ]);
    expect(inc.cronJobs.map((c) => [c.cronJob.name, c.missedRuns])).toEqual([['nightly-backup', 2]]);
    expect(inc.workloads.map((w) => `${w.kind} ${w.namespace}/${w.name}`)).toEqual([
      'CronJob data/nightly-backup',
      'StatefulSet platform/postgres',
      'Deployment search/search',
    ]);
  });

  it('carries the 2x2 counts, rollout start, updated/desired and the propagation diff', () => {
    const ev = inc.rollout!;
    expect(ev.counts).toEqual({ newStuck: 4, newFine: 8, oldStuck: 0, oldFine: 28, newProven: 0, oldProven: 4 });
    expect([ev.newRevision, ev.previousRevision, ev.updatedNodes, ev.desiredNodes, ev.rolloutStart]).toEqual([
      2,
      1,
      12,
      40,
      '2026-11-30T06:40:00.000Z',
    ]);
    expect(ev.nodesOnNewRevision).toEqual(UPDATED);
    expect(ev.diff.map((d) => d.text)).toEqual(['kubelet-dir: mountPropagation Bidirectional -> none']);
    expect(inc.title).toBe('ebs.csi.aws.com: stuck mounts follow kube-system/ebs-csi-node revision 2');
    expect(inc.summary).toContain('4 of 12 nodes on revision 2 have stuck mounts, 0 of 28 on revision 1');
  });

  it('tables the stuck nodes with plugin revision and age, then the nodes where the search pods started', () => {
    expect(inc.nodes.map((n) => [n.node, n.plugin?.revision, n.stuckPods.length, n.runningPods ?? []])).toEqual([
      ['node-19', 2, 1, []],
      ['node-21', 2, 1, []],
      ['node-23', 2, 1, []],
      ['node-25', 2, 1, []],
      ['node-02', 1, 0, ['search/search-7d9f8c6b5-a']],
      ['node-08', 1, 0, ['search/search-7d9f8c6b5-b']],
      ['node-14', 1, 0, ['search/search-7d9f8c6b5-c']],
    ]);
    expect(inc.nodes[0]?.plugin?.ageSeconds).toBe(2 * 3600 + 12 * 60);
  });

  it('says do not drain, how to roll back, what to cordon, and to leave stuck pods alone', () => {
    expect(inc.nextSteps[0]).toMatch(/^Do not drain: /);
    expect(inc.nextSteps).toContain(
      'Roll back to revision 1, the newest revision whose pod template the stuck nodes did not run (restores volumeMount kubelet-dir mountPropagation Bidirectional in container ebs-plugin): kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1',
    );
    expect(inc.nextSteps.find((s) => s.startsWith('Cordon'))).toContain(`kubectl cordon ${UPDATED.join(' ')}`);
    expect(inc.nextSteps.some((s) => s.startsWith('Leave stuck pods alone'))).toBe(true);
    expect(inc.drain.map((d) => [d.node, d.decision])).toEqual([
      ['node-19', 'BLOCK'],
      ['node-21', 'BLOCK'],
      ['node-23', 'BLOCK'],
      ['node-25', 'BLOCK'],
    ]);
  });

  it('explains every confusing observation of the rollout incident', () => {
    const text = (inc.explanations ?? []).join('\n');
    for (const needle of [
      'What happened at 2026-11-30T06:40:00.000Z', // "what happened at 06:40"
      'kubelet-dir: mountPropagation Bidirectional -> none', // which part of the storage path is left
      'attached to their node', // the storage team: every volume attached
      '40 of 40 node plugin pods are Ready', // the driver is in perfect health
      'Deleting a stuck pod helps only when', // "fixes it about half the time"
      'node-02, node-08, node-14', // the three search pods that started
      'are unaffected', // workloads already running
      'Not flaky nodes', // "particular nodes are flaky"
      'node-19 is cordoned', // the drain in progress
      'CronJob data/nightly-backup: 2 scheduled runs missed', // the backup
    ])
      expect(text).toContain(needle);
  });
});

/** One claim stuck on n-01 and n-02, which both mount other ebs volumes since their plugin started. */
const VOLUME_FAULT = [
  { name: 'a', node: 'n-01', claim: 'shared' },
  { name: 'b', node: 'n-02', claim: 'shared' },
  { name: 'ok1', node: 'n-01', runningFor: 10 * MIN },
  { name: 'ok2', node: 'n-02', runningFor: 10 * MIN },
];

describe('the explanation is chosen by the evidence', () => {
  // The kubelet's CSI client (pkg/volume/csi/csi_client.go, newCsiDriverClient) when the node plugin never registered.
  const notRegistered =
    'MountVolume.MountDevice failed for volume "data" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name ebs.csi.aws.com not found in the list of registered CSI drivers';
  it('a rollout whose pods say the driver is not registered: the registration line, not the propagation story', () => {
    const pods = [
      { name: 'a', node: 'n-01', message: notRegistered },
      { name: 'b', node: 'n-02', message: notRegistered },
    ];
    const [inc] = scan(miniCluster({ onRevision2: ['n-01', 'n-02'], pods }));
    const text = inc?.explanations?.join('\n') ?? '';
    expect(inc?.verdict).toBe('FOLLOWS_ROLLOUT');
    expect(text).toMatch(/2 stuck pods wait on nodes where the driver is not registered/);
    expect(text).not.toMatch(/Bidirectional propagation|cannot see it/);
  });

  /** CSINodes of the mini cluster: every node lists ebs, except `without`. */
  const csiNodes = (without: string[]) =>
    miniNodes(10).map((n) => csiNode(n, without.includes(n) ? [] : ['ebs.csi.aws.com']));

  it('a rollout whose new-revision nodes lack the driver in their CSINode: the registration line, rollout-correlated', () => {
    // The kubelet only says "timed out"; the CSINodes of n-01 and n-02 (revision 2) no longer list the driver.
    const pods = [
      { name: 'a', node: 'n-01' },
      { name: 'b', node: 'n-02' },
    ];
    const [inc, ...rest] = scan(
      miniCluster({ onRevision2: ['n-01', 'n-02'], pods, extra: csiNodes(['n-01', 'n-02']) }),
    );
    const text = inc?.explanations?.join('\n') ?? '';
    expect([inc?.verdict, rest.length]).toEqual(['FOLLOWS_ROLLOUT', 0]);
    expect(text).toMatch(/2 stuck pods wait on nodes where the driver is not registered .*CSINode without it/);
    expect(text).not.toMatch(/Bidirectional propagation|cannot see it/);
    expect(inc?.pods.map((p) => p.location?.evidence)).toContainEqual(
      expect.arrayContaining(['CSINode n-01 lists no driver: ebs.csi.aws.com is not registered there']),
    );
  });

  it('the same pods with the driver in every CSINode: the propagation story, no registration line', () => {
    const pods = [
      { name: 'a', node: 'n-01' },
      { name: 'b', node: 'n-02' },
    ];
    const [inc] = scan(miniCluster({ onRevision2: ['n-01', 'n-02'], pods, extra: csiNodes([]) }));
    const text = inc?.explanations?.join('\n') ?? '';
    expect(inc?.verdict).toBe('FOLLOWS_ROLLOUT');
    expect(text).not.toMatch(/driver is not registered/);
    expect(text).toMatch(/Bidirectional propagation/);
  });

  it("no rollout: a node whose CSINode lacks the driver is located as that node's registration problem", () => {
    const pods = [{ name: 'a', node: 'n-03' }];
    const [inc] = scan(miniCluster({ pods, extra: csiNodes(['n-03']) }));
    expect(inc?.verdict).not.toBe('FOLLOWS_ROLLOUT');
    expect(inc?.location).toMatchObject({ layer: 'stage', holder: 'n-03', unregistered: 'ebs.csi.aws.com' });
    expect(inc?.location?.actor).toMatch(/node plugin of ebs\.csi\.aws\.com on n-03, which is not registered/);
  });
});

describe('volume health reported by the driver', () => {
  // The external-health-monitor's Warning VolumeConditionAbnormal on the claim (pkg/csi-handler/pv_checker.go).
  const abnormal = () => {
    const e = event('ns', 'c-a', 'VolumeConditionAbnormal', 'Volume is not found at 2026-11-30 09:00:00', ago(MIN));
    return { ...e, involvedObject: { kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'c-a' } };
  };

  it('is evidence the incident carries: on its location and in its explanations, after where it is stuck', () => {
    const [inc] = scan(miniCluster({ pods: [{ name: 'a', node: 'n-01' }], extra: [abnormal()] }));
    expect(inc?.location?.volumeHealth).toEqual([
      'PersistentVolumeClaim ns/c-a VolumeConditionAbnormal: Volume is not found at 2026-11-30 09:00:00',
    ]);
    expect(inc?.explanations?.[1]).toBe(
      'The driver reports a volume abnormal (CSI external-health-monitor events): PersistentVolumeClaim ns/c-a VolumeConditionAbnormal: Volume is not found at 2026-11-30 09:00:00.',
    );
  });

  it('says nothing when the monitor says nothing', () => {
    const [inc] = scan(miniCluster({ pods: [{ name: 'a', node: 'n-01' }] }));
    expect(inc?.location?.volumeHealth).toBeUndefined();
    expect(inc?.explanations?.join('\n')).not.toMatch(/health-monitor/);
  });
});

describe('what an unexplained incident says it saw', () => {
  it('a CronJob whose Jobs fail: what they failed with, and that no storage is involved', () => {
    const cj = cronJob('d', 'b', '0 * * * *', { lastSuccess: '2026-11-30T06:30:00Z' });
    const [job, p] = failedCronJobJob(
      cj,
      '2026-11-30T08:00:00Z',
      'DeadlineExceeded',
      'Job was active longer than specified deadline',
      'b-x',
    );
    const [inc] = scan(ClusterIndex.fromSnapshot(snapshotOf([cj, job, p])));
    expect(inc?.explanations?.join('\n')).toMatch(
      /Its Jobs: 1 failed with DeadlineExceeded: Job was active longer than specified deadline \(b-\d+\)\. Its pods use no storage volume: not a storage fault\./,
    );
  });

  it('a CronJob whose Jobs fail while a new run is Running: its own incident, the failures and the run in words', () => {
    // hourly: 07:00 failed (backoff limit), 08:00 left no Job, 09:00 is Running (started at once): two missed
    const cj = cronJob('d', 'b', '0 * * * *', { lastSuccess: '2026-11-30T06:30:00Z' });
    const [job, p] = failedCronJobJob(
      cj,
      '2026-11-30T07:00:00Z',
      'BackoffLimitExceeded',
      'Job has reached the specified backoff limit',
      'b-x',
    );
    const run = cronJobJob(cj, '2026-11-30T09:00:00Z', { active: 1 });
    const running = runPod(run, 'b-run', {
      node: 'n-01',
      scheduled: '2026-11-30T09:00:02Z',
      started: '2026-11-30T09:00:09Z',
    });
    const incidents = scan(ClusterIndex.fromSnapshot(snapshotOf([cj, job, p, run, running])));
    expect(incidents.map((i) => [i.key, i.verdict])).toEqual([['cronjob/d/b', 'UNEXPLAINED']]);
    expect(incidents[0]?.summary).toBe(
      'UNEXPLAINED: 2 scheduled runs missed (1 failed: BackoffLimitExceeded; a run is in progress since 2026-11-30T09:00:00.000Z; its pods use no storage volume); no stuck pod of its Jobs explains it',
    );
    expect(incidents[0]?.nextSteps[0]).toMatch(
      /^kubectl describe job b-\d+ -n d: the newest failed run \(BackoffLimitExceeded\)/,
    );
  });

  it('a volume fault: about the claim, draining and rollback do nothing', () => {
    const ev = evaluate(miniCluster({ pods: VOLUME_FAULT }), { now: NOW });
    const [inc] = ev.incidents;
    expect(inc?.title).toBe('Claim ns/shared: fails on every node it is tried on (the volume, not the nodes)');
    expect(inc?.nextSteps.join('\n')).toMatch(/Do not drain, cordon or roll back/);
    expect(inc?.nextSteps.join('\n')).not.toMatch(/kubectl cordon|rollout undo|rwx gate/);
    expect(ev.drain('n-01').reason).toMatch(
      /volume fails on every node it is tried on: draining moves it into the same failure/,
    );
  });

  it('a running consumer of that volume: draining its node moves it into the same failure', () => {
    const pods = [...VOLUME_FAULT, { name: 'reader', node: 'n-05', claim: 'shared', runningFor: 2 * DAY }];
    const advice = evaluate(miniCluster({ pods }), { now: NOW }).drain('n-05');
    expect([advice.decision, advice.reason]).toEqual([
      'CAUTION',
      'ns/reader (claim ns/shared) runs here on a volume that cannot be mounted now (incident volume/ns/shared): evicted, it must mount it again wherever it lands, and moves into the same failure.',
    ]);
  });

  it('a finished rollout with no control group: the revision cannot be compared', () => {
    const [inc] = scan(
      miniCluster({
        nodes: 3,
        onRevision2: ['n-01', 'n-02', 'n-03'],
        pods: [
          { name: 'a', node: 'n-01' },
          { name: 'b', node: 'n-02' },
        ],
      }),
    );
    expect(inc?.explanations?.join('\n')).toMatch(
      /revision 2 .*the revision cannot be compared.*no rollback is advised/,
    );
    expect(inc?.nextSteps.join('\n')).not.toMatch(/rollout undo/);
  });

  it('a node that mounts the driver fine: says so, and does not blame the node', () => {
    const pods = [
      { name: 'a', node: 'n-01' },
      { name: 'ok', node: 'n-01', runningFor: 10 * MIN },
    ];
    const [inc] = scan(miniCluster({ pods }));
    expect(inc?.explanations?.join('\n')).toMatch(
      /n-01 mounts ebs.csi.aws.com volumes: ns\/ok started there after its node plugin/,
    );
  });
});

describe('verdicts', () => {
  const stuckOn = (...nodes: string[]) => nodes.map((n, i) => ({ name: `p${i}`, node: n }));
  it.each<[string, MiniOpts, [string, string, string[]][]]>([
    // stuck only on revision-2 nodes while revision 1 nodes are fine
    [
      'rollout',
      { onRevision2: ['n-01', 'n-02', 'n-03'], pods: stuckOn('n-01', 'n-02') },
      [['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT', ['p0', 'p1']]],
    ],
    // a node on the old revision is stuck too: not the rollout, spread over nodes: unexplained
    [
      'old revision stuck',
      { onRevision2: ['n-01', 'n-02'], pods: stuckOn('n-01', 'n-05') },
      [['unexplained/ebs.csi.aws.com', 'UNEXPLAINED', ['p0', 'p1']]],
    ],
    // no rollout; two workloads stuck on one node only
    [
      'node',
      {
        pods: [
          { name: 'a', node: 'n-03' },
          { name: 'b', node: 'n-03' },
        ],
      },
      [['node/n-03', 'FOLLOWS_NODE', ['a', 'b']]],
    ],
    // one pod stuck on one node, and the same plugin revision mounted a pod on another node since: the node differs
    [
      'node, revision proven elsewhere',
      {
        pods: [
          { name: 'a', node: 'n-03' },
          { name: 'ok', node: 'n-04', runningFor: 30 * MIN },
        ],
      },
      [['node/n-03', 'FOLLOWS_NODE', ['a']]],
    ],
    // one pod stuck on one node with no proof either way: unexplained
    [
      'single pod, no proof',
      { pods: [{ name: 'a', node: 'n-03' }] },
      [['unexplained/ebs.csi.aws.com', 'UNEXPLAINED', ['a']]],
    ],
    // one node stuck across two drivers while a rollout of one of them is in progress
    [
      'node across drivers',
      {
        onRevision2: ['n-01', 'n-03'],
        pods: [
          { name: 'a', node: 'n-03' },
          { name: 'b', node: 'n-03', driver: 'efs.csi.aws.com' },
        ],
      },
      [['node/n-03', 'FOLLOWS_NODE', ['a', 'b']]],
    ],
    // a pod mounted on a revision-2 node after its plugin started: revision 2 mounts, so not the rollout; the
    // stuck node is what differs
    [
      'new revision proven',
      {
        onRevision2: ['n-01', 'n-02'],
        pods: [
          { name: 'a', node: 'n-01' },
          { name: 'ok', node: 'n-02', runningFor: 30 * MIN },
        ],
      },
      [['node/n-01', 'FOLLOWS_NODE', ['a']]],
    ],
    // one stuck pod on n-01 while another pod with the same driver's volume mounted there since its plugin started:
    // the node mounts the driver, so it is not "follows the node" (no corroboration), it is unexplained
    [
      'node mounts fine',
      {
        pods: [
          { name: 'a', node: 'n-01' },
          { name: 'ok', node: 'n-01', runningFor: 10 * MIN },
          { name: 'ok2', node: 'n-02', runningFor: 10 * MIN },
        ],
      },
      [['unexplained/ebs.csi.aws.com', 'UNEXPLAINED', ['a']]],
    ],
    // one claim stuck on two nodes (a rollout in progress, both on revision 2) while both nodes mount other ebs
    // volumes since their plugin started: the volume's fault, one incident, not the rollout's and not the nodes'
    [
      'volume fault',
      {
        onRevision2: ['n-01', 'n-02'],
        pods: [
          { name: 'a', node: 'n-01', claim: 'shared' },
          { name: 'b', node: 'n-02', claim: 'shared' },
          { name: 'ok1', node: 'n-01', runningFor: 10 * MIN },
          { name: 'ok2', node: 'n-02', runningFor: 10 * MIN },
        ],
      },
      [['volume/ns/shared', 'UNEXPLAINED', ['a', 'b']]],
    ],
    // sandbox failures: not storage, never in a storage incident
    [
      'cni',
      {
        pods: [
          { name: 'a', node: 'n-04', reason: 'FailedCreatePodSandBox' },
          { name: 'b', node: 'n-04', reason: 'FailedCreatePodSandBox' },
        ],
      },
      [['not-storage', 'NOT_STORAGE', ['a', 'b']]],
    ],
    // a CNI fault spreading over nodes: one incident for all of them, not one per node
    [
      'cni on three nodes',
      { pods: ['n-01', 'n-02', 'n-04'].map((node, i) => ({ name: `s${i}`, node, reason: 'FailedCreatePodSandBox' })) },
      [['not-storage', 'NOT_STORAGE', ['s0', 's1', 's2']]],
    ],
    // cni and rollout side by side stay apart
    [
      'cni beside rollout',
      {
        onRevision2: ['n-01'],
        pods: [
          { name: 'a', node: 'n-01' },
          { name: 'b', node: 'n-01', reason: 'FailedCreatePodSandBox' },
        ],
      },
      [
        ['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT', ['a']],
        ['not-storage', 'NOT_STORAGE', ['b']],
      ],
    ],
    // no events at all: cause unknown
    [
      'unknown',
      { pods: [{ name: 'a', node: 'n-04', reason: 'none' }] },
      [['unexplained/cause-unknown', 'UNEXPLAINED', ['a']]],
    ],
    // rollout complete on every node, stuck on two of them: no node left on the previous revision to compare with,
    // so the revision cannot be compared and is not blamed (a claim refused by every node looks the same)
    [
      'complete rollout',
      { nodes: 3, onRevision2: ['n-01', 'n-02', 'n-03'], pods: stuckOn('n-01', 'n-02') },
      [['unexplained/ebs.csi.aws.com', 'UNEXPLAINED', ['p0', 'p1']]],
    ],
    // no events, but the claim's driver follows the rollout and the node runs the bad revision: joins it;
    // the same on a revision-1 node stays unexplained
    [
      'eventless joins rollout',
      {
        onRevision2: ['n-01', 'n-02'],
        pods: [
          { name: 'a', node: 'n-01' },
          { name: 'b', node: 'n-02', reason: 'none' },
          { name: 'c', node: 'n-05', reason: 'none' },
        ],
      },
      [
        ['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT', ['a', 'b']],
        ['unexplained/cause-unknown', 'UNEXPLAINED', ['c']],
      ],
    ],
    // nothing stuck
    ['healthy', { onRevision2: ['n-01'] }, []],
  ])('%s', (_name, opts, want) => {
    expect(summary(scan(miniCluster(opts)))).toEqual(want);
  });

  it('keeps the rollout key while a rollback restores the old template as revision 3', () => {
    // after `rollout undo` revision 1 is renumbered 3 but keeps its creation time; revision 2 is still the newest
    const index = miniCluster({ onRevision2: ['n-01', 'n-02'], pods: stuckOn('n-01') });
    const r1 = index.get('controllerRevisions', 'kube-system/ebs-csi-node-h1')!;
    index.upsert('controllerRevisions', { ...r1, revision: 3 });
    const [inc] = scan(index);
    expect([inc?.key, inc?.rollout?.previousRevision]).toEqual(['rollout/kube-system/ebs-csi-node@2', 3]);
  });

  it('names every node of a sandbox incident, and the node alone when there is one', () => {
    const sandbox = (nodes: string[]) =>
      scan(
        miniCluster({ pods: nodes.map((node, i) => ({ name: `s${i}`, node, reason: 'FailedCreatePodSandBox' })) }),
      )[0]!;
    const many = sandbox(['n-04', 'n-01', 'n-02']);
    expect([many.node, many.title]).toEqual([undefined, '3 nodes: pods cannot get a sandbox (network, not storage)']);
    expect(many.summary).toContain('3 pods on 3 nodes (n-01, n-02, n-04)');
    expect(many.nextSteps[0]).toContain('container runtime on n-01, n-02, n-04.');
    expect(many.nextSteps.join('\n')).not.toContain('NODE');
    const one = sandbox(['n-04', 'n-04']);
    expect([one.node, one.title]).toEqual(['n-04', 'n-04: pods cannot get a sandbox (network, not storage)']);
    expect(one.nextSteps[1]).toBe('kubectl get pods -A -o wide --field-selector spec.nodeName=n-04');
  });

  it('a CronJob with no stuck pod forms its own honestly labelled incident', () => {
    const index = miniCluster({
      extra: [cronJob('ns', 'report', '0 3 * * *', { lastSuccess: new Date(NOW - 2 * DAY).toISOString() })],
    });
    const incs = scan(index);
    expect(incs.map((i) => [i.key, i.verdict, i.title])).toEqual([
      ['cronjob/ns/report', 'UNEXPLAINED', 'CronJob ns/report: scheduled runs did not complete'],
    ]);
    expect(incs[0]?.summary).toContain('no stuck pod of its Jobs explains it');
  });
});
