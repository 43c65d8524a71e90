// Volume health reported by the driver, as the CSI external-health-monitor writes it (pkg/csi-handler/pv_checker.go,
// pkg/controller/node_watcher.go): Warning VolumeConditionAbnormal with the driver's own message on the claim (the
// controller side) or on the pod (the node side, and the kubelet with the CSIVolumeHealth gate), until a newer Normal
// VolumeConditionNormal "The Volume returns to the healthy state"; Warning NodeFailed "Pods: [ ... ] consuming PVC:
// ... are now on a failed node: N" on the claim, until a newer NodeRecovered. Pure.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { KubeEvent } from '../domain/objects.js';
import { eventLastSeen } from '../detect/events.js';

/** Each abnormal reason and the reason of the event that says it is over. */
const ABNORMAL: readonly { reason: string; over: string }[] = [
  { reason: 'VolumeConditionAbnormal', over: 'VolumeConditionNormal' },
  { reason: 'NodeFailed', over: 'NodeRecovered' },
];

/** The abnormal events of one object that no newer recovery event of the same pair has cleared. */
function standing(events: readonly KubeEvent[]): KubeEvent[] {
  const newest = (reason: string) =>
    events
      .filter((e) => e.reason === reason)
      .reduce<KubeEvent | undefined>(
        (a, e) => (!a || (eventLastSeen(e) ?? 0) > (eventLastSeen(a) ?? 0) ? e : a),
        undefined,
      );
  return ABNORMAL.flatMap(({ reason, over }) => {
    const bad = newest(reason);
    const ok = newest(over);
    return bad && !(ok && (eventLastSeen(ok) ?? 0) >= (eventLastSeen(bad) ?? 0)) ? [bad] : [];
  });
}

/**
 * What the health monitor says of a stuck pod's volumes, one line per standing abnormal event: its claims' events,
 * then the pod's own (of this pod's UID only). Empty when it says nothing, which proves nothing: the monitor is
 * optional and only some drivers report volume conditions.
 */
export function volumeHealth(index: ClusterIndex, f: StuckPodFinding): string[] {
  const lines: string[] = [];
  for (const c of new Set(f.storage.flatMap((s) => (s.claim ? [`${s.claim.namespace}/${s.claim.name}`] : []))))
    for (const e of standing(index.eventsFor('PersistentVolumeClaim', ...split(c))))
      lines.push(`PersistentVolumeClaim ${c} ${e.reason}: ${e.message ?? ''}`);
  const own = index
    .eventsFor('Pod', f.pod.namespace, f.pod.name)
    .filter((e) => !f.pod.uid || !e.involvedObject?.uid || e.involvedObject.uid === f.pod.uid);
  for (const e of standing(own)) lines.push(`Pod ${f.pod.namespace}/${f.pod.name} ${e.reason}: ${e.message ?? ''}`);
  return lines;
}

const split = (key: string): [string, string] => {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
};
