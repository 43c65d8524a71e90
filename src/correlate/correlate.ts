// The correlator: findings in, incidents out. Pure (reads the cluster cache, never the API) and linear in the
// findings plus the plugin pods and nodes it examines. Grouping rules are in group.ts, the rollout test in
// rollout.ts, the words in explain.ts. Next steps and drain advice are src/advise's, filled in by src/evaluate.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Finding, StuckPodFinding } from '../domain/findings.js';
import type { Incident, PluginOnNode, Verdict } from '../domain/incident.js';
import type { DaemonSet } from '../domain/objects.js';
import { finish, type Steps } from '../domain/steps.js';
import { incidentText } from './explain.js';
import { driverOf, groupFindings, type Draft } from './group.js';
import { nodeRowsSteps, workloadRows } from './members.js';
import {
  describePluginMatch,
  dsRef,
  matchPluginDaemonSets,
  type DriverDaemonSets,
  type PluginMatch,
} from './plugin-finder.js';
import { describePlugin, pluginOnNode } from './plugin-revision.js';
import { locate } from './locate.js';
import { incidentLocation, locationLine, volumeHealthLines } from './incident-location.js';

/** Options of one correlation pass. */
export interface CorrelateOptions {
  /** Evaluation time, epoch ms (ages are computed against it). */
  now: number;
  /** Operator override: driver -> "namespace/name" of its node plugin DaemonSet. */
  driverDaemonSets?: DriverDaemonSets;
  /**
   * Keys of the incidents already open (the notifier's unresolved records): an open rollout incident is kept while
   * it sustains (group.ts), so a partial recovery neither splits nor resolves it. Empty: every incident is new.
   */
  openKeys?: ReadonlySet<string>;
}

const ORDER: Record<Verdict, number> = { FOLLOWS_ROLLOUT: 0, FOLLOWS_NODE: 1, UNEXPLAINED: 2, NOT_STORAGE: 3 };

/** The plugin row for a node: the draft's DaemonSet, else the DaemonSet of the first driver stuck there. */
function pluginLookup(
  index: ClusterIndex,
  d: Draft,
  plugins: Map<string, DaemonSet>,
  now: number,
): (node: string) => PluginOnNode | undefined {
  if (d.rollout) {
    const a = d.rollout;
    const ds = d.daemonSet!;
    return (node) => {
      const pod = a.plugins.get(node);
      return pod ? describePlugin(index, ds, pod, now) : { node, daemonSet: dsRef(ds) };
    };
  }
  // The first stuck pod with a driver on each node, found once: looking it up node by node was O(nodes x pods).
  const firstOnNode = new Map<string, StuckPodFinding>();
  for (const p of d.pods)
    if (p.node !== undefined && driverOf(p) && !firstOnNode.has(p.node)) firstOnNode.set(p.node, p);
  return (node) => {
    const f = firstOnNode.get(node);
    const ds = d.daemonSet ?? (f ? plugins.get(driverOf(f) ?? '') : undefined);
    return ds ? pluginOnNode(index, ds, node, now) : undefined;
  };
}

/** Says how a driver's node plugin was found when it was a guess (elimination or name), so a reader can check it. */
function guessedPluginLine(d: Draft, matches: ReadonlyMap<string, PluginMatch>): string[] {
  const m = d.driver && d.daemonSet ? matches.get(d.driver) : undefined;
  if (!m || m.daemonSet !== d.daemonSet || (m.method !== 'elimination' && m.method !== 'name-token')) return [];
  const line = describePluginMatch(d.driver!, m);
  return [`${line.charAt(0).toUpperCase()}${line.slice(1)}.`];
}

/** One draft's incident, in steps (domain/steps.ts): its node rows are the work that grows with the incident. */
function* toIncident(
  index: ClusterIndex,
  d: Draft,
  plugins: Map<string, DaemonSet>,
  matches: ReadonlyMap<string, PluginMatch>,
  now: number,
): Steps<Incident> {
  const nodes = yield* nodeRowsSteps(index, d.pods, pluginLookup(index, d, plugins, now));
  const location = incidentLocation(index, d);
  const text = incidentText(index, d, nodes, location);
  const inc: Incident = {
    key: d.key,
    verdict: d.verdict,
    title: text.title,
    summary: text.summary,
    pods: [...d.pods].sort((a, b) => a.key.localeCompare(b.key)),
    cronJobs: d.cronJobs,
    nodes,
    workloads: workloadRows(index, d.pods, d.cronJobs),
    drain: [],
    nextSteps: [],
    explanations: [
      locationLine(location),
      ...volumeHealthLines(location),
      ...text.explanations,
      ...guessedPluginLine(d, matches),
    ],
  };
  if (d.driver) inc.driver = d.driver;
  if (d.daemonSet) inc.daemonSet = dsRef(d.daemonSet);
  if (d.rollout) {
    inc.rollout = d.rollout.evidence;
    inc.revision = d.rollout.evidence.newRevision;
  }
  if (d.node) inc.node = d.node;
  inc.location = location;
  return inc;
}

/**
 * Correlates findings into incidents (FOLLOWS_ROLLOUT first). Their `drain` and `nextSteps` are left empty: advice
 * is the next stage's (src/evaluate runs detect -> correlate -> advise).
 */
export function correlate(index: ClusterIndex, findings: readonly Finding[], opts: CorrelateOptions): Incident[] {
  return finish(correlateSteps(index, findings, opts));
}

/** correlate() in steps (domain/steps.ts): one incident per step. */
export function* correlateSteps(
  index: ClusterIndex,
  findings: readonly Finding[],
  opts: CorrelateOptions,
): Steps<Incident[]> {
  const overrides = opts.driverDaemonSets ?? {};
  const matches = matchPluginDaemonSets(index, overrides);
  const plugins = new Map([...matches].map(([driver, m]) => [driver, m.daemonSet]));
  const incidents: Incident[] = [];
  // Located once here, on copies: the grouping rules and every output read the same location.
  const located = findings.map((f) => (f.kind === 'cronjob-missed' ? f : { ...f, location: locate(index, f) }));
  for (const d of groupFindings(index, located, plugins, opts.openKeys)) {
    yield;
    incidents.push(yield* toIncident(index, d, plugins, matches, opts.now));
  }
  return incidents.sort((a, b) => ORDER[a.verdict] - ORDER[b.verdict] || a.key.localeCompare(b.key));
}
