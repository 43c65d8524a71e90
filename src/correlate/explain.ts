// The words of an incident: title, one-line summary, and one line per confusing observation with what explains it
// (attached volumes, Ready plugins, "deleting helps half the time", the
// search pods that did start, running workloads unaffected, what happened at the rollout start, the CronJob).
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { IncidentNode } from '../domain/incident.js';
import type { CronJobFinding } from '../domain/findings.js';
import { formatAge } from '../domain/duration.js';
import type { Draft } from './group.js';
import { driverOf } from './group.js';
import { memberKey } from './members.js';
import { configText, imagePullText, type IncidentText } from './explain-config.js';
import { controllerOf } from '../domain/refs.js';
import { nameList } from '../domain/names.js';
import type { Location } from '../domain/location.js';
import { heldText } from './explain-held.js';
import { mountedSincePlugin } from './rollout.js';

export type { IncidentText } from './explain-config.js';

/** The kubelet's words when a driver's node plugin is not registered on the node (csi_plugin.go). */
const NOT_REGISTERED = /not found in the list of registered CSI drivers/;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function cronLines(d: Draft, nodes: readonly IncidentNode[]): string[] {
  const stuckNode = new Map<string, IncidentNode>();
  for (const n of nodes) for (const p of n.stuckPods) stuckNode.set(p, n);
  return d.cronJobs.map((c) => {
    const stuck = c.jobs.flatMap((j) => j.pods).find((p) => stuckNode.has(p));
    const n = stuck ? stuckNode.get(stuck) : undefined;
    const where = n
      ? ` on ${n.node}${n.plugin?.revision !== undefined ? ` (plugin revision ${n.plugin.revision})` : ''}`
      : '';
    const since = c.lastSuccessfulTime
      ? ` since its last success at ${c.lastSuccessfulTime}`
      : ' and it has never succeeded';
    return stuck
      ? `CronJob ${c.cronJob.namespace}/${c.cronJob.name}: ${plural(c.missedRuns, 'scheduled run')} missed${since}; it never ran because its pod ${stuck} is stuck${where}, so it raises no job-failure alert: nothing failed. A second finding: check what the missed runs cost.`
      : `CronJob ${c.cronJob.namespace}/${c.cronJob.name}: ${plural(c.missedRuns, 'scheduled run')} missed${since}; no stuck pod of its Jobs explains it.${failedJobs(c)}`;
  });
}

/** What a CronJob's failed Jobs failed with, and whether its pods use storage at all (" Its Jobs failed: ..."). */
function failedJobs(c: CronJobFinding): string {
  const failed = c.jobs.filter((j) => j.failure).map((j) => `${j.name} (${j.failure})`);
  if (failed.length === 0) return '';
  const storage =
    c.storage === true
      ? ' Its pods use storage volumes: read their events for a mount failure.'
      : c.storage === false
        ? ' Its pods use no storage volume: not a storage fault.'
        : '';
  return ` Its Jobs failed: ${nameList(failed, 3, '; ')}.${storage}`;
}

/** The kubelet's "timed out waiting for the condition" names no component: said once when a stuck pod shows it. */
function timedOutLines(d: Draft): string[] {
  // Only where the attach is done and the node plugin is registered: for an attach wait or a missing plugin the
  // same words mean something else, and each has its own explanation.
  const seen = d.pods.some(
    (f) =>
      (f.location?.layer === 'stage' || f.location?.layer === 'publish') &&
      !f.events.some((e) => NOT_REGISTERED.test(e.message)) &&
      f.events.some((e) => /timed out waiting for the condition/.test(e.message)),
  );
  return seen
    ? [
        'The kubelet says "timed out waiting for the condition": it names no component and reads like a slow array. It asked for a mount, was told it succeeded (or is still waiting), and cannot see it.',
      ]
    : [];
}

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

