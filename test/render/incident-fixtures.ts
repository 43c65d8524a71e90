// Hand-written incidents: the ebs-csi-node rollout to revision 2 that lost mountPropagation, with its four
// symptoms (postgres-2 stuck, the nightly backup that never ran, search stuck part-way, a drain making it worse).
import type { Incident, IncidentNode } from '../../src/domain/incident.js';
import type { StuckPodFinding } from '../../src/domain/findings.js';

const T0 = Date.parse('2026-11-30T09:15:00Z');

/** Evaluation time of the fixtures. */
export const FIXTURE_NOW = T0;

function stuck(
  ns: string,
  name: string,
  node: string,
  workload: StuckPodFinding['workload'],
  stuckSeconds: number,
): StuckPodFinding {
  return {
    kind: 'stuck-creating',
    key: `stuck-creating/${ns}/${name}`,
    pod: { namespace: ns, name },
    node,
    workload,
    since: new Date(T0 - stuckSeconds * 1000).toISOString(),
    stuckSeconds,
    cause: 'storage',
    storage: [
      { volume: 'data', claim: { namespace: ns, name: `data-${name}` }, pv: `pvc-${name}`, driver: 'ebs.csi.aws.com' },
    ],
    events: [
      {
        object: `Pod/${ns}/${name}`,
        type: 'Warning',
        reason: 'FailedMount',
        count: 9,
        ageSeconds: 137,
        message:
          'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], timed out waiting for the condition',
      },
    ],
  };
}

function node(name: string, revision: number, ageSeconds: number, pods: string[]): IncidentNode {
  return {
    node: name,
    plugin: {
      node: name,
      daemonSet: { namespace: 'kube-system', name: 'ebs-csi-node' },
      pod: `ebs-csi-node-${name}`,
      revision,
      ageSeconds,
    },
    stuckPods: pods,
  };
}

