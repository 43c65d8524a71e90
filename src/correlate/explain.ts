// The words of an incident: title, one-line summary, and one line per confusing observation with what explains it
// (attached volumes, Ready plugins, "deleting helps half the time", the search pods that did start, running
// workloads unaffected, what happened at the rollout start, the CronJob). The rollout's text is here; every other
// verdict's is a phrasing in explain-texts.ts's table.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { IncidentNode } from '../domain/incident.js';
import type { Location } from '../domain/location.js';
import { formatAge } from '../domain/duration.js';
import type { Draft } from './draft.js';
import { memberKey } from './members.js';
import { isPodReady } from './readiness.js';
import type { IncidentText } from './explain-config.js';
import { controllerOf } from '../domain/refs.js';
import { cronLines, plural, timedOutLines } from './explain-lines.js';
import { nameList } from '../domain/names.js';
import type { RolloutEvidence } from '../domain/incident.js';
import type { RolloutAnalysis } from './rollout.js';
import { TEXTS } from './explain-texts.js';

export type { IncidentText } from './explain-config.js';

/** What the stuck pods of a draft fail at: "mounts", "unmounts" or "mounts and unmounts". */
function stuckWhat(d: Draft): string {
  const term = d.pods.filter((f) => f.kind === 'stuck-terminating').length;
  if (term === 0) return 'mounts';
  return term === d.pods.length ? 'unmounts' : 'mounts and unmounts';
}

/** Pods stuck Terminating in a rollout incident: unpublish fails under the new revision; silent ones say so. */
function unmountLines(d: Draft, newRev: number): string[] {
  const term = d.pods.filter((f) => f.kind === 'stuck-terminating');
  if (term.length === 0) return [];
  const silent = term.filter((f) => f.events.length === 0).length;
  return [
    `${plural(term.length, 'pod')} stuck Terminating: the kubelet cannot unmount their volumes under revision ${newRev} of the node plugin (NodeUnpublishVolume/NodeUnstageVolume). Force-deleting them would leave the mounts behind on the node.${silent > 0 ? ` ${plural(silent, 'pod')} of them show no event: a kubelet often writes a failed unmount to its own log only, so they are counted as unmount suspects.` : ''}`,
  ];
}

/** Volumes of the stuck pods whose VolumeAttachment on the pod's node says attached. */
function attachedCount(index: ClusterIndex, d: Draft): { attached: number; total: number } {
  let attached = 0;
  let total = 0;
  for (const f of d.pods)
    for (const s of f.storage) {
      if (!s.pv) continue;
      total++;
      if (index.attachmentsForPv(s.pv).some((va) => va.spec?.nodeName === f.node && va.status?.attached)) attached++;
    }
  return { attached, total };
}

/** What the rollout lines are written from. */
interface RolloutFacts {
  index: ClusterIndex;
  d: Draft;
  a: RolloutAnalysis;
  ev: RolloutEvidence;
  ds: string;
  newN: number;
  oldN: number;
  prev: string;
  what: string;
}

function rolloutText(index: ClusterIndex, d: Draft, nodes: readonly IncidentNode[]): IncidentText {
  const a = d.rollout!;
  const ev = a.evidence;
  const c = ev.counts;
  const f: RolloutFacts = {
    index,
    d,
    a,
    ev,
    ds: `${ev.daemonSet.namespace}/${ev.daemonSet.name}`,
    newN: c.newStuck + c.newFine,
    oldN: c.oldStuck + c.oldFine,
    prev: ev.previousRevision !== undefined ? `revision ${ev.previousRevision}` : 'the previous revision',
    what: stuckWhat(d),
  };
  const recovering = ev.recoveringPods ?? [];
  const state = ev.rolledBack ? ` (rolling back${recovering.length === d.pods.length ? ', recovering' : ''})` : '';
  return {
    title: `${d.driver}: stuck ${f.what} follow ${f.ds} revision ${ev.newRevision}`,
    summary:
      `FOLLOWS_ROLLOUT${state}: ${c.newStuck} of ${f.newN} nodes on revision ${ev.newRevision} have stuck ${f.what}, ${c.oldStuck} of ${f.oldN} on ${f.prev}; ` +
      `${plural(d.pods.length, 'stuck pod')}${recovering.length > 0 ? ` (${recovering.length} recovering)` : ''}, rollout ${ev.updatedNodes}/${ev.desiredNodes} nodes${ev.rolloutStart ? ` since ${ev.rolloutStart}` : ''}`,
    explanations: [
      ...timedOutLines(d),
      ...unmountLines(d, ev.newRevision),
      ...stateLines(f, nodes),
      ...causeLines(f),
      ...helpLines(f),
      ...cronLines(d, nodes),
    ],
  };
}

