// The rollout incident as a snapshot: 40 nodes, ebs-csi-node rolling from revision 1
// (Bidirectional) to revision 2 (propagation lost) on node-15..node-26, postgres-2 stuck on node-19 with its volume
// attached, two search pods stuck on revision-2 nodes while three run on node-02/08/14, the nightly backup's pod
// stuck after two missed nights, and running pods on revision-2 nodes whose mounts predate the update.
import type { DaemonSet } from '../../src/domain/objects.js';
import {
  ago,
  attachment,
  claim,
  cronJob,
  cronJobJob,
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
  withoutPropagation,
} from '../detect/builders.js';

/** Node names node-01..node-40. */
export const NODES = Array.from({ length: 40 }, (_, i) => `node-${String(i + 1).padStart(2, '0')}`);
/** The nodes the rollout has reached (revision 2). */
export const UPDATED = NODES.slice(14, 26);

/** Options to bend the rollout incident into the other verdicts. */
export interface RolloutOpts {
  /** Nodes on revision 2 (default UPDATED); [] with `singleRevision` for a cluster that never rolled. */
  updated?: string[];
  singleRevision?: boolean;
}

/** All objects of the rollout incident's cluster. */
export function rolloutObjects(opts: RolloutOpts = {}): { kind?: string }[] {
  const updated = new Set(opts.updated ?? UPDATED);
  const ds: DaemonSet = ebsDaemonSet();
  const t1 = ds.spec!.template!;
  const t2 = withoutPropagation(t1, 'kubelet-dir');
  const revs = opts.singleRevision
    ? [revision(ds, 'h1', 1, t1, ago(300 * DAY))]
    : [revision(ds, 'h1', 1, t1, ago(300 * DAY)), revision(ds, 'h2', 2, t2, ago(2 * HOUR + 35 * MIN))];
  ds.status = { desiredNumberScheduled: 40, updatedNumberScheduled: updated.size, numberReady: 40 };
  const out: { kind?: string }[] = [ds, ...revs, ...NODES.map((n) => node(n, n === 'node-19'))];
  NODES.forEach((n, i) => {
    const onNew = updated.has(n) && !opts.singleRevision;
    out.push(pluginPod(ds, n, onNew ? 'h2' : 'h1', onNew ? ago(2 * HOUR + 30 * MIN - i * MIN) : ago(26 * DAY)));
  });
  const ebs = 'ebs.csi.aws.com';
  // postgres-2: StatefulSet pod rescheduled onto node-19, volume attached, FailedMount x9.
  out.push(...claim('platform', 'data-postgres-2', ebs));
  out.push(
    pod('postgres-2', {
      ns: 'platform',
      node: 'node-19',
      scheduled: ago(24 * MIN),
      claims: { data: 'data-postgres-2' },
      owner: { kind: 'StatefulSet', name: 'postgres', uid: 'uid-sts-postgres' },
    }),
  );
  out.push(event('platform', 'postgres-2', 'FailedMount', failedMount(['data']), ago(2 * MIN + 17_000), 9));
  out.push(
    event(
      'platform',
      'postgres-2',
      'Scheduled',
      'Successfully assigned platform/postgres-2 to node-19',
      ago(24 * MIN),
      1,
      'Normal',
    ),
  );
  out.push(attachment('csi-3f81a4c9', 'pv-platform-data-postgres-2', 'node-19'));
  // search: Deployment at 3 of 5; the started pods are on node-02, node-08, node-14 (revision 1).
  const rs = { kind: 'ReplicaSet', name: 'search-7d9f8c6b5', uid: 'uid-rs-search' };
  const labels = { app: 'search', 'pod-template-hash': '7d9f8c6b5' };
  for (const [name, n, stuck] of [
    ['search-7d9f8c6b5-a', 'node-02', false],
    ['search-7d9f8c6b5-b', 'node-08', false],
    ['search-7d9f8c6b5-c', 'node-14', false],
    ['search-7d9f8c6b5-d', 'node-21', true],
    ['search-7d9f8c6b5-e', 'node-23', true],
  ] as const) {
    out.push(...claim('search', `cache-${name}`, ebs));
    out.push(
      pod(name, {
        ns: 'search',
        node: n,
        scheduled: ago(40 * MIN),
        owner: rs,
        labels,
        claims: { cache: `cache-${name}` },
        ...(stuck ? {} : { started: ago(38 * MIN) }),
      }),
    );
    if (stuck) out.push(event('search', name, 'FailedMount', failedMount(['cache']), ago(MIN), 18));
  }
  // nightly-backup: last success three nights ago; last night's Job's pod stuck on node-25 (revision 2).
  const cj = cronJob('data', 'nightly-backup', '0 2 * * *', { lastSuccess: '2026-11-28T02:20:00Z' });
  const job = cronJobJob(cj, '2026-11-30T02:00:00Z', { active: 1 });
  out.push(cj, job, cronJobJob(cj, '2026-11-29T02:00:00Z'));
  out.push(...claim('data', 'backup-staging', ebs));
  out.push(
    pod('nightly-backup-29406600-x7k2p', {
      ns: 'data',
      node: 'node-25',
      scheduled: ago(25 * MIN),
      claims: { staging: 'backup-staging' },
      owner: { kind: 'Job', name: job.metadata!.name!, uid: job.metadata!.uid! },
    }),
  );
  out.push(event('data', 'nightly-backup-29406600-x7k2p', 'FailedMount', failedMount(['staging']), ago(3 * MIN), 11));
  // Workloads already running on revision-2 nodes: mounted before the roll, unaffected.
  for (const n of ['node-20', 'node-24']) {
    out.push(...claim('apps', `vol-${n}`, ebs));
    out.push(
      pod(`app-${n}`, {
        ns: 'apps',
        node: n,
        scheduled: ago(3 * DAY),
        started: ago(3 * DAY),
        claims: { v: `vol-${n}` },
        owner: { kind: 'StatefulSet', name: 'app', uid: 'uid-sts-app' },
      }),
    );
  }
  // A pod that mounted on a revision-1 node an hour ago: revision 1 still mounts.
  out.push(...claim('apps', 'vol-fresh', ebs));
  out.push(
    pod('fresh-0', {
      ns: 'apps',
      node: 'node-05',
      scheduled: ago(HOUR),
      started: ago(HOUR - MIN),
      claims: { v: 'vol-fresh' },
      owner: { kind: 'StatefulSet', name: 'fresh', uid: 'uid-sts-fresh' },
    }),
  );
  return out;
}
