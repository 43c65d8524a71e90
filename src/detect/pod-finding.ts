// The part of a stuck-pod finding that does not depend on why the pod is stuck: identity, workload, clock, node.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { Pod } from '../domain/objects.js';
import { resolveWorkload } from './owner.js';

/** The cause-specific fields each detector adds to the common ones. */
export type StuckDetails = Pick<StuckPodFinding, 'cause' | 'storage' | 'events'> &
  Partial<Pick<StuckPodFinding, 'finalizers' | 'configObjects' | 'configVolumes'>>;

/** A stuck-pod finding of `kind` for `pod`, stuck since `since` (epoch ms) as of `now`. */
export function stuckPodFinding(
  index: ClusterIndex,
  pod: Pod,
  kind: StuckPodFinding['kind'],
  since: number,
  now: number,
  details: StuckDetails,
): StuckPodFinding {
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const finding: StuckPodFinding = {
    kind,
    key: `${kind}/${namespace}/${name}`,
    pod: { namespace, name, ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}) },
    workload: resolveWorkload(index, pod),
    since: new Date(since).toISOString(),
    stuckSeconds: Math.floor((now - since) / 1000),
    ...details,
  };
  if (pod.spec?.nodeName) finding.node = pod.spec.nodeName;
  return finding;
}
