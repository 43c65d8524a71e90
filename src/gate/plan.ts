// The gate's pure parts: which nodes to test, what to create on each, and how to read a finished probe pod.
import { RwxError } from '../errors.js';
import type { Node } from '../domain/objects.js';

/** Label on everything the gate creates; `--cleanup` deletes by it. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** Value of MANAGED_BY_LABEL. */
export const MANAGED_BY = 'rwx-gate';
/** Label carrying the run id, so one run cleans up exactly its own objects. */
export const RUN_LABEL = 'rwx.dev/gate-run';
/** Annotation naming the node a probe targets (node names can exceed label-value limits). */
export const NODE_ANNOTATION = 'rwx.dev/gate-node';
/** Where the probe mounts the claim. */
export const MOUNT_PATH = '/mnt/rwx-gate';

/** Probe exit codes, one per step, so the table can say which step failed. */
export const EXIT = { ok: 0, mountMissing: 3, writeFailed: 4, readBackMismatch: 5 } as const;

/**
 * The probe: checks the claim is really mounted (not an empty directory left by a mount that never reached the
 * container), writes a token, syncs, reads it back. busybox sh; each step's failure has its own exit code.
 */
export const PROBE_SCRIPT = [
  `grep -qs " ${MOUNT_PATH} " /proc/mounts || { echo "rwx-gate: ${MOUNT_PATH} is not a mount"; exit ${EXIT.mountMissing}; }`,
  `echo "$RWX_GATE_TOKEN" > ${MOUNT_PATH}/rwx-gate-probe || { echo "rwx-gate: write failed"; exit ${EXIT.writeFailed}; }`,
  'sync',
  `[ "$(cat ${MOUNT_PATH}/rwx-gate-probe)" = "$RWX_GATE_TOKEN" ] || { echo "rwx-gate: read-back mismatch"; exit ${EXIT.readBackMismatch}; }`,
  'echo "rwx-gate: ok"',
].join('\n');

/** Why a node is not tested, or undefined when it is schedulable (not cordoned, Ready=True). */
export function unschedulableReason(node: Node): string | undefined {
  if (node.spec?.unschedulable) return 'cordoned';
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return `not Ready (${ready?.reason ?? ready?.status ?? 'no Ready condition'})`;
  return undefined;
}

/** Node selection: the nodes to test in name order, and the named-but-unschedulable ones with why. */
export interface NodeSelection {
  test: string[];
  skipped: { node: string; reason: string }[];
}

/**
 * Selects nodes: every schedulable node, or only `wanted` ones. A wanted node that does not exist is a NOT_FOUND
 * error (a typo must not turn into a green gate); a wanted node that is cordoned or not Ready is skipped.
 */
export function selectNodes(nodes: readonly Node[], wanted?: readonly string[]): NodeSelection {
  const byName = new Map(nodes.map((n) => [n.metadata?.name ?? '', n]));
  const names = wanted && wanted.length > 0 ? [...new Set(wanted)] : [...byName.keys()].filter(Boolean);
  const missing = names.filter((n) => !byName.has(n));
  if (missing.length > 0) throw new RwxError('NOT_FOUND', `node(s) not found: ${missing.join(', ')}`);
  const out: NodeSelection = { test: [], skipped: [] };
  for (const name of names.sort()) {
    const reason = unschedulableReason(byName.get(name) as Node);
    if (reason === undefined) out.test.push(name);
    else if (wanted && wanted.length > 0) out.skipped.push({ node: name, reason });
  }
  return out;
}

/** What each probe step did: yes, no, or '-' when it never ran. */
export type Step = 'yes' | 'no' | '-';

/** The three steps of one probe, from the pod's container exit code (undefined: the container never ran). */
export function stepsOf(exitCode: number | undefined): { mounted: Step; wrote: Step; readBack: Step } {
  switch (exitCode) {
    case EXIT.ok:
      return { mounted: 'yes', wrote: 'yes', readBack: 'yes' };
    case EXIT.mountMissing:
      return { mounted: 'no', wrote: '-', readBack: '-' };
    case EXIT.writeFailed:
      return { mounted: 'yes', wrote: 'no', readBack: '-' };
    case EXIT.readBackMismatch:
      return { mounted: 'yes', wrote: 'yes', readBack: 'no' };
    case undefined:
      return { mounted: 'no', wrote: '-', readBack: '-' };
    default:
      return { mounted: 'yes', wrote: '-', readBack: '-' };
  }
}

/** A short random run id (lowercase hex), valid in names and label values. */
export function newRunId(random: () => number = Math.random): string {
  return Array.from({ length: 6 }, () => Math.floor(random() * 16).toString(16)).join('');
}