/** The rollout incident; `extra` adds stuck pods on more nodes (for "update, not a second root"). */
export function rolloutIncident(extra: { node: string; pod: string }[] = []): Incident {
  const pods = [
    stuck(
      'platform',
      'postgres-2',
      'node-19',
      { kind: 'StatefulSet', namespace: 'platform', name: 'postgres' },
      23 * 60,
    ),
    stuck(
      'search',
      'search-7d9f-abcde',
      'node-27',
      { kind: 'Deployment', namespace: 'search', name: 'search' },
      40 * 60,
    ),
    stuck(
      'search',
      'search-7d9f-fghij',
      'node-41',
      { kind: 'Deployment', namespace: 'search', name: 'search' },
      38 * 60,
    ),
    stuck(
      'data',
      'nightly-backup-2911-x7k2p',
      'node-33',
      { kind: 'CronJob', namespace: 'data', name: 'nightly-backup' },
      150 * 60,
    ),
    ...extra.map((e) =>
      stuck('search', e.pod, e.node, { kind: 'Deployment', namespace: 'search', name: 'search' }, 60),
    ),
  ];
  const nodes = [
    node('node-19', 2, 3 * 3600 + 60, ['platform/postgres-2']),
    node('node-27', 2, 2 * 3600 + 48 * 60, ['search/search-7d9f-abcde']),
    node('node-33', 2, 2 * 3600 + 11 * 60, ['data/nightly-backup-2911-x7k2p']),
    node('node-41', 2, 97 * 60, ['search/search-7d9f-fghij']),
    ...extra.map((e) => node(e.node, 2, 120, [`search/${e.pod}`])),
  ];
  const onNew = nodes.map((n) => n.node);
  return {
    key: 'rollout/kube-system/ebs-csi-node@2',
    verdict: 'FOLLOWS_ROLLOUT',
    title: 'ebs.csi.aws.com: stuck mounts follow ebs-csi-node revision 2',
    summary: `${pods.length} pods stuck on ${nodes.length} nodes, all on revision 2; 0 stuck on 36 nodes still on revision 1`,
    driver: 'ebs.csi.aws.com',
    daemonSet: { namespace: 'kube-system', name: 'ebs-csi-node' },
    revision: 2,
    pods,
    cronJobs: [
      {
        kind: 'cronjob-missed',
        key: 'cronjob-missed/data/nightly-backup',
        cronJob: { namespace: 'data', name: 'nightly-backup' },
        schedule: '0 2 * * *',
        lastSuccessfulTime: '2026-11-28T02:04:00Z',
        latestScheduled: '2026-11-30T02:00:00Z',
        missedRuns: 2,
        jobs: [
          { name: 'nightly-backup-2911', active: 1, succeeded: 0, failed: 0, pods: ['data/nightly-backup-2911-x7k2p'] },
        ],
      },
    ],
    nodes,
    workloads: [
      { kind: 'StatefulSet', namespace: 'platform', name: 'postgres', pods: ['platform/postgres-2'] },
      {
        kind: 'Deployment',
        namespace: 'search',
        name: 'search',
        pods: ['search/search-7d9f-abcde', 'search/search-7d9f-fghij', ...extra.map((e) => `search/${e.pod}`)],
      },
      { kind: 'CronJob', namespace: 'data', name: 'nightly-backup', pods: ['data/nightly-backup-2911-x7k2p'] },
    ],
    rollout: {
      daemonSet: { namespace: 'kube-system', name: 'ebs-csi-node' },
      driver: 'ebs.csi.aws.com',
      newRevision: 2,
      previousRevision: 1,
      rolloutStart: '2026-11-30T06:40:00Z',
      updatedNodes: nodes.length,
      desiredNodes: 40,
      counts: { newStuck: nodes.length, newFine: 0, oldStuck: 0, oldFine: 36 },
      nodesOnNewRevision: onNew,
      diff: [
        {
          category: 'storage',
          container: 'ebs-plugin',
          field: 'volumeMount kubelet-dir mountPropagation',
          from: 'Bidirectional',
          to: 'none',
          text: 'kubelet-dir: mountPropagation Bidirectional -> none',
        },
        {
          category: 'image',
          container: 'ebs-plugin',
          field: 'image',
          from: 'ebs-csi-driver:v1.30.0',
          to: 'ebs-csi-driver:v1.31.0',
          text: 'image ebs-csi-driver:v1.30.0 -> ebs-csi-driver:v1.31.0',
        },
      ],
    },
    drain: onNew.map((n) => ({
      node: n,
      decision: 'BLOCK' as const,
      reason: 'stuck mounts follow the rollout',
      steps: [],
    })),
    rollback: {
      state: 'undo',
      toRevision: 1,
      restores: ['volumeMount kubelet-dir mountPropagation Bidirectional in container ebs-plugin'],
      text: 'Roll back to revision 1, the newest revision whose pod template the stuck nodes did not run (restores volumeMount kubelet-dir mountPropagation Bidirectional in container ebs-plugin)',
      command: 'kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1',
    },
    // The shape of advise/next-steps.ts's rollout steps: "Do not drain" first.
    nextSteps: [
      'Do not drain: the stuck mounts follow kube-system/ebs-csi-node revision 2, not the nodes. Stop any drain in progress.',
      'Roll back to revision 1: kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1',
      `Cordon the ${onNew.length} nodes on revision 2 while it rolls back: kubectl cordon ${onNew.join(' ')}`,
    ],
  };
}

/** A FOLLOWS_NODE incident on one node. */
export function nodeIncident(nodeName = 'node-7'): Incident {
  return {
    key: `node/${nodeName}`,
    verdict: 'FOLLOWS_NODE',
    title: `Stuck mounts on node ${nodeName}`,
    summary: `2 pods stuck on ${nodeName} across 2 drivers`,
    node: nodeName,
    pods: [stuck('app', 'web-0', nodeName, { kind: 'StatefulSet', namespace: 'app', name: 'web' }, 600)],
    cronJobs: [],
    nodes: [node(nodeName, 1, 86400 * 26, ['app/web-0'])],
    workloads: [{ kind: 'StatefulSet', namespace: 'app', name: 'web', pods: ['app/web-0'] }],
    drain: [],
    nextSteps: [`Check node ${nodeName}: kubelet logs, multipath, the node plugin pod`],
  };
}
