// Grouping findings into incident drafts: which stuck pod belongs to which (DaemonSet revision | node | driver)
// group, and which CronJob joins which group. Pure; see correlate.ts for the whole pipeline.
//
// Rules, in order:
// 0. A pod whose location (locate.ts) is held by a node other than the one it waits on, or by a node that is not
//    Ready, joins that node's incident: `node/<node>` when the holder is not Ready (every stuck pod on a dead
//    node, its own plugin pod included, and the pods elsewhere waiting for an attachment it holds), else
//    `attach/<node>` (a Ready node holds an exclusive attachment another node's pod waits for). Never by driver.
// 1. Pods stuck for a network cause (FailedCreatePodSandBox) form one NOT_STORAGE incident `not-storage` for the
//    whole cluster (a CNI rollout breaks nodes one after another: one thread that lists them, not one per node);
//    never with storage. Pods whose Secret, ConfigMap, projected, downward API or emptyDir volumes fail (cause
//    'config') form NOT_STORAGE `config/<namespace>/<kind>/<name>` per missing object (or `config/<namespace>` when
//    the kubelet names none), and slow image pulls NOT_STORAGE `not-storage/image-pull`: never a storage incident.
// 2. Pods stuck with no storage or network evidence group as UNEXPLAINED under `unexplained/cause-unknown`, except
//    that a pod stuck in ContainerCreating whose claim uses a driver found to follow a rollout, on a node whose
//    plugin runs the bad revision, joins that rollout incident (the kubelet's FailedMount may be missing: events
//    are rate-limited and expire); the rollout test itself is decided on evidence-bearing pods only.
// 2b. Pods of one claim stuck on two or more nodes that each mount the claim's driver fine right now are that
//    volume's fault: UNEXPLAINED `volume/<namespace>/<claim>` (volume-fault.ts), before any rollout or node test.
// 3. Pods stuck in ContainerCreating on a storage cause group per CSI driver; a driver whose node plugin
//    DaemonSet passes the rollout test (rollout.ts) becomes FOLLOWS_ROLLOUT `rollout/<ns>/<ds>@<rev>`, with all its
//    stuck pods, including those recovering after their node's plugin was replaced (not evidence, see rollout.ts).
//    An incident already open under that key stays FOLLOWS_ROLLOUT on the weaker sustain test (sustainsRollout):
//    partial recovery is not resolution, and the pods still stuck never start a second incident.
// 4. Pods stuck Terminating on a storage cause (an unmount failure, or no event at all on a pod with a storage
//    volume: detect/stuck-terminating.ts) take the same rollout test per driver (new revision stuck, old not; a pod
//    that mounted under the new revision does not veto it, mounting is not unmounting): a wave that follows a plugin
//    rollout joins that rollout's incident `rollout/<ns>/<ds>@<rev>`, one incident and not one per node; an open
//    one is kept on the same sustain test as rule 3 (a pod that terminated at last is one member recovering).
// 5. The remaining storage pods, and the remaining pods stuck Terminating, group per node as FOLLOWS_NODE when the
//    node holds stuck mounts of two or more drivers, or an unmount failure the kubelet reported (a silent one needs
//    a second stuck pod there), or is
//    the only node with stuck mounts of a driver and either two or more workloads are stuck there or the same
//    plugin revision demonstrably mounts on another node (so the node, not the plugin, is what differs), and no
//    pod with that driver's volume started there since its plugin did (a node that mounts the driver fine is not
//    the fault). The rest stay UNEXPLAINED per driver (`unexplained/<driver>`, driver "unresolved" when the volume
//    leads to no CSI driver, e.g. a missing Secret), with what was seen.
// 6. A CronJob finding joins the group of any stuck pod of its Jobs (a backup that never ran because its pod
//    was stuck); otherwise it forms its own UNEXPLAINED group `cronjob/<ns>/<name>`, labelled as such.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { CronJobFinding, Finding, StuckPodFinding } from '../domain/findings.js';
import type { Verdict } from '../domain/incident.js';
import type { DaemonSet } from '../domain/objects.js';
import { memberKey } from './members.js';
import { splitVolumeFaults } from './volume-fault.js';
import {
  analyzeRollout,
  mountedSincePlugin,
  revisionProvenElsewhere,
  rolloutKey,
  sustainsRollout,
  type RolloutAnalysis,
  type RolloutTestOptions,
} from './rollout.js';

