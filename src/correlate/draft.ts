// What the grouping rules (group.ts) share: the drafts made so far, and the findings not yet placed, sorted by the
// rules that have run. Pure bookkeeping.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { CronJobFinding, StuckPodFinding } from '../domain/findings.js';
import type { Verdict } from '../domain/incident.js';
import type { DaemonSet } from '../domain/objects.js';
import type { RolloutAnalysis } from './rollout.js';

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

/** Appends `v` to the list at `k`. */
export function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

/** The state one grouping pass threads through its rules, in the order they run. */
export interface Grouping {
  index: ClusterIndex;
  plugins: ReadonlyMap<string, DaemonSet>;
  openKeys: ReadonlySet<string>;
  drafts: Map<string, Draft>;
  /** Pods stuck creating on a storage cause, by driver, not yet placed. */
  creating: Map<string, StuckPodFinding[]>;
  /** Pods stuck Terminating on a storage cause, by driver, not yet placed. */
  terminating: Map<string, StuckPodFinding[]>;
  /** Pods with no storage or network evidence, and those of them a rollout incident took. */
  unknown: StuckPodFinding[];
  joined: Set<StuckPodFinding>;
  cronJobs: CronJobFinding[];
  /** node -> the drivers of the pods stuck creating there. */
  stuckDrivers: Map<string, Set<string>>;
  /** Pods no rollout took, by driver, and the terminating ones: the node rule's candidates. */
  remaining: Map<string, StuckPodFinding[]>;
  nodeCandidates: StuckPodFinding[];
  /** Drivers whose plugin rollout finished with stuck nodes and no control group. */
  uncompared: Map<string, RolloutAnalysis>;
}

/** A fresh grouping pass. */
export function newGrouping(
  index: ClusterIndex,
  plugins: ReadonlyMap<string, DaemonSet>,
  openKeys: ReadonlySet<string>,
): Grouping {
  return {
    index,
    plugins,
    openKeys,
    drafts: new Map(),
    creating: new Map(),
    terminating: new Map(),
    unknown: [],
    joined: new Set(),
    cronJobs: [],
    stuckDrivers: new Map(),
    remaining: new Map(),
    nodeCandidates: [],
    uncompared: new Map(),
  };
}

/** The draft under `key`, made with `init` the first time. */
export function draft(g: Grouping, key: string, init: Omit<Draft, 'key' | 'pods' | 'cronJobs'>): Draft {
  let d = g.drafts.get(key);
  if (!d) g.drafts.set(key, (d = { key, pods: [], cronJobs: [], ...init }));
  return d;
}

/** The nodes where pods of a driver other than `driver` are stuck creating (the rollout test's "other drivers"). */
export function otherDriverNodes(g: Grouping, driver: string): Set<string> {
  return new Set([...g.stuckDrivers].filter(([, ds]) => [...ds].some((d) => d !== driver)).map(([n]) => n));
}
