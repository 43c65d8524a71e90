// What the driver's health monitor says of a stuck pod's volumes (src/correlate/volume-health.ts), one case each. The
// wording is the CSI external-health-monitor's: Warning VolumeConditionAbnormal with the driver's message on the
// claim or the pod and Normal VolumeConditionNormal "The Volume returns to the healthy state" after it
// (pkg/csi-handler/pv_checker.go, pkg/util/util.go); Warning NodeFailed "Pods: [ ... ] consuming PVC: ... are now on a
// failed node: ..." and NodeRecovered "Node: ... recovered" on the claim (pkg/controller/node_watcher.go).
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { StuckPodFinding } from '../../src/domain/findings.js';
import type { KubeEvent } from '../../src/domain/objects.js';
import { volumeHealth } from '../../src/correlate/volume-health.js';
import { event, snapshotOf } from '../detect/builders.js';

const T1 = '2026-11-30T09:00:00Z';
const T2 = '2026-11-30T09:05:00Z';
const LOST = 'Volume is not found at 2026-11-30 09:00:00';
const FAILED = 'Pods: [ postgres-0 ] consuming PVC: data-postgres-0 in namespace: db are now on a failed node: node-a';

/** An event of `reason` on the claim db/data-postgres-0. */
function onClaim(reason: string, message: string, at: string, type = 'Warning'): KubeEvent {
  const e = event('db', 'data-postgres-0', reason, message, at, 1, type);
  return { ...e, involvedObject: { kind: 'PersistentVolumeClaim', namespace: 'db', name: 'data-postgres-0' } };
}

/** An event of `reason` on the pod db/postgres-0 of UID `uid`. */
function onPod(reason: string, message: string, uid: string): KubeEvent {
  const e = event('db', 'postgres-0', reason, message, T1);
  return { ...e, involvedObject: { ...e.involvedObject, uid } };
}

const F: StuckPodFinding = {
  kind: 'stuck-creating',
  key: 'stuck-creating/db/postgres-0',
  pod: { namespace: 'db', name: 'postgres-0', uid: 'uid-now' },
  node: 'node-b',
  workload: { kind: 'StatefulSet', namespace: 'db', name: 'postgres' },
  since: T1,
  stuckSeconds: 900,
  cause: 'storage',
  storage: [{ volume: 'data', claim: { namespace: 'db', name: 'data-postgres-0' }, pv: 'pvc-1', driver: 'x.csi.io' }],
  events: [],
};

const CLAIM = 'PersistentVolumeClaim db/data-postgres-0';

const CASES: { name: string; events: KubeEvent[]; want: string[] }[] = [
  // The controller side: the driver's message on the claim.
  {
    name: 'abnormal claim',
    events: [onClaim('VolumeConditionAbnormal', LOST, T1)],
    want: [`${CLAIM} VolumeConditionAbnormal: ${LOST}`],
  },
  // A newer VolumeConditionNormal clears it.
  {
    name: 'recovered',
    events: [
      onClaim('VolumeConditionAbnormal', LOST, T1),
      onClaim('VolumeConditionNormal', 'The Volume returns to the healthy state', T2, 'Normal'),
    ],
    want: [],
  },
  // An older one does not.
  {
    name: 'abnormal again',
    events: [
      onClaim('VolumeConditionNormal', 'The Volume returns to the healthy state', T1, 'Normal'),
      onClaim('VolumeConditionAbnormal', LOST, T2),
    ],
    want: [`${CLAIM} VolumeConditionAbnormal: ${LOST}`],
  },
  // The node watcher: consumers on a failed node, until NodeRecovered.
  { name: 'node failed', events: [onClaim('NodeFailed', FAILED, T1)], want: [`${CLAIM} NodeFailed: ${FAILED}`] },
  {
    name: 'node recovered',
    events: [onClaim('NodeFailed', FAILED, T1), onClaim('NodeRecovered', 'Node: node-a recovered', T2)],
    want: [],
  },
  // The node side: on the pod, this pod's UID only (an event of an earlier pod of the same name is not its).
  {
    name: 'abnormal pod',
    events: [onPod('VolumeConditionAbnormal', 'Volume not mounted', 'uid-now')],
    want: ['Pod db/postgres-0 VolumeConditionAbnormal: Volume not mounted'],
  },
  { name: 'earlier pod', events: [onPod('VolumeConditionAbnormal', 'Volume not mounted', 'uid-old')], want: [] },
  // Nothing reported: nothing said (the monitor is optional).
  { name: 'silent', events: [onClaim('ProvisioningSucceeded', 'ok', T1, 'Normal')], want: [] },
];

describe('volume health: what the health monitor reports of a stuck pod volumes', () => {
  it.each(CASES)('$name', ({ events, want }) => {
    expect(volumeHealth(ClusterIndex.fromSnapshot(snapshotOf(events)), F)).toEqual(want);
  });
});