/** An incident before its text and tables are written. */
export interface Draft {
  key: string;
  verdict: Verdict;
  pods: StuckPodFinding[];
  cronJobs: CronJobFinding[];
  driver?: string;
  daemonSet?: DaemonSet;
  rollout?: RolloutAnalysis;
  node?: string;
  /** A finished rollout of the driver's plugin with stuck nodes but no node left on the previous revision. */
  uncompared?: RolloutAnalysis;
}

/** The driver a stuck pod's blamed storage leads to, if any. */
export function driverOf(f: StuckPodFinding): string | undefined {
  return f.storage.find((p) => p.driver)?.driver;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

/**
 * Groups findings into drafts (see the file comment), given each driver's node plugin DaemonSet (plugin-finder.ts)
 * and the keys of the incidents already open (`openKeys`, see sustain()). Linear in findings plus the plugin
 * pods examined.
 */
export function groupFindings(
  index: ClusterIndex,
  findings: readonly Finding[],
  plugins: ReadonlyMap<string, DaemonSet>,
  openKeys: ReadonlySet<string> = new Set(),
): Draft[] {
  const drafts = new Map<string, Draft>();
  const draft = (key: string, init: Omit<Draft, 'key' | 'pods' | 'cronJobs'>): Draft => {
    let d = drafts.get(key);
    if (!d) drafts.set(key, (d = { key, pods: [], cronJobs: [], ...init }));
    return d;
  };
  const creatingByDriver = new Map<string, StuckPodFinding[]>();
  const nodeCandidates: StuckPodFinding[] = [];
  const cronJobs: CronJobFinding[] = [];
  const unknown: StuckPodFinding[] = [];
  const terminatingByDriver = new Map<string, StuckPodFinding[]>();
  for (const f of findings) {
    const held = f.kind === 'cronjob-missed' ? undefined : heldBy(f);
    if (f.kind === 'cronjob-missed') cronJobs.push(f);
    else if (held) draft(held.key, { verdict: 'FOLLOWS_NODE', node: held.node }).pods.push(f);
    else if (f.cause === 'network') draft('not-storage', { verdict: 'NOT_STORAGE' }).pods.push(f);
    else if (f.cause === 'config') draft(configKey(f), { verdict: 'NOT_STORAGE' }).pods.push(f);
    else if (f.cause === 'image') draft('not-storage/image-pull', { verdict: 'NOT_STORAGE' }).pods.push(f);
    else if (f.cause === 'unknown') unknown.push(f);
    else if (f.kind === 'stuck-terminating') push(terminatingByDriver, driverOf(f) ?? 'unresolved', f);
    else push(creatingByDriver, driverOf(f) ?? 'unresolved', f);
  }

  // Rule 2b: a volume failing on every node it is tried on, where other volumes of its driver mount (volume-fault.ts).
  for (const [driver, fs] of creatingByDriver) {
    const { byClaim, rest } = splitVolumeFaults(index, plugins.get(driver), driver, fs);
    for (const [claim, pods] of byClaim)
      draft(`volume/${claim}`, { verdict: 'UNEXPLAINED', driver }).pods.push(...pods);
    if (rest.length > 0) creatingByDriver.set(driver, rest);
    else creatingByDriver.delete(driver);
  }

  const stuckDriversByNode = new Map<string, Set<string>>();
  for (const [driver, fs] of creatingByDriver) {
    for (const f of fs)
      if (f.node) {
        const s = stuckDriversByNode.get(f.node) ?? new Set<string>();
        s.add(driver);
        stuckDriversByNode.set(f.node, s);
      }
  }
  const remaining = new Map<string, StuckPodFinding[]>();
  const uncompared = new Map<string, RolloutAnalysis>();
  const joined = new Set<StuckPodFinding>();
  for (const [driver, group] of creatingByDriver) {
    let fs = group;
    const ds = plugins.get(driver);
    const others = new Set(
      [...stuckDriversByNode].filter(([, ds2]) => [...ds2].some((d) => d !== driver)).map(([n]) => n),
    );
    const tested = ds ? analyzeRollout(index, ds, driver, fs, others) : undefined;
    const kept = ds && tested && !tested.fits ? sustain(index, ds, driver, fs, others, tested, openKeys) : undefined;
    const first = kept?.analysis ?? tested;
    if (!ds || !first || !(first.fits || kept)) {
      remaining.set(driver, fs);
      if (first?.complete && first.evidence.counts.newStuck > 0) uncompared.set(driver, first);
      continue;
    }
    if (kept) {
      fs = kept.members;
      if (kept.left.length > 0) remaining.set(driver, kept.left);
    }
    // Pods without events that fit the pattern join, and the analysis is redone so the 2x2 counts them.
    const joining = unknown.filter(
      (f) =>
        !joined.has(f) &&
        f.kind === 'stuck-creating' &&
        driverOf(f) === driver &&
        f.node &&
        first.revisionByNode.get(f.node) === first.evidence.newRevision,
    );
    let analysis = first;
    if (joining.length > 0) {
      for (const f of joining) joined.add(f);
      fs = [...fs, ...joining];
      analysis = analyzeRollout(index, ds, driver, fs, others) ?? first;
    }
    const ev = analysis.evidence;
    const d = draft(rolloutKey(ev), {
      verdict: 'FOLLOWS_ROLLOUT',
      driver,
      daemonSet: ds,
      rollout: analysis,
    });
    // Recovering pods (rollout.ts) stay members: they neither leave for a node or unexplained group nor vote.
    d.pods.push(...fs);
  }

  for (const f of unknown)
    if (!joined.has(f)) draft('unexplained/cause-unknown', { verdict: 'UNEXPLAINED' }).pods.push(f);

  // Rule 4: unmount failures that follow a plugin rollout; the rest are node candidates.
  for (const [driver, fs] of terminatingByDriver) {
    const ds = plugins.get(driver);
    const others = new Set(
      [...stuckDriversByNode].filter(([, ds2]) => [...ds2].some((d) => d !== driver)).map(([n]) => n),
    );
    const unmount = { unmount: true };
    const tested = ds ? analyzeRollout(index, ds, driver, fs, others, unmount) : undefined;
    // Partial recovery is not resolution for an unmount wave either: an open incident is kept while it sustains.
    const kept =
      ds && tested && !tested.fits ? sustain(index, ds, driver, fs, others, tested, openKeys, unmount) : undefined;
    const analysis = kept?.analysis ?? tested;
    if (!ds || !analysis || !(analysis.fits || kept)) {
      nodeCandidates.push(...fs);
      continue;
    }
    nodeCandidates.push(...(kept?.left ?? []));
    const key = rolloutKey(analysis.evidence);
    const d = draft(key, { verdict: 'FOLLOWS_ROLLOUT', driver, daemonSet: ds, rollout: analysis });
    d.pods.push(...(kept?.members ?? fs));
  }

  // Rule 5: which nodes the remaining storage pods follow. A node verdict needs corroboration on the node: two
  // stuck pods there (unmounts count), or two drivers, and never a node that mounts the driver fine right now.
  const nodeFault = new Set<string>();
  const stuckOn = new Map<string, number>();
  for (const f of [...nodeCandidates, ...[...remaining.values()].flat()])
    if (f.node) stuckOn.set(f.node, (stuckOn.get(f.node) ?? 0) + 1);
  // An unmount failure the kubelet reported is evidence on its node; a silent suspect needs a second stuck pod.
  for (const f of nodeCandidates)
    if (f.node && (f.events.length > 0 || (stuckOn.get(f.node) ?? 0) >= 2)) nodeFault.add(f.node);
  for (const [node, drivers] of stuckDriversByNode) if (drivers.size >= 2) nodeFault.add(node);
  for (const [driver, fs] of remaining) {
    if (driver === 'unresolved') continue;
    const nodes = new Set(fs.map((f) => f.node ?? ''));
    const workloads = new Set(fs.map((f) => `${f.workload.kind}/${f.workload.namespace}/${f.workload.name}`));
    const only = [...nodes][0];
    const ds = plugins.get(driver);
    const fineHere = ds && only ? mountedSincePlugin(index, ds, driver, only).length > 0 : false;
    if (
      nodes.size === 1 &&
      only &&
      !fineHere &&
      (workloads.size >= 2 || (ds && revisionProvenElsewhere(index, ds, driver, only)))
    )
      nodeFault.add(only);
  }
  for (const f of nodeCandidates) {
    if (f.node && nodeFault.has(f.node))
      draft(`node/${f.node}`, { verdict: 'FOLLOWS_NODE', node: f.node }).pods.push(f);
    else push(remaining, driverOf(f) ?? 'unresolved', f);
  }
  const sandbox = drafts.get('not-storage');
  if (sandbox) {
    const nodes = new Set(sandbox.pods.map((f) => f.node));
    const only = [...nodes][0];
    if (nodes.size === 1 && only) sandbox.node = only;
  }
  for (const [driver, fs] of remaining) {
    for (const f of fs) {
      if (f.node && nodeFault.has(f.node))
        draft(`node/${f.node}`, { verdict: 'FOLLOWS_NODE', node: f.node }).pods.push(f);
      else {
        const ds = plugins.get(driver);
        draft(`unexplained/${driver}`, {
          verdict: 'UNEXPLAINED',
          driver,
          ...(ds ? { daemonSet: ds } : {}),
          ...(uncompared.has(driver) ? { uncompared: uncompared.get(driver) } : {}),
        }).pods.push(f);
      }
    }
  }

  // Rule 6: CronJobs join the group of their Jobs' stuck pods.
  const byMember = new Map<string, Draft>();
  for (const d of drafts.values())
    for (const f of d.pods) if (!byMember.has(memberKey(f))) byMember.set(memberKey(f), d);
  for (const c of cronJobs) {
    const home = c.jobs
      .flatMap((j) => j.pods)
      .map((p) => byMember.get(p))
      .find((d) => d !== undefined);
    (home ?? draft(`cronjob/${c.cronJob.namespace}/${c.cronJob.name}`, { verdict: 'UNEXPLAINED' })).cronJobs.push(c);
  }
  return [...drafts.values()];
}

/** Rule 0: the incident of the node that holds a pod's fault when that is not simply the pod's own (see above). */
function heldBy(f: StuckPodFinding): { key: string; node: string } | undefined {
  const l = f.location;
  if (!l?.holder) return undefined;
  if (l.holderHealth) return { key: `node/${l.holder}`, node: l.holder };
  if (l.layer === 'attach' && l.holder !== f.node) return { key: `attach/${l.holder}`, node: l.holder };
  return undefined;
}

/** The NOT_STORAGE key of a configuration fault: the first missing object, else the namespace. */
function configKey(f: StuckPodFinding): string {
  const o = f.configObjects?.[0];
  return o ? `config/${f.pod.namespace}/${o.kind}/${o.name}` : `config/${f.pod.namespace}`;
}

/**
 * A rollout incident already open (its key in `openKeys`) whose test (with `opts`: of unmounts, rule 4) no longer
 * fits stays one incident while it sustains (sustainsRollout): the members stuck on nodes off the new revision
 * (evidence that left the pattern) leave it and are grouped like any other pod, the analysis is redone without
 * them, and the rest stay. Undefined
 * when the incident is not open or no longer sustains: then the test alone decides, as for a new incident.
 */
function sustain(
  index: ClusterIndex,
  ds: DaemonSet,
  driver: string,
  fs: StuckPodFinding[],
  others: ReadonlySet<string>,
  tested: RolloutAnalysis,
  openKeys: ReadonlySet<string>,
  opts: RolloutTestOptions = {},
): { analysis: RolloutAnalysis; members: StuckPodFinding[]; left: StuckPodFinding[] } | undefined {
  if (!openKeys.has(rolloutKey(tested.evidence))) return undefined;
  const newRev = tested.evidence.newRevision;
  const off = (f: StuckPodFinding): boolean =>
    !tested.recovering.has(f) && f.node !== undefined && tested.revisionByNode.get(f.node) !== newRev;
  const left = fs.filter(off);
  const members = left.length > 0 ? fs.filter((f) => !off(f)) : fs;
  const analysis = left.length > 0 ? analyzeRollout(index, ds, driver, members, others, opts) : tested;
  if (!analysis || members.length === 0 || !sustainsRollout(analysis)) return undefined;
  return { analysis, members, left };
}
