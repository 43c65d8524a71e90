// What holds a pod's volume mount when its unpublish is stuck. The kubelet only logs a failed teardown
// (UnmountVolume.TearDown failed ... "device or resource busy"): GenerateUnmountVolumeFunc records no event on error,
// so the API never shows the failure, let alone what holds the mount. A node agent that answered says it (its
// busy mounts section: the processes and the mount namespaces that hold the mount); without one, the incident says
// the failure is not visible from the API and what to run on the node to see it, never that nothing holds it.
// Pure: the reports come in through NodeReports, as for the proof and the stale-stage check. The thread's incidents
// (addUnmountHolds) and `rwx triage` (terminatingPodHolds, for UNPUBLISH_STUCK) state the same lines: both pick the
// pods with atUnpublish and word them with podUnmountHolds.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { StuckPodFinding } from '../domain/findings.js';
import type { Incident } from '../domain/incident.js';
import type { UnmountHold } from '../domain/location.js';
import type { AgentReport, BusyMount, MountHolder, ProcessRef } from '../domain/node-report.js';
import type { Pod } from '../domain/objects.js';
import { reportStateOf, type NodeReportState, type NodeReports } from '../domain/proof.js';
import { terminatingFinding, terminatingSince } from '../detect/stuck-terminating.js';
import { locate } from './locate.js';

/** Lines of held-by facts an incident's explanations keep (the pods' locations keep all of theirs). */
const LINES_KEPT = 5;

const VIA: Record<MountHolder['via'], string> = { cwd: 'working directory', root: 'root directory', fd: 'open file' };

/** Whether a finding is a pod stuck at unpublish on a node: the pods this rule speaks for. */
function atUnpublish(f: StuckPodFinding): f is StuckPodFinding & { node: string } {
  return f.kind === 'stuck-terminating' && !!f.node && f.location?.layer === 'unpublish';
}

/** A process, in one phrase: "tar (pid 31337, pod shop/db-0)", or "(pid 1, on the host)" without a pod. */
function processText(index: ClusterIndex, p: ProcessRef): string {
  const pod = p.podUid ? (index.keyOfUid(p.podUid) ?? `UID ${p.podUid}`) : undefined;
  return `${p.comm} (pid ${p.pid}, ${pod ? `pod ${pod}` : 'on the host'})`;
}

/** The held-by lines of one busy mount; one line saying nothing was found when nothing holds it. */
function mountLines(index: ClusterIndex, r: AgentReport, m: BusyMount): { text: string; held: boolean }[] {
  const sim = r.simulated ? '(simulated agent) ' : '';
  const lines = m.processes.map((p) => {
    const how = p.path === m.mountPoint ? '' : ` (its ${VIA[p.via]} ${p.path})`;
    return { text: `${sim}${processText(index, p)} holds ${m.mountPoint}${how}`, held: true };
  });
  if (m.processCount > m.processes.length)
    lines.push({
      text: `${sim}and ${m.processCount - m.processes.length} more processes hold ${m.mountPoint}`,
      held: true,
    });
  for (const ns of m.namespaces) {
    const known = r.propagation.namespaces.find((n) => n.id === ns.id)?.processes ?? [];
    const who = known.length > 0 ? known.slice(0, 3).map((p) => processText(index, p)) : [];
    const of = who.length > 0 ? `of ${who.join(', ')}` : `${ns.id} (${ns.processCount} processes)`;
    lines.push({ text: `${sim}the mount namespace ${of} holds a copy of ${m.mountPoint}`, held: true });
  }
  if (lines.length > 0) return lines;
  const busy = r.busyMounts;
  if (busy?.status === 'unknown') {
    const which = busy.unreadable.map((u) => `pid ${u.pid} (${u.reason})`).slice(0, 3);
    const text = `${sim}${r.node}: ${m.mountPoint} is still mounted; no holder among the processes its rwx agent could read, but ${busy.unreadableCount} could not be read (${which.join(', ')}): a holder cannot be ruled out`;
    return [{ text, held: false }];
  }
  const text = `${sim}${r.node}: ${m.mountPoint} is still mounted, and its rwx agent finds no process and no other mount namespace holding it: the unmount itself fails, see the node plugin's logs (NodeUnpublishVolume)`;
  return [{ text, held: false }];
}

