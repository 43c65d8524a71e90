// A small cluster for verdict tables: N nodes with ebs-csi-node, optionally rolling to revision 2 on some nodes,
// and stuck pods placed by the test.
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { DaemonSet } from '../../src/domain/objects.js';
import {
  ago,
  claim,
  DAY,
  ebsDaemonSet,
  event,
  failedMount,
  HOUR,
  MIN,
  node,
  pluginPod,
  pod,
  revision,
  snapshotOf,
  withoutPropagation,
} from '../detect/builders.js';

/** A stuck or running pod placed on a node. */
export interface Placed {
  name: string;
  node: string;
  /** Workload (StatefulSet) name; defaults to the pod name. */
  workload?: string;
  /** FailedMount (default), FailedCreatePodSandBox, or none. */
  reason?: 'FailedMount' | 'FailedCreatePodSandBox' | 'FailedUnmount' | 'none';
  driver?: string;
  /** Running since this long ago instead of stuck. */
  runningFor?: number;
  /** Stuck Terminating (deleted 20m ago, started 1h ago) instead of creating; `reason` FailedUnmount by default. */
  terminating?: boolean;
  /** The claim it uses (default `c-<name>`, its own); pods naming the same claim share it. */
  claim?: string;
  /** The event's message instead of the reason's usual one. */
  message?: string;
}

/** Options of the mini cluster. */
export interface MiniOpts {
  nodes?: number;
  /** Nodes whose plugin runs revision 2; omitted = the DaemonSet never rolled (one revision). */
  onRevision2?: string[];
  pods?: Placed[];
  extra?: { kind?: string }[];
}

/** Node names n-01.. */
export const miniNodes = (n: number) => Array.from({ length: n }, (_, i) => `n-${String(i + 1).padStart(2, '0')}`);

/** Builds the index. Plugins on revision 2 started 2h ago, revision 1 plugins 30 days ago. */
export function miniCluster(o: MiniOpts = {}): ClusterIndex {
  const nodes = miniNodes(o.nodes ?? 10);
  const ds: DaemonSet = ebsDaemonSet();
  const t1 = ds.spec!.template!;
  const out: { kind?: string }[] = [ds, ...nodes.map((n) => node(n)), revision(ds, 'h1', 1, t1, ago(300 * DAY))];
  if (o.onRevision2) out.push(revision(ds, 'h2', 2, withoutPropagation(t1, 'kubelet-dir'), ago(2 * HOUR + 5 * MIN)));
  const on2 = new Set(o.onRevision2 ?? []);
  for (const n of nodes)
    out.push(pluginPod(ds, n, on2.has(n) ? 'h2' : 'h1', on2.has(n) ? ago(2 * HOUR) : ago(30 * DAY)));
  const claimed = new Set<string>();
  for (const p of o.pods ?? []) {
    const c = p.claim ?? `c-${p.name}`;
    if (!claimed.has(c)) out.push(...claim('ns', c, p.driver ?? 'ebs.csi.aws.com'));
    claimed.add(c);
    out.push(
      pod(p.name, {
        ns: 'ns',
        node: p.node,
        scheduled: ago(p.runningFor ?? 20 * MIN),
        claims: { data: c },
        owner: { kind: 'StatefulSet', name: p.workload ?? p.name, uid: `uid-sts-${p.workload ?? p.name}` },
        ...(p.runningFor !== undefined ? { started: ago(p.runningFor - MIN) } : {}),
        ...(p.terminating ? { scheduled: ago(HOUR), started: ago(HOUR - MIN), deleted: ago(20 * MIN) } : {}),
      }),
    );
    if (p.runningFor === undefined && p.reason !== 'none') {
      const reason = p.reason ?? (p.terminating ? 'FailedUnmount' : 'FailedMount');
      const msg =
        reason === 'FailedCreatePodSandBox'
          ? 'failed to setup network for sandbox: plugin type="calico" failed'
          : reason === 'FailedUnmount'
            ? `UnmountVolume.TearDown failed for volume "data" : rpc error: code = Internal desc = unmount failed: target is busy`
            : failedMount(['data']);
      out.push(event('ns', p.name, reason, p.message ?? msg, ago(MIN), 5));
    }
  }
  out.push(...(o.extra ?? []));
  return ClusterIndex.fromSnapshot(snapshotOf(out));
}
