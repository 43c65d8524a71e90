// Grouping rules 0-2, 5 and 6 (group.ts has the list and what each decides): sorting by cause, the faults a node
// holds, a volume's own fault, the pods left with no evidence, the node verdict, and the CronJobs.
import type { Finding, StuckPodFinding } from '../domain/findings.js';
import { draft, driverOf, push, type Grouping } from './draft.js';
import { memberKey } from './members.js';
import { mountedSincePlugin, revisionProvenElsewhere } from './rollout-mounts.js';
import { splitVolumeFaults } from './volume-fault.js';

/** Rule 0: the incident of the node that holds a pod's fault when that is not simply the pod's own. */
function heldBy(f: StuckPodFinding): { key: string; node: string } | undefined {
  const l = f.location;
  if (!l?.holder) return undefined;
  if (l.holderHealth) return { key: `node/${l.holder}`, node: l.holder };
  if (l.layer === 'attach' && l.holder !== f.node) return { key: `attach/${l.holder}`, node: l.holder };
  return undefined;
}

/**
 * The NOT_STORAGE key of a configuration fault: the pod setting the kubelet waits on and its claim (or volume), else
 * the first missing object, else the namespace.
 */
function configKey(f: StuckPodFinding): string {
  const w = f.configWait;
  if (w) return `config/${f.pod.namespace}/${w.kind}/${w.claim ?? w.volume ?? f.pod.name}`;
  const o = f.configObjects?.[0];
  return o ? `config/${f.pod.namespace}/${o.kind}/${o.name}` : `config/${f.pod.namespace}`;
}

/** Rules 0 and 1: held faults and causes that are not storage get their drafts; the rest are sorted for the others. */
export function byCause(g: Grouping, findings: readonly Finding[]): void {
  for (const f of findings) {
    if (f.kind === 'cronjob-missed') {
      g.cronJobs.push(f);
      continue;
    }
    const held = heldBy(f);
    if (held) draft(g, held.key, { verdict: 'FOLLOWS_NODE', node: held.node }).pods.push(f);
    else if (f.cause === 'network') draft(g, 'not-storage', { verdict: 'NOT_STORAGE' }).pods.push(f);
    else if (f.cause === 'config') draft(g, configKey(f), { verdict: 'NOT_STORAGE' }).pods.push(f);
    else if (f.cause === 'image') draft(g, 'not-storage/image-pull', { verdict: 'NOT_STORAGE' }).pods.push(f);
    else if (f.cause === 'unknown') g.unknown.push(f);
    else if (f.kind === 'stuck-terminating') push(g.terminating, driverOf(f) ?? 'unresolved', f);
    else push(g.creating, driverOf(f) ?? 'unresolved', f);
  }
  const sandbox = g.drafts.get('not-storage');
  const nodes = new Set(sandbox?.pods.map((f) => f.node));
  const only = [...nodes][0];
  if (sandbox && nodes.size === 1 && only) sandbox.node = only;
}

/** Rule 2b: a volume failing on every node it is tried on, where other volumes of its driver mount. */
export function volumeFaults(g: Grouping): void {
  for (const [driver, fs] of g.creating) {
    const ds = g.plugins.get(driver);
    const { byClaim, rest } = splitVolumeFaults(g.index, ds, driver, fs);
    for (const [claim, pods] of byClaim)
      draft(g, `volume/${claim}`, { verdict: 'UNEXPLAINED', driver, ...(ds ? { daemonSet: ds } : {}) }).pods.push(
        ...pods,
      );
    if (rest.length > 0) g.creating.set(driver, rest);
    else g.creating.delete(driver);
  }
  for (const [driver, fs] of g.creating)
    for (const f of fs)
      if (f.node) {
        const s = g.stuckDrivers.get(f.node) ?? new Set<string>();
        s.add(driver);
        g.stuckDrivers.set(f.node, s);
      }
}

