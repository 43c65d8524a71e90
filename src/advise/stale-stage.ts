// Stale stages in drain advice: a globalmount a node agent (docs/agent.md) found still mounted with no pod bind
// mount, for a claim with no pod on that node. A drain evicts pods, and no pod on the node uses the volume, so a
// drain does not unstage it: the node comes out of the drain still holding it. What that costs depends on the
// volume: a single-node volume still attached to the node keeps the claim's pods on other nodes from attaching it
// (Multi-Attach); a volume many nodes may mount (ReadWriteMany) stops nobody, but stays mounted on the node, a leak.
// The first is CAUTION (the drain is not the fix a reader may expect), the second a note under OK. Without a
// report from the node's agent nothing is said to be clean: the advice says the stage check was not possible.
// One rule, used by `rwx drain-check`, `/rwx drain`, the thread (its incident nodes) and triage's recovery steps.
// Pure.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { DrainAdvice, StageCheck, StaleStage } from '../domain/incident.js';
import type { NodeFinding } from '../domain/node-report.js';
import { AGENT_ENABLE_HINT, reportStateOf, type NodeReports } from '../domain/proof.js';
import { nodeFindings } from '../detect/node-findings.js';
import { holdsVolumes } from '../detect/storage-path.js';

type OrphanedStage = Extract<NodeFinding, { kind: 'ORPHANED_STAGE' }>;

/** Access modes that let pods on several nodes use a volume at once: a stale stage on one node stops none of them. */
const MULTI_NODE = new Set(['ReadWriteMany', 'ReadOnlyMany']);

/** What the agent of `node` says of its staged volumes (see the file comment). Linear in its staged volumes. */
export function stageCheck(index: ClusterIndex, node: string, reports: NodeReports): StageCheck {
  if (reports.kind === 'not-asked') return { checked: false, reason: reports.reason };
  const state = reportStateOf(reports, node);
  if (state.kind === 'no-agent')
    return { checked: false, reason: `no rwx agent runs on ${node}; ${AGENT_ENABLE_HINT}` };
  if (state.kind === 'pending') return { checked: false, reason: `the rwx agent on ${node} has not answered yet` };
  if (state.kind === 'unavailable')
    return { checked: false, reason: `the rwx agent on ${node} could not be read: ${state.reason}` };
  const findings = nodeFindings(state.report, { node });
  const blind = findings.find((f) => f.kind === 'PROOF_UNAVAILABLE' && f.check === 'staged volumes');
  if (blind?.kind === 'PROOF_UNAVAILABLE')
    return { checked: false, reason: `the rwx agent on ${node} could not read its staged volumes: ${blind.reason}` };
  const stale: StaleStage[] = [];
  for (const f of findings) {
    const s = f.kind === 'ORPHANED_STAGE' ? staleStage(index, node, f) : undefined;
    if (s) stale.push(s);
  }
  return { checked: true, stale };
}

/** The orphaned stage as a stale one, or undefined when a pod of its claim is on the node (starting or stopping). */
function staleStage(index: ClusterIndex, node: string, f: OrphanedStage): StaleStage | undefined {
  // Staged before published, unpublished before unstaged: a pod of the claim here, or one whose volume directory
  // still names it, is mid-way, and the stuck-pod rules speak for it.
  const onNode = index.podsOnNode(node).filter(holdsVolumes);
  if (onNode.some((p) => f.podUids.includes(p.metadata?.uid ?? ''))) return undefined;
  const pv = index.get('pvs', f.volume);
  const ref = pv?.spec?.claimRef;
  const claim = ref?.namespace && ref.name ? `${ref.namespace}/${ref.name}` : undefined;
  const users = ref?.namespace && ref.name ? index.podsUsingClaim(ref.namespace, ref.name) : [];
  if (users.some((p) => p.spec?.nodeName === node && holdsVolumes(p))) return undefined;
  const s: StaleStage = { node, volume: f.volume, path: f.path, holds: 'unknown' };
  if (f.driver) s.driver = f.driver;
  if (claim) s.claim = claim;
  if (f.simulated) s.simulated = true;
  if (!pv) return s;
  const modes = pv.spec?.accessModes ?? [];
  if (modes.length > 0) s.access = modes.join(', ');
  // What holds it attached is the VolumeAttachment; a single-node volume with none here stops no other node.
  const va = index.attachmentsForPv(f.volume).find((a) => a.spec?.nodeName === node && a.status?.attached === true);
  if (modes.some((m) => MULTI_NODE.has(m))) s.holds = 'leak';
  else if (va) {
    s.holds = 'attached';
    if (va.metadata?.name) s.attachment = va.metadata.name;
  } else s.holds = index.readable('volumeAttachments') ? 'leak' : 'attached';
  return s;
}

