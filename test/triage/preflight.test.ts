import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Snapshot } from '../../src/domain/snapshot.js';
import { triage } from '../../src/triage/triage.js';
import type { CheckStatus, PreflightCheck, TriageOptions } from '../../src/triage/types.js';
import { DRIVER, NOW, baseCluster, csiDriver, csiNode, healthyClaim, lease, node, pvc } from './fixtures.js';

interface Case {
  name: string;
  build: (s: Snapshot) => void;
  access?: TriageOptions['access'];
  check: PreflightCheck['check'];
  subject: string;
  status: CheckStatus;
  detail: RegExp;
  undecided?: RegExp;
}

const CASES: Case[] = [
  // Healthy cluster: every driver check passes.
  {
    name: 'csidriver present',
    build: () => {},
    check: 'csidriver',
    subject: DRIVER,
    status: 'ok',
    detail: /attachRequired=false podInfoOnMount=true modes=Persistent/,
  },
  // CSIDriver with null spec fields: the API defaults (attachRequired true, Persistent) are shown.
  {
    name: 'csidriver with null fields',
    build: (s) => {
      s.csiDrivers = [csiDriver(DRIVER, { attachRequired: null, podInfoOnMount: null, volumeLifecycleModes: null })];
    },
    check: 'csidriver',
    subject: DRIVER,
    status: 'ok',
    detail: /attachRequired=true podInfoOnMount=false modes=Persistent/,
  },
  // No CSIDriver object for a driver in use.
  {
    name: 'csidriver missing',
    build: (s) => {
      s.csiDrivers = [];
    },
    check: 'csidriver',
    subject: DRIVER,
    status: 'problem',
    detail: /no CSIDriver object/,
  },
  // Registered on every schedulable node.
  {
    name: 'csinode full coverage',
    build: () => {},
    check: 'csinode',
    subject: DRIVER,
    status: 'ok',
    detail: /registered on all 2 schedulable node\(s\)/,
  },
  // A node whose CSINode lacks the driver, one with no CSINode at all; a cordoned node is not counted.
  {
    name: 'csinode gaps',
    build: (s) => {
      s.nodes.push(
        node('node-03'),
        node('node-04'),
        node('node-05', { unschedulable: true }),
        node('cp-1', { taint: 'node-role.kubernetes.io/control-plane' }),
      );
      s.csiNodes.push(csiNode('node-03', ['other.csi.io']));
    },
    check: 'csinode',
    subject: DRIVER,
    status: 'problem',
    detail:
      /not registered on 2 of 4 schedulable node\(s\): node-03, node-04 \(works on some nodes, not others\) \(2 cordoned or tainted/,
  },
  // A live leader.
  {
    name: 'leader renewed',
    build: () => {},
    check: 'leader',
    subject: DRIVER,
    status: 'ok',
    detail: /held by vmstore-csi-controller-7d9f-0, renewed 5s ago/,
  },
  // Renewed 31s ago with a 15s lease: older than 2x, no leader.
  {
    name: 'leader lease stale',
    build: (s) => {
      s.leases = [lease('csi-vmstore-tintri-com', { renewedAgo: 31 })];
    },
    check: 'leader',
    subject: DRIVER,
    status: 'problem',
    detail: /last renewed 31s ago \(> 2x 15s\): no leader, nothing provisions/,
  },
  // Renewed 29s ago: within 2x, still a leader.
  {
    name: 'leader lease just inside 2x',
    build: (s) => {
      s.leases = [lease('csi-vmstore-tintri-com', { renewedAgo: 29 })];
    },
    check: 'leader',
    subject: DRIVER,
    status: 'ok',
    detail: /renewed 29s ago/,
  },
  // leaseDurationSeconds null: the client-go default of 15s applies.
  {
    name: 'leader lease without duration',
    build: (s) => {
      s.leases = [lease('csi-vmstore-tintri-com', { renewedAgo: 40, duration: null })];
    },
    check: 'leader',
    subject: DRIVER,
    status: 'problem',
    detail: /> 2x 15s/,
  },
  // A lease nobody holds.
  {
    name: 'leader lease without holder',
    build: (s) => {
      s.leases = [lease('csi-vmstore-tintri-com', { holder: null })];
    },
    check: 'leader',
    subject: DRIVER,
    status: 'problem',
    detail: /no holder/,
  },
  // Only a sidecar's lease that contains the driver name: used when the exact one is absent.
  {
    name: 'leader from a sidecar lease',
    build: (s) => {
      s.leases = [lease('external-attacher-leader-csi-vmstore-tintri-com')];
    },
    check: 'leader',
    subject: DRIVER,
    status: 'ok',
    detail: /external-attacher-leader/,
  },
  // No lease at all: cannot say.
  {
    name: 'no leader lease',
    build: (s) => {
      s.leases = [lease('unrelated')];
    },
    check: 'leader',
    subject: DRIVER,
    status: 'unknown',
    detail: /no leader Lease found \(looked for "csi-vmstore-tintri-com"\)/,
  },
  // Access review denies volumeattachments: reported, and what it means.
  {
    name: 'access denied by review',
    build: () => {},
    access: [{ kind: 'volumeAttachments', allowed: false }],
    check: 'access',
    subject: 'volumeattachments',
    status: 'unknown',
    detail: /list not allowed: STALE_ATTACHMENT is not decided/,
    undecided: /volumeattachments \(list not allowed\): STALE_ATTACHMENT is not decided/,
  },
  // A snapshot without leases: unreadable, so the leader check cannot be decided.
  {
    name: 'leases not in snapshot',
    build: (s) => {
      s.leases = [];
      s.unreadable.push({ kind: 'leases', reason: 'not in snapshot' });
    },
    check: 'leader',
    subject: DRIVER,
    status: 'unknown',
    detail: /leases not readable/,
    undecided: /leases \(not in snapshot\): the controller leader is not checked/,
  },
  // csinodes forbidden (403 on list): coverage unknown.
  {
    name: 'csinodes forbidden',
    build: (s) => {
      s.csiNodes = [];
      s.unreadable.push({ kind: 'csiNodes', reason: 'forbidden: csinodes is forbidden' });
    },
    check: 'csinode',
    subject: DRIVER,
    status: 'unknown',
    detail: /not readable/,
  },
  // Access all fine from a live review.
  {
    name: 'access allowed',
    build: () => {},
    access: [{ kind: 'pods', allowed: true }],
    check: 'access',
    subject: 'pods',
    status: 'ok',
    detail: /^list allowed$/,
  },
];

describe('triage preflight', () => {
  it.each(CASES)('$name', (tc) => {
    const s = baseCluster();
    healthyClaim(s, 'shop', 'data');
    tc.build(s);
    const r = triage(ClusterIndex.fromSnapshot(s), { now: NOW, access: tc.access });
    const found = r.preflight.find((p) => p.check === tc.check && p.subject === tc.subject);
    expect(found).toBeDefined();
    expect(found!.status).toBe(tc.status);
    expect(found!.detail).toMatch(tc.detail);
    if (tc.undecided) expect(r.undecided.join('\n')).toMatch(tc.undecided);
    expect(r.summary.preflightProblems).toBe(r.preflight.filter((p) => p.status === 'problem').length);
  });

  it('checks each driver in use once, and the --driver even without claims', () => {
    const s = baseCluster();
    healthyClaim(s, 'a', 'one');
    healthyClaim(s, 'a', 'two');
    const r = triage(ClusterIndex.fromSnapshot(s), { now: NOW });
    expect(r.preflight.filter((p) => p.check !== 'access').map((p) => `${p.check}:${p.subject}`)).toEqual([
      `csidriver:${DRIVER}`,
      `csinode:${DRIVER}`,
      `leader:${DRIVER}`,
    ]);
    const r2 = triage(ClusterIndex.fromSnapshot(s), { now: NOW, driver: 'nfs.csi.k8s.io' });
    expect(r2.claims).toEqual([]);
    expect(r2.preflight.find((p) => p.check === 'csidriver')).toMatchObject({
      subject: 'nfs.csi.k8s.io',
      status: 'problem',
    });
  });

  it('says what it could not decide when pods are unreadable', () => {
    const s = baseCluster();
    s.pvcs.push(pvc('a', 'wait', { volume: null, sc: 'vmstore-rwx-wffc' }));
    s.unreadable.push({ kind: 'pods', reason: 'forbidden: pods is forbidden' });
    const r = triage(ClusterIndex.fromSnapshot(s), { now: NOW });
    expect(r.claims[0]!.detail).toMatch(/pods not readable: consumers unknown/);
    expect(r.undecided[0]).toMatch(/^pods \(forbidden: pods is forbidden\): consumers unknown/);
  });
});