/** Where the rollout stands: rolled back, recovering pods, when it began, the 2x2, a drain under way. */
function stateLines({ index, ev, ds, newN, oldN, prev, what }: RolloutFacts, nodes: readonly IncidentNode[]): string[] {
  const c = ev.counts;
  const recovering = ev.recoveringPods ?? [];
  const cordoned = nodes.filter((n) => index.get('nodes', n.node)?.spec?.unschedulable).map((n) => n.node);
  return [
    ...(ev.rolledBack
      ? [
          `${ds} has been rolled back off revision ${ev.newRevision} (to ${prev}); ${ev.updatedNodes} of ${ev.desiredNodes} nodes still run revision ${ev.newRevision}. Do not run \`kubectl rollout undo\` again: it would bring revision ${ev.newRevision} back.`,
        ]
      : []),
    ...(recovering.length > 0
      ? [
          `${plural(recovering.length, 'stuck pod')} (${nameList(recovering, 5, ', ')}) got stuck before their node's current plugin pod started, or their node's plugin pod is being replaced: they are recovering after the plugin was replaced (the kubelet retries on its backoff) and count neither for nor against any revision.`,
        ]
      : []),
    ...(ev.rolloutStart
      ? [
          `What happened at ${ev.rolloutStart}: ControllerRevision ${ev.newRevision} of ${ds} was created and the rollout began; ${ev.updatedNodes} of ${ev.desiredNodes} nodes run it now.`,
        ]
      : []),
    ...(oldN > 0
      ? [
          `Not flaky nodes: ${c.newStuck} of ${newN} nodes on revision ${ev.newRevision} have stuck ${what} and ${c.oldStuck} of ${oldN} on ${prev}; the fault follows the rollout order, not any node.`,
        ]
      : []),
    ...(cordoned.length > 0
      ? [
          `${cordoned.join(', ')} ${cordoned.length === 1 ? 'is' : 'are'} cordoned: if a drain is running, stop it. Its evicted pods remount wherever they land, and ${ev.updatedNodes} of ${ev.desiredNodes} nodes cannot mount new volumes.`,
        ]
      : []),
  ];
}

/**
 * What the revision changed, chosen by the evidence: pods located where the driver is not registered (the kubelet's
 * words or the node's CSINode, locate.ts) get the registration line, never the propagation story; then attached volumes and Ready plugins.
 */
function causeLines({ index, d, a, ev, prev }: RolloutFacts): string[] {
  const notRegistered = d.pods.filter((f) => f.location?.unregistered);
  const prop = ev.diff.find((x) => x.field.endsWith('mountPropagation'));
  const att = attachedCount(index, d);
  const plugins = [...a.plugins.values()];
  const ready = plugins.filter(isPodReady).length;
  const change =
    notRegistered.length > 0
      ? `${plural(notRegistered.length, 'stuck pod')} ${notRegistered.length === 1 ? 'waits' : 'wait'} on nodes where the driver is not registered (the kubelet's "not found in the list of registered CSI drivers", or the node's CSINode without it): the node plugin of revision ${ev.newRevision} does not register with the kubelet there (node-driver-registrar, its registration path).`
      : prop
        ? `Revision ${ev.newRevision} changed ${prop.text}${prop.container ? ` (container ${prop.container})` : ''}: without Bidirectional propagation the plugin's mounts stay in its own mount namespace, so the kubelet and the runtime never see them and FailedMount only says "timed out waiting for the condition".`
        : ev.diff.length > 0
          ? `Revision ${ev.newRevision} differs from ${prev} in ${plural(ev.diff.length, 'field')}; first: ${ev.diff[0]?.text}.`
          : undefined;
  return [
    ...(change ? [change] : []),
    ...(att.attached > 0
      ? [
          `${att.attached} of ${plural(att.total, 'stuck volume')} are attached to their node (VolumeAttachment attached=true): provisioning and attach worked; what is left is on the node, between the kubelet and the node plugin (stage/publish).`,
        ]
      : []),
    `${ready} of ${plural(plugins.length, 'node plugin pod')} are Ready: readiness does not exercise a mount, so every health check passes.`,
  ];
}

