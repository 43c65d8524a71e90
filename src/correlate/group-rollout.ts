// Grouping rules 3 and 4 (group.ts): stuck mounts, then stuck unmounts, that follow a driver's node plugin rollout.
// Both take the one rollout test (testRollout: the analysis, or an open incident kept while it sustains).
import type { StuckPodFinding } from '../domain/findings.js';
import type { DaemonSet } from '../domain/objects.js';
import { draft, driverOf, otherDriverNodes, type Grouping } from './draft.js';
import {
  analyzeRollout,
  rolloutKey,
  sustainsRollout,
  type RolloutAnalysis,
  type RolloutTestOptions,
} from './rollout.js';

/** What the rollout test decided for one driver's pods: the analysis, and the members and leavers when kept. */
interface Tested {
  ds: DaemonSet;
  analysis: RolloutAnalysis;
  members: StuckPodFinding[];
  left: StuckPodFinding[];
}

/**
 * The rollout test of one driver's stuck pods: fits, or an open incident sustained (sustain()). Undefined when it
 * neither fits nor is kept; `onMiss` is told the analysis then (a finished rollout with no control group).
 */
function testRollout(
  g: Grouping,
  driver: string,
  fs: StuckPodFinding[],
  opts: RolloutTestOptions,
  onMiss: (a: RolloutAnalysis | undefined) => void = () => {},
): Tested | undefined {
  const ds = g.plugins.get(driver);
  const others = otherDriverNodes(g, driver);
  const tested = ds ? analyzeRollout(g.index, ds, driver, fs, others, opts) : undefined;
  const kept = ds && tested && !tested.fits ? sustain(g, ds, driver, fs, others, tested, opts) : undefined;
  const analysis = kept?.analysis ?? tested;
  if (!ds || !analysis || !(analysis.fits || kept)) {
    onMiss(analysis);
    return undefined;
  }
  return { ds, analysis, members: kept?.members ?? fs, left: kept?.left ?? [] };
}

/** Rule 3: stuck mounts that follow a rollout, with the eventless pods on its bad revision joining them. */
export function rolloutMounts(g: Grouping): void {
  for (const [driver, fs] of g.creating) {
    const t = testRollout(g, driver, fs, {}, (a) => {
      g.remaining.set(driver, fs);
      if (a?.complete && a.evidence.counts.newStuck > 0) g.uncompared.set(driver, a);
    });
    if (!t) continue;
    if (t.left.length > 0) g.remaining.set(driver, t.left);
    const first = t.analysis;
    // Pods without events that fit the pattern join, and the analysis is redone so the 2x2 counts them.
    const joining = g.unknown.filter(
      (f) =>
        !g.joined.has(f) &&
        f.kind === 'stuck-creating' &&
        driverOf(f) === driver &&
        f.node &&
        first.revisionByNode.get(f.node) === first.evidence.newRevision,
    );
    for (const f of joining) g.joined.add(f);
    const members = [...t.members, ...joining];
    const analysis =
      joining.length > 0
        ? (analyzeRollout(g.index, t.ds, driver, members, otherDriverNodes(g, driver)) ?? first)
        : first;
    // Recovering pods (rollout.ts) stay members: they neither leave for a node or unexplained group nor vote.
    draft(g, rolloutKey(analysis.evidence), {
      verdict: 'FOLLOWS_ROLLOUT',
      driver,
      daemonSet: t.ds,
      rollout: analysis,
    }).pods.push(...members);
  }
}

/** Rule 4: unmount failures that follow a rollout (a pod that mounted does not veto); the rest are node candidates. */
export function rolloutUnmounts(g: Grouping): void {
  for (const [driver, fs] of g.terminating) {
    // Partial recovery is not resolution for an unmount wave either: an open incident is kept while it sustains.
    const t = testRollout(g, driver, fs, { unmount: true });
    if (!t) {
      g.nodeCandidates.push(...fs);
      continue;
    }
    g.nodeCandidates.push(...t.left);
    draft(g, rolloutKey(t.analysis.evidence), {
      verdict: 'FOLLOWS_ROLLOUT',
      driver,
      daemonSet: t.ds,
      rollout: t.analysis,
    }).pods.push(...t.members);
  }
}

/**
 * A rollout incident already open (its key in `openKeys`) whose test (with `opts`: of unmounts, rule 4) no longer
 * fits stays one incident while it sustains (sustainsRollout): the members stuck on nodes off the new revision
 * (evidence that left the pattern) leave it and are grouped like any other pod, the analysis is redone without
 * them, and the rest stay. Undefined when the incident is not open or no longer sustains: then the test alone
 * decides, as for a new incident.
 */
function sustain(
  g: Grouping,
  ds: DaemonSet,
  driver: string,
  fs: StuckPodFinding[],
  others: ReadonlySet<string>,
  tested: RolloutAnalysis,
  opts: RolloutTestOptions,
): { analysis: RolloutAnalysis; members: StuckPodFinding[]; left: StuckPodFinding[] } | undefined {
  if (!g.openKeys.has(rolloutKey(tested.evidence))) return undefined;
  const newRev = tested.evidence.newRevision;
  const off = (f: StuckPodFinding): boolean =>
    !tested.recovering.has(f) && f.node !== undefined && tested.revisionByNode.get(f.node) !== newRev;
  const left = fs.filter(off);
  const members = left.length > 0 ? fs.filter((f) => !off(f)) : fs;
  const analysis = left.length > 0 ? analyzeRollout(g.index, ds, driver, members, others, opts) : tested;
  if (!analysis || members.length === 0 || !sustainsRollout(analysis)) return undefined;
  return { analysis, members, left };
}