/** Why a node's report says nothing of its busy mounts, or undefined when it does. */
function notReported(node: string, s: NodeReportState | undefined, reason?: string): string | undefined {
  if (!s) return reason ?? 'the node agents were not asked';
  if (s.kind === 'no-agent') return `no rwx agent runs on ${node}`;
  if (s.kind === 'pending') return `the rwx agent on ${node} has not answered yet`;
  if (s.kind === 'unavailable') return `the rwx agent on ${node} could not be read: ${s.reason}`;
  if (!s.report.busyMounts)
    return `the rwx agent on ${node} (${s.report.agentVersion}) is too old to report busy mounts`;
  // Unknown with nothing unreadable: the host's mounts themselves could not be read.
  const b = s.report.busyMounts;
  if (b.status === 'unknown' && b.unreadableCount === 0 && b.mounts.length === 0)
    return `the rwx agent on ${node} could not read the host's mounts: ${s.report.problems[0] ?? 'no reason given'}`;
  return undefined;
}

/** The line for a pod whose node's agent did not say: not visible from the API, and the read-only way to see it. */
function notVisibleText(f: StuckPodFinding & { node: string }, why: string): string {
  const pod = `${f.pod.namespace}/${f.pod.name}`;
  const uid = f.pod.uid ?? '<pod UID>';
  return [
    `What holds the volume mount of ${pod} on ${f.node} is not visible from the API (${why}): the kubelet logs a failed`,
    `unmount (UnmountVolume.TearDown failed ... device or resource busy) to its own log only. On ${f.node}, read-only:`,
    `journalctl -u kubelet | grep ${uid}; findmnt -rn -o TARGET,SOURCE | grep ${uid}; grep -l ${uid} /proc/[0-9]*/mountinfo`,
  ].join(' ');
}

/** What holds one pod's volume mounts (see the file comment). */
export function podUnmountHolds(
  index: ClusterIndex,
  f: StuckPodFinding & { node: string },
  reports: NodeReports | undefined,
): UnmountHold[] {
  const pod = `${f.pod.namespace}/${f.pod.name}`;
  const state = reports?.kind === 'asked' ? reportStateOf(reports, f.node) : undefined;
  const why = notReported(f.node, state, reports?.kind === 'not-asked' ? reports.reason : undefined);
  if (why !== undefined || state?.kind !== 'report')
    return [{ pod, node: f.node, text: notVisibleText(f, why ?? 'no report'), held: false }];
  const r = state.report;
  const mine = (r.busyMounts?.mounts ?? []).filter((m) => m.podUid === f.pod.uid);
  if (mine.length === 0) {
    const sim = r.simulated ? '(simulated agent) ' : '';
    const text = `${sim}${f.node}: its rwx agent finds no volume mount of ${pod} left on the host: the unmount is done, or the mount is in another mount namespace only (see the proof)`;
    return [{ pod, node: f.node, text, held: false }];
  }
  return mine.flatMap((m) => mountLines(index, r, m).map((l) => ({ pod, node: f.node, ...l })));
}

/**
 * What holds the volume mounts of a pod being deleted, as the thread would state it: the pod read as the
 * stuck-terminating detector reads it (without its threshold) and located as the correlator locates it, then
 * podUnmountHolds. Undefined when the pod is not stuck at unpublish (not deleted, no node, a finalizer or the node
 * itself holds it): the thread states no such line for it either.
 */
export function terminatingPodHolds(
  index: ClusterIndex,
  pod: Pod,
  now: number,
  reports: NodeReports | undefined,
): UnmountHold[] | undefined {
  const since = terminatingSince(pod);
  if (since === undefined) return undefined;
  const f = terminatingFinding(index, pod, since, now);
  const located = { ...f, location: locate(index, f) };
  return atUnpublish(located) ? podUnmountHolds(index, located, reports) : undefined;
}

/**
 * Sets the held-by facts of the incidents' pods stuck at unpublish: on each pod's location, and among the
 * incident's location evidence and explanations (at most LINES_KEPT there, then a count), where the thread and
 * `rwx scan` show them. Before the drain advice, which names the holders in its step.
 */
export function addUnmountHolds(index: ClusterIndex, incidents: Incident[], reports: NodeReports | undefined): void {
  for (const inc of incidents) {
    const lines: string[] = [];
    for (const f of inc.pods) {
      if (!atUnpublish(f) || !f.location) continue;
      const holds = podUnmountHolds(index, f, reports);
      f.location = { ...f.location, unmountHolds: holds };
      lines.push(...holds.map((h) => h.text));
    }
    if (lines.length === 0) continue;
    const kept = lines.slice(0, LINES_KEPT);
    if (lines.length > LINES_KEPT)
      kept.push(`and ${lines.length - LINES_KEPT} more lines about what holds the pods' mounts`);
    if (inc.location) inc.location = { ...inc.location, evidence: [...inc.location.evidence, ...kept] };
    inc.explanations = [...(inc.explanations ?? []), ...kept.map((l) => `${l.replace(/[.:]$/, '')}.`)];
  }
}