/** Rule 2: the pods with no storage or network evidence that no rollout incident took. */
export function causeUnknown(g: Grouping): void {
  for (const f of g.unknown)
    if (!g.joined.has(f)) draft(g, 'unexplained/cause-unknown', { verdict: 'UNEXPLAINED' }).pods.push(f);
}

/** The nodes the remaining storage pods follow (rule 5's corroboration, see group.ts). */
function faultyNodes(g: Grouping): Set<string> {
  const nodeFault = new Set<string>();
  const stuckOn = new Map<string, number>();
  for (const f of [...g.nodeCandidates, ...[...g.remaining.values()].flat()])
    if (f.node) stuckOn.set(f.node, (stuckOn.get(f.node) ?? 0) + 1);
  // An unmount failure the kubelet reported is evidence on its node; a silent suspect needs a second stuck pod.
  for (const f of g.nodeCandidates)
    if (f.node && (f.events.length > 0 || (stuckOn.get(f.node) ?? 0) >= 2)) nodeFault.add(f.node);
  for (const [node, drivers] of g.stuckDrivers) if (drivers.size >= 2) nodeFault.add(node);
  // A driver not registered on the node (the kubelet's words or its CSINode) is the node's own state, not one pod's.
  for (const f of [...g.remaining.values()].flat()) if (f.node && f.location?.unregistered) nodeFault.add(f.node);
  for (const [driver, fs] of g.remaining) {
    if (driver === 'unresolved') continue;
    const nodes = new Set(fs.map((f) => f.node ?? ''));
    const workloads = new Set(fs.map((f) => `${f.workload.kind}/${f.workload.namespace}/${f.workload.name}`));
    const only = [...nodes][0];
    const ds = g.plugins.get(driver);
    if (nodes.size !== 1 || !only) continue;
    if (ds && mountedSincePlugin(g.index, ds, driver, only).length > 0) continue;
    if (workloads.size >= 2 || (ds && revisionProvenElsewhere(g.index, ds, driver, only))) nodeFault.add(only);
  }
  return nodeFault;
}

/** Rule 5: per node when corroborated there, else UNEXPLAINED per driver. */
export function nodesOrUnexplained(g: Grouping): void {
  const nodeFault = faultyNodes(g);
  for (const f of g.nodeCandidates) {
    if (f.node && nodeFault.has(f.node))
      draft(g, `node/${f.node}`, { verdict: 'FOLLOWS_NODE', node: f.node }).pods.push(f);
    else push(g.remaining, driverOf(f) ?? 'unresolved', f);
  }
  for (const [driver, fs] of g.remaining) {
    const ds = g.plugins.get(driver);
    const uncompared = g.uncompared.get(driver);
    for (const f of fs) {
      if (f.node && nodeFault.has(f.node))
        draft(g, `node/${f.node}`, { verdict: 'FOLLOWS_NODE', node: f.node }).pods.push(f);
      else
        draft(g, `unexplained/${driver}`, {
          verdict: 'UNEXPLAINED',
          driver,
          ...(ds ? { daemonSet: ds } : {}),
          ...(uncompared ? { uncompared } : {}),
        }).pods.push(f);
    }
  }
}

/** Rule 6: CronJobs join the group of their Jobs' stuck pods, else a group of their own. */
export function cronJobsJoin(g: Grouping): void {
  const byMember = new Map<string, ReturnType<typeof draft>>();
  for (const d of g.drafts.values())
    for (const f of d.pods) if (!byMember.has(memberKey(f))) byMember.set(memberKey(f), d);
  for (const c of g.cronJobs) {
    const home = c.jobs
      .flatMap((j) => j.pods)
      .map((p) => byMember.get(p))
      .find((d) => d !== undefined);
    (home ?? draft(g, `cronjob/${c.cronJob.namespace}/${c.cronJob.name}`, { verdict: 'UNEXPLAINED' })).cronJobs.push(c);
  }
}
