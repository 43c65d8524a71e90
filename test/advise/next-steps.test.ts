// The incident's next steps fit its storage and name its nodes: the kubelet alone mounts a built-in volume type,
// and an unexplained incident names every node it holds stuck pods on.
import { describe, expect, it } from 'vitest';
import { nextSteps } from '../../src/advise/next-steps.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Incident } from '../../src/domain/incident.js';
import type { StoragePath } from '../../src/domain/findings.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import { nodeIncident } from '../render/incident-fixtures.js';

const INDEX = ClusterIndex.fromSnapshot(emptySnapshot());

/** The incident with every pod's storage replaced by `storage`. */
function withStorage(inc: Incident, storage: StoragePath[]): Incident {
  return { ...inc, pods: inc.pods.map((p) => ({ ...p, storage })) };
}

/** The same stuck pods read as UNEXPLAINED, spread over `nodes`. */
function unexplained(nodes: string[]): Incident {
  const base = nodeIncident('node-1');
  const pod = base.pods[0]!;
  const row = base.nodes[0]!;
  return {
    ...base,
    key: 'unexplained/ebs.csi.aws.com',
    verdict: 'UNEXPLAINED',
    node: undefined,
    pods: nodes.map((n, i) => ({ ...pod, key: `${pod.key}-${i}`, node: n })),
    nodes: nodes.map((n) => ({ ...row, node: n })),
  };
}

const logsStep = (steps: string[]): string | undefined => steps.find((s) => /\blogs?\b/.test(s));

describe('next steps fit the storage', () => {
  it.each([
    // CSI volume: the node plugin mounts it, so its logs are read with the kubelet's.
    ['csi', [{ volume: 'data', pv: 'pv-1', driver: 'ebs.csi.aws.com' }], /kubelet and node plugin logs on node-7/],
    // Built-in iscsi volume: no node plugin exists; the kubelet's log is the one to read.
    [
      'in-tree',
      [{ volume: 'data', pv: 'pv-1', inTree: 'iscsi' }],
      /kubelet log \(.*there is no node plugin\) on node-7/,
    ],
    // One CSI volume among built-in ones: the plugin is still part of the path.
    [
      'mixed',
      [
        { volume: 'a', pv: 'pv-1', inTree: 'iscsi' },
        { volume: 'b', pv: 'pv-2', driver: 'ebs.csi.aws.com' },
      ],
      /kubelet and node plugin logs/,
    ],
  ] as const)('FOLLOWS_NODE, %s', (_name, storage, want) => {
    const step = logsStep(nextSteps(INDEX, withStorage(nodeIncident('node-7'), [...storage])));
    expect(step).toMatch(want);
  });

  it('an unexplained incident names every node it has stuck pods on', () => {
    const step = logsStep(nextSteps(INDEX, unexplained(['node-1', 'node-2'])));
    expect(step).toContain('node plugin logs on node-1, node-2.');
  });

  it('an unexplained incident on built-in volumes sends no one to a node plugin', () => {
    const inc = withStorage(unexplained(['node-1']), [{ volume: 'data', pv: 'pv-1', inTree: 'nfs' }]);
    const step = logsStep(nextSteps(INDEX, inc));
    expect(step).toContain('kubelet log (');
    expect(step).not.toContain('node plugin logs');
  });
});

describe('next steps fit the layer', () => {
  /** node-7's incident located where the driver is not registered (locate.ts: the kubelet's words or its CSINode). */
  const unregistered = (inc: Incident): Incident => ({
    ...inc,
    location: {
      layer: 'stage',
      actor: 'the node plugin of ebs.csi.aws.com on node-7, which is not registered with the kubelet',
      holder: 'node-7',
      evidence: ['CSINode node-7 lists no driver: ebs.csi.aws.com is not registered there'],
      unregistered: 'ebs.csi.aws.com',
    },
  });

  it('a driver not registered on the node: its CSINode and its plugin pod, before any mount test', () => {
    const inc = unregistered(nodeIncident('node-7'));
    const steps = nextSteps(INDEX, inc);
    const plugin = inc.nodes[0]?.plugin;
    const i = steps.findIndex((s) => s.startsWith('ebs.csi.aws.com is not registered with the kubelet on node-7'));
    expect(i).toBe(1);
    expect(steps[i]).toContain('kubectl get csinode node-7 -o yaml');
    expect(steps[i]).toContain(`kubectl logs -n ${plugin?.daemonSet?.namespace} ${plugin?.pod} --all-containers`);
  });

  it('no plugin pod on the node: says so instead of naming one', () => {
    const base = unregistered(nodeIncident('node-7'));
    const inc = { ...base, nodes: base.nodes.map((n) => ({ node: n.node, stuckPods: n.stuckPods })) };
    expect(nextSteps(INDEX, inc).join('\n')).toContain(
      "no node plugin pod of ebs.csi.aws.com was found on node-7: check its DaemonSet's nodeSelector and tolerations",
    );
  });

  it('a registered driver: no registration step', () => {
    expect(nextSteps(INDEX, nodeIncident('node-7')).join('\n')).not.toMatch(/not registered/);
  });
});