/** The one sentence for a stale stage, everywhere it is said. Plain text with strings from the node: escape it. */
export function staleStageText(s: StaleStage): string {
  const sim = s.simulated ? '(simulated agent) ' : '';
  const about = [s.claim && `claim ${s.claim}`, s.access, s.driver].filter(Boolean).join(', ');
  const what = `volume ${s.volume}${about ? ` (${about})` : ''}`;
  const head = `${sim}${s.node} still stages ${what} at ${s.path} with no pod on ${s.node} using it: draining ${s.node} does not unstage it`;
  const whose = s.claim ? `pods of ${s.claim}` : 'its pods';
  switch (s.holds) {
    case 'attached':
      return s.attachment
        ? `${head}, and it keeps the volume attached to ${s.node} (VolumeAttachment ${s.attachment}): ${whose} on other nodes cannot attach it until it is cleared.`
        : `${head}, and it can keep the volume attached to ${s.node} (VolumeAttachments could not be read): ${whose} on other nodes may not attach it until it is cleared.`;
    case 'leak':
      return `${head}. It stops no pod on another node, but it is a leak: the volume stays mounted on ${s.node} until it is cleared.`;
    case 'unknown':
      return `${head}; no PV named ${s.volume} is known, so whether it keeps the volume attached to ${s.node} cannot be told.`;
  }
}

/**
 * The safe order to clear a stale stage on `node` (`paths`: the globalmounts a node agent named, if any): confirm,
 * cordon, restart the node plugin, unmount only if that did not clear it, verify. Unnumbered.
 */
export function staleStageSteps(node: string, paths: readonly string[]): string[] {
  const where = paths.length > 1 ? 'those globalmount paths' : 'that globalmount path';
  const named = paths.length > 0 ? ` (${paths.join(', ')})` : '';
  const dirs = paths.length > 1 ? 'the empty directories' : 'the empty directory';
  const steps = [
    `Confirm no pod on ${node} uses the volume (kubectl get pods -A -o wide --field-selector spec.nodeName=${node}); unmounting under a live workload corrupts data.`,
    `Cordon ${node}.`,
    `Restart the node plugin pod on ${node} first: it clears in-memory operation locks and often resolves it without touching mounts.`,
    `Only if it persists, unmount ${where}${named} and remove ${dirs} (lazy unmount only as a last resort).`,
    `Uncordon and verify a new pod on ${node} can mount the same volume.`,
  ];
  if (paths.length > 0)
    steps.push(`Check the node again with rwx node ${node}: it no longer lists the stage as ORPHANED.`);
  return steps;
}

/** The step an answer ends with when the node's staged volumes could not be checked. */
export function stagesNotCheckedText(node: string, reason: string): string {
  return `Stale stages not checked on ${node}: ${reason}. A volume still staged there with no pod using it, which a drain does not unstage, cannot be ruled out.`;
}

/**
 * Drain advice with the stage check of its node (see the file comment): a stale stage that holds a volume (or may)
 * turns OK into CAUTION and adds to CAUTION's reason; a leak is a note; each comes with the steps to clear it. An
 * unchecked node's answer ends with a step saying so, unless it is BLOCK (more data can only add reasons).
 */
export function withStageCheck(advice: DrainAdvice, check: StageCheck): DrainAdvice {
  const out: DrainAdvice = { ...advice, stages: check };
  if (!check.checked) {
    if (advice.decision === 'BLOCK') return out;
    return { ...out, steps: [...advice.steps, stagesNotCheckedText(advice.node, check.reason)] };
  }
  if (check.stale.length === 0) return out;
  const clear = staleStageSteps(
    advice.node,
    check.stale.map((s) => s.path),
  );
  // The stages that hold a volume are the reason; leaks are notes among the steps.
  const holding = check.stale.filter((s) => s.holds !== 'leak').map(staleStageText);
  const leaks = check.stale.filter((s) => s.holds === 'leak').map(staleStageText);
  if (holding.length > 0 && advice.decision === 'OK')
    return { ...out, decision: 'CAUTION', reason: holding.join(' '), steps: [...leaks, ...clear, ...advice.steps] };
  if (holding.length > 0 && advice.decision === 'CAUTION')
    return { ...out, reason: `${advice.reason} ${holding.join(' ')}`, steps: [...advice.steps, ...leaks, ...clear] };
  return { ...out, steps: [...advice.steps, ...holding, ...leaks, ...clear] };
}
