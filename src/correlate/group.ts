// Grouping findings into incident drafts: which stuck pod belongs to which (DaemonSet revision | node | driver)
// group, and which CronJob joins which group. Pure; see correlate.ts for the whole pipeline.
//
// Rules, in order (GROUP_RULES: each an entry with its own test, test/correlate/group-rules.test.ts):
// 0. A pod whose location (locate.ts) is held by a node other than the one it waits on, or by a node that is not
//    Ready, joins that node's incident: `node/<node>` when the holder is not Ready (every stuck pod on a dead
//    node, its own plugin pod included, and the pods elsewhere waiting for an attachment it holds), else
//    `attach/<node>` (a Ready node holds an exclusive attachment another node's pod waits for). Never by driver.
// 1. Pods stuck for a network cause (FailedCreatePodSandBox) form one NOT_STORAGE incident `not-storage` for the
//    whole cluster (a CNI rollout breaks nodes one after another: one thread that lists them, not one per node);
//    never with storage. Pods whose Secret, ConfigMap, projected, downward API or emptyDir volumes fail (cause
//    'config') form NOT_STORAGE `config/<namespace>/<kind>/<name>` per missing object (or `config/<namespace>` when
//    the kubelet names none); pods whose own settings make the mount wait (an SELinux label conflict, a long fsGroup
//    ownership change: detect/pod-settings.ts) form `config/<namespace>/selinux|fsgroup/<claim>`; slow image pulls
//    NOT_STORAGE `not-storage/image-pull`: never a storage incident, never a driver's, a node's or a rollout's.
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
//    a second stuck pod there), or a driver not registered there (the kubelet says so, or its CSINode lacks it), or is
//    the only node with stuck mounts of a driver and either two or more workloads are stuck there or the same
//    plugin revision demonstrably mounts on another node (so the node, not the plugin, is what differs), and no
//    pod with that driver's volume started there since its plugin did (a node that mounts the driver fine is not
//    the fault). The rest stay UNEXPLAINED per driver (`unexplained/<driver>`, driver "unresolved" when the volume
//    leads to no CSI driver, e.g. a missing Secret), with what was seen.
// 6. A CronJob finding joins the group of any stuck pod of its Jobs (a backup that never ran because its pod
//    was stuck); otherwise it forms its own UNEXPLAINED group `cronjob/<ns>/<name>`, labelled as such.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Finding } from '../domain/findings.js';
import type { DaemonSet } from '../domain/objects.js';
import { newGrouping, type Draft, type Grouping } from './draft.js';
import { rolloutMounts, rolloutUnmounts } from './group-rollout.js';
import { byCause, causeUnknown, cronJobsJoin, nodesOrUnexplained, volumeFaults } from './group-rules.js';

export { driverOf, type Draft } from './draft.js';

/** One grouping rule: it places the findings it decides on into drafts, and leaves the rest to the next. */
export interface GroupRule {
  name: string;
  apply(g: Grouping, findings: readonly Finding[]): void;
}

/** The grouping rules, in the order they run (the numbers of the file comment). */
export const GROUP_RULES: readonly GroupRule[] = [
  { name: 'held by a node, not storage (0, 1)', apply: byCause },
  { name: 'a volume fault (2b)', apply: volumeFaults },
  { name: 'mounts follow a rollout (3)', apply: rolloutMounts },
  { name: 'cause unknown (2)', apply: causeUnknown },
  { name: 'unmounts follow a rollout (4)', apply: rolloutUnmounts },
  { name: 'the node, else unexplained (5)', apply: nodesOrUnexplained },
  { name: 'CronJobs join their pods (6)', apply: cronJobsJoin },
];

/**
 * Groups findings into drafts (see the file comment), given each driver's node plugin DaemonSet (plugin-finder.ts)
 * and the keys of the incidents already open (`openKeys`: an open rollout incident is kept while it sustains).
 * Linear in findings plus the plugin pods examined.
 */
export function groupFindings(
  index: ClusterIndex,
  findings: readonly Finding[],
  plugins: ReadonlyMap<string, DaemonSet>,
  openKeys: ReadonlySet<string> = new Set(),
): Draft[] {
  const g = newGrouping(index, plugins, openKeys);
  for (const rule of GROUP_RULES) rule.apply(g, findings);
  return [...g.drafts.values()];
}