function rolloutText(index: ClusterIndex, d: Draft, nodes: readonly IncidentNode[]): IncidentText {
  const a = d.rollout!;
  const ev = a.evidence;
  const c = ev.counts;
  const ds = `${ev.daemonSet.namespace}/${ev.daemonSet.name}`;
  const newN = c.newStuck + c.newFine;
  const oldN = c.oldStuck + c.oldFine;
  const prev = ev.previousRevision !== undefined ? `revision ${ev.previousRevision}` : 'the previous revision';
  const what = stuckWhat(d);
  const title = `${d.driver}: stuck ${what} follow ${ds} revision ${ev.newRevision}`;
  const recovering = ev.recoveringPods ?? [];
  const state = ev.rolledBack ? ` (rolling back${recovering.length === d.pods.length ? ', recovering' : ''})` : '';
  const summary =
    `FOLLOWS_ROLLOUT${state}: ${c.newStuck} of ${newN} nodes on revision ${ev.newRevision} have stuck ${what}, ${c.oldStuck} of ${oldN} on ${prev}; ` +
    `${plural(d.pods.length, 'stuck pod')}${recovering.length > 0 ? ` (${recovering.length} recovering)` : ''}, rollout ${ev.updatedNodes}/${ev.desiredNodes} nodes${ev.rolloutStart ? ` since ${ev.rolloutStart}` : ''}`;
  const out: string[] = [...timedOutLines(d), ...unmountLines(d, ev.newRevision)];
  if (ev.rolledBack)
    out.push(
      `${ds} has been rolled back off revision ${ev.newRevision} (to ${prev}); ${ev.updatedNodes} of ${ev.desiredNodes} nodes still run revision ${ev.newRevision}. Do not run \`kubectl rollout undo\` again: it would bring revision ${ev.newRevision} back.`,
    );
  if (recovering.length > 0)
    out.push(
      `${plural(recovering.length, 'stuck pod')} (${recovering.slice(0, 5).join(', ')}${recovering.length > 5 ? ` ...and ${recovering.length - 5} more` : ''}) got stuck before their node's current plugin pod started, or their node's plugin pod is being replaced: they are recovering after the plugin was replaced (the kubelet retries on its backoff) and count neither for nor against any revision.`,
    );
  if (ev.rolloutStart)
    out.push(
      `What happened at ${ev.rolloutStart}: ControllerRevision ${ev.newRevision} of ${ds} was created and the rollout began; ${ev.updatedNodes} of ${ev.desiredNodes} nodes run it now.`,
    );
  if (oldN > 0)
    out.push(
      `Not flaky nodes: ${c.newStuck} of ${newN} nodes on revision ${ev.newRevision} have stuck ${what} and ${c.oldStuck} of ${oldN} on ${prev}; the fault follows the rollout order, not any node.`,
    );
  const cordoned = nodes.filter((n) => index.get('nodes', n.node)?.spec?.unschedulable).map((n) => n.node);
  if (cordoned.length > 0)
    out.push(
      `${cordoned.join(', ')} ${cordoned.length === 1 ? 'is' : 'are'} cordoned: if a drain is running, stop it. Its evicted pods remount wherever they land, and ${ev.updatedNodes} of ${ev.desiredNodes} nodes cannot mount new volumes.`,
    );
  const prop = ev.diff.find((x) => x.field.endsWith('mountPropagation'));
  if (prop)
    out.push(
      `Revision ${ev.newRevision} changed ${prop.text}${prop.container ? ` (container ${prop.container})` : ''}: without Bidirectional propagation the plugin's mounts stay in its own mount namespace, so the kubelet and the runtime never see them and FailedMount only says "timed out waiting for the condition".`,
    );
  else if (ev.diff.length > 0)
    out.push(
      `Revision ${ev.newRevision} differs from ${prev} in ${plural(ev.diff.length, 'field')}; first: ${ev.diff[0]?.text}.`,
    );
  const att = attachedCount(index, d);
  if (att.attached > 0)
    out.push(
      `${att.attached} of ${plural(att.total, 'stuck volume')} are attached to their node (VolumeAttachment attached=true): provisioning and attach worked; what is left is on the node, between the kubelet and the node plugin (stage/publish).`,
    );
  const plugins = [...a.plugins.values()];
  const ready = plugins.filter((p) =>
    (p.status?.conditions ?? []).some((x) => x?.type === 'Ready' && x.status === 'True'),
  ).length;
  out.push(
    `${ready} of ${plural(plugins.length, 'node plugin pod')} are Ready: readiness does not exercise a mount, so every health check passes.`,
  );
  if (oldN > 0)
    out.push(
      `Deleting a stuck pod helps only when the scheduler places it on one of the ${oldN} nodes still on ${prev} (${Math.round((100 * oldN) / (oldN + newN))}% of plugin nodes now, fewer as the rollout proceeds); on the ${newN} nodes on revision ${ev.newRevision} it sticks again.`,
    );
  out.push(...siblingLines(index, d, ev.newRevision));
  if (a.runningBeforeOnNew > 0)
    out.push(
      `${plural(a.runningBeforeOnNew, 'running pod')} with ${d.driver} volumes on revision-${ev.newRevision} nodes are unaffected: their mounts were made before the plugin was replaced.`,
    );
  out.push(...cronLines(d, nodes));
  return { title, summary, explanations: out };
}

