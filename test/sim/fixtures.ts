// A small scenario for protocol tests: three nodes, a handful of labelled pods, events, and a short timeline.
import { inline } from '../support/sim.js';

/** Pods: web-0..2 (app=web, tier=front) on node-1..3 (node-3 cannot mount), db-0 (app=db) on node-1 in ns "shop"; batch-0 in ns "jobs". */
export function smallScenario() {
  return inline({
    name: 'small',
    kubelet: { brokenNodes: ['node-3'] },
    objects: [
      { forEach: { n: '1..3' }, kind: 'Node', metadata: { name: 'node-${n}', creationTimestamp: '-10d' } },
      { kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'fast.csi.example.com' },
      {
        forEach: {
          w: [
            { i: 0, node: 'node-1' },
            { i: 1, node: 'node-2' },
            { i: 2, node: 'node-3' },
          ],
        },
        kind: 'Pod',
        metadata: {
          name: 'web-${w.i}',
          namespace: 'shop',
          creationTimestamp: '-1h',
          labels: { app: 'web', tier: 'front' },
        },
        spec: { nodeName: '${w.node}', containers: [{ name: 'web', image: 'nginx:1.27' }] },
        status: { phase: 'Running' },
      },
      {
        kind: 'Pod',
        metadata: { name: 'db-0', namespace: 'shop', creationTimestamp: '-2h', labels: { app: 'db' } },
        spec: { nodeName: 'node-1', containers: [{ name: 'db', image: 'postgres:16' }] },
        status: { phase: 'Pending' },
      },
      {
        kind: 'Pod',
        metadata: { name: 'batch-0', namespace: 'jobs', creationTimestamp: '-3h', labels: { app: 'batch' } },
        spec: { nodeName: 'node-2', restartPolicy: 'Never', containers: [{ name: 'b', image: 'busybox' }] },
        status: { phase: 'Succeeded' },
      },
      {
        kind: 'Event',
        metadata: { namespace: 'shop' },
        involvedObject: { kind: 'Pod', name: 'db-0' },
        reason: 'BackOff',
        type: 'Warning',
        message: 'Back-off pulling image',
        count: 3,
        firstTimestamp: '-10m',
        lastTimestamp: '-1m',
      },
    ],
    timeline: [
      { at: '1m', set: [{ kind: 'Pod', namespace: 'shop', name: 'db-0', fields: { 'status.phase': 'Running' } }] },
      { at: '2m', delete: [{ kind: 'Pod', namespace: 'shop', name: 'web-2' }] },
      {
        at: '3m',
        add: [
          {
            kind: 'Pod',
            metadata: { name: 'web-3', namespace: 'shop', labels: { app: 'web' } },
            spec: { nodeName: 'node-2', containers: [{ name: 'web', image: 'nginx:1.27' }] },
            status: { phase: 'Running' },
          },
        ],
      },
    ],
  });
}