/** Why deleting a pod helps half the time, the workloads that did start, the running pods unaffected. */
function helpLines({ index, d, a, ev, newN, oldN, prev }: RolloutFacts): string[] {
  return [
    ...(oldN > 0
      ? [
          `Deleting a stuck pod helps only when the scheduler places it on one of the ${oldN} nodes still on ${prev} (${Math.round((100 * oldN) / (oldN + newN))}% of plugin nodes now, fewer as the rollout proceeds); on the ${newN} nodes on revision ${ev.newRevision} it sticks again.`,
        ]
      : []),
    ...siblingLines(index, d, ev.newRevision),
    ...(a.runningBeforeOnNew > 0
      ? [
          `${plural(a.runningBeforeOnNew, 'running pod')} with ${d.driver} volumes on revision-${ev.newRevision} nodes are unaffected: their mounts were made before the plugin was replaced.`,
        ]
      : []),
  ];
}

/** Most per-workload sibling lines in one incident; the rest are counted. */
const MAX_SIBLING_LINES = 5;

/**
 * "Deployment search/search: 3 nodes (node-02, node-08, node-14) run its started pods, plugin revision 1; 2 of 2
 * stuck on revision 2". O(stuck pods + their siblings).
 */
function siblingLines(index: ClusterIndex, d: Draft, newRev: number): string[] {
  const revOf = (node: string | undefined) => (node ? d.rollout?.revisionByNode.get(node) : undefined);
  const byWorkload = new Map<string, { label: string; owner?: string; stuck: number; stuckOnNew: number }>();
  for (const f of d.pods) {
    const k = `${f.workload.kind}/${f.workload.namespace}/${f.workload.name}`;
    const w = byWorkload.get(k) ?? {
      label: `${f.workload.kind} ${f.workload.namespace}/${f.workload.name}`,
      stuck: 0,
      stuckOnNew: 0,
    };
    w.stuck++;
    if (revOf(f.node) === newRev) w.stuckOnNew++;
    const pod = index.get('pods', memberKey(f));
    w.owner = w.owner ?? (pod ? controllerOf(pod)?.uid : undefined);
    byWorkload.set(k, w);
  }
  const out: string[] = [];
  let more = 0;
  for (const w of byWorkload.values()) {
    if (!w.owner) continue;
    const nodes = [
      ...new Set(
        index
          .podsOwnedBy(w.owner)
          .filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp && p.spec?.nodeName)
          .map((p) => p.spec?.nodeName ?? ''),
      ),
    ].sort();
    if (nodes.length === 0) continue;
    if (out.length >= MAX_SIBLING_LINES) {
      more++;
      continue;
    }
    const revs = [...new Set(nodes.map(revOf).filter((r) => r !== undefined))].sort();
    out.push(
      `${w.label}: ${plural(nodes.length, 'node')} (${nodes.join(', ')}) run its started pods${revs.length > 0 ? `, plugin revision ${revs.join('/')}` : ''}; ${w.stuckOnNew} of ${w.stuck} stuck on revision ${newRev}.`,
    );
  }
  if (more > 0) out.push(`...and ${more} more workload${more === 1 ? '' : 's'} with pods running on other nodes.`);
  return out;
}

/** Writes the text of a draft whose node rows are built: the rollout's, else the first phrasing that applies. */
export function incidentText(
  index: ClusterIndex,
  d: Draft,
  nodes: readonly IncidentNode[],
  location: Location,
): IncidentText {
  if (d.verdict === 'FOLLOWS_ROLLOUT') return rolloutText(index, d, nodes);
  const oldest = Math.max(0, ...d.pods.map((f) => f.stuckSeconds));
  const age = d.pods.length > 0 ? `, longest ${formatAge(oldest * 1000)}` : '';
  const input = { index, d, nodes, location, age };
  return TEXTS.find((t) => t.when(input))!.write(input);
}