/** A finished plugin rollout with stuck nodes and no control group: why it is not called a rollout fault. */
function uncomparedLines(d: Draft): string[] {
  const ev = d.uncompared?.evidence;
  if (!ev) return [];
  const ds = `${ev.daemonSet.namespace}/${ev.daemonSet.name}`;
  return [
    `Every node with a ${ds} plugin runs revision ${ev.newRevision}${ev.rolloutStart ? ` (since ${ev.rolloutStart})` : ''}: with no node left on the previous revision that mounts fine, the revision cannot be compared, so the stuck mounts are not blamed on it and no rollback is advised on this evidence.`,
  ];
}

/** Nodes of an unexplained draft that mount its driver fine right now (group.ts rule 5): why no node is blamed. */
function mountsFineLines(index: ClusterIndex, d: Draft): string[] {
  if (!d.daemonSet || !d.driver) return [];
  const out: string[] = [];
  for (const node of [...new Set(d.pods.map((f) => f.node ?? ''))].filter(Boolean).sort()) {
    const fine = mountedSincePlugin(index, d.daemonSet, d.driver, node);
    if (fine.length > 0)
      out.push(
        `${node} mounts ${d.driver} volumes: ${nameList(fine, 3, ', ')} started there after its node plugin did, so the fault is not ${node}'s.`,
      );
  }
  return out.slice(0, 5);
}

/** The words of a volume's fault (volume-fault.ts): the claim fails on every node tried, which mount its driver. */
function volumeText(index: ClusterIndex, d: Draft, age: string): IncidentText {
  const claim = d.key.slice('volume/'.length);
  const nodeNames = [...new Set(d.pods.map((f) => f.node ?? ''))].sort();
  return {
    title: `Claim ${claim}: fails on every node it is tried on (the volume, not the nodes)`,
    summary: `UNEXPLAINED: ${plural(d.pods.length, 'pod')} of claim ${claim} stuck on ${plural(nodeNames.length, 'node')} (${nameList(nodeNames, 5, ', ')})${age}, each of which mounts other ${d.driver ?? ''} volumes fine: the volume's export, permissions or backend, not the nodes or the plugin`,
    explanations: [
      ...mountsFineLines(index, d),
      'Draining or cordoning nodes does nothing for it, and neither does a plugin rollback: the claim fails wherever it is tried.',
    ],
  };
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

function withCron(t: IncidentText, d: Draft, nodes: readonly IncidentNode[]): IncidentText {
  return { ...t, explanations: [...t.explanations, ...cronLines(d, nodes)] };
}

/** Writes the text of a draft whose node rows are built. */
export function incidentText(
  index: ClusterIndex,
  d: Draft,
  nodes: readonly IncidentNode[],
  location: Location,
): IncidentText {
  const pods = d.pods.length;
  const nodeCount = new Set(d.pods.map((f) => f.node ?? '')).size;
  const oldest = Math.max(0, ...d.pods.map((f) => f.stuckSeconds));
  const age = pods > 0 ? `, longest ${formatAge(oldest * 1000)}` : '';
  if (d.verdict === 'FOLLOWS_NODE' && (location.holderHealth || d.key.startsWith('attach/')))
    return withCron(heldText(d, location, age), d, nodes);
  switch (d.verdict) {
    case 'FOLLOWS_ROLLOUT':
      return rolloutText(index, d, nodes);
    case 'FOLLOWS_NODE': {
      const drivers = [...new Set(d.pods.map(driverOf).filter((x) => x))];
      const term = d.pods.filter((f) => f.kind === 'stuck-terminating').length;
      const parts = [
        ...(pods - term ? [`${plural(pods - term, 'pod')} stuck mounting`] : []),
        ...(term ? [`${plural(term, 'pod')} stuck Terminating on unmount`] : []),
      ];
      return {
        title: `${d.node}: stuck mounts follow the node`,
        summary: `FOLLOWS_NODE: ${parts.join(', ')} on ${d.node} across ${plural(drivers.length, 'driver')} (${drivers.join(', ') || 'none resolved'})${age}; no plugin rollout explains it`,
        explanations: [
          `The fault follows ${d.node}, not a workload or a plugin revision: test it by scheduling a fresh claim on ${d.node} and on another node.`,
          ...timedOutLines(d),
          ...cronLines(d, nodes),
        ],
      };
    }
    case 'NOT_STORAGE': {
      if (d.key.startsWith('config/')) return withCron(configText(d.pods, age), d, nodes);
      if (d.key === 'not-storage/image-pull') return withCron(imagePullText(d.pods, age), d, nodes);
      const where = d.node ?? plural(nodeCount, 'node');
      const names = [...new Set(d.pods.map((f) => f.node).filter((n): n is string => !!n))].sort();
      return {
        title: `${where}: pods cannot get a sandbox (network, not storage)`,
        summary: `NOT_STORAGE: ${plural(pods, 'pod')} on ${d.node ?? `${where} (${nameList(names, 10, ', ')})`} stuck in ContainerCreating with FailedCreatePodSandBox${age}: CNI or container runtime, not a volume`,
        explanations: [
          `FailedCreatePodSandBox comes after volumes are mounted: the pods got their volumes, then the CNI plugin or the container runtime on ${d.node ?? 'these nodes'} failed.`,
          ...cronLines(d, nodes),
        ],
      };
    }
    default: {
      if (d.key.startsWith('volume/')) return withCron(volumeText(index, d, age), d, nodes);
      if (d.key.startsWith('cronjob/')) {
        const c = d.cronJobs[0];
        return {
          title: `CronJob ${c?.cronJob.namespace}/${c?.cronJob.name}: scheduled runs did not complete`,
          summary: `UNEXPLAINED: ${plural(c?.missedRuns ?? 0, 'scheduled run')} missed; no stuck pod of its Jobs explains it`,
          explanations: cronLines(d, nodes),
        };
      }
      const what =
        d.key === 'unexplained/cause-unknown'
          ? 'with no storage or network event'
          : `mounting ${d.driver ?? 'volumes'}`;
      return {
        title:
          d.key === 'unexplained/cause-unknown'
            ? 'Pods stuck for an unknown cause'
            : `${d.driver}: stuck mounts, cause unexplained`,
        summary: `UNEXPLAINED: ${plural(pods, 'pod')} stuck ${what} on ${plural(nodeCount, 'node')}${age}; neither a plugin rollout nor a single node explains them`,
        explanations: [
          ...uncomparedLines(d),
          ...mountsFineLines(index, d),
          ...timedOutLines(d),
          ...cronLines(d, nodes),
        ],
      };
    }
  }
}
