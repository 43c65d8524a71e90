// The CAUTION reasons follow the incident's location (src/advise/drain-caution.ts): each case one incident with one
// stuck pod on the node asked about.
import { describe, expect, it } from 'vitest';
import { cautionFor } from '../../src/advise/drain-caution.js';
import type { Incident } from '../../src/domain/incident.js';
import type { Layer, NodeHealth } from '../../src/domain/location.js';

/** An incident of `verdict` at `layer`, held by `holder`, with pod ns/p stuck on node-b. */
function incident(key: string, verdict: Incident['verdict'], layer: Layer, holder?: string): Incident {
  return {
    key,
    verdict,
    title: '',
    summary: '',
    pods: [],
    cronJobs: [],
    nodes: [{ node: 'node-b', stuckPods: ['ns/p'] }],
    workloads: [],
    drain: [],
    nextSteps: [],
    location: { layer, actor: 'x', evidence: [], ...(holder ? { holder } : {}) },
    ...(verdict === 'FOLLOWS_NODE' ? { node: holder } : {}),
  };
}

const DOWN: NodeHealth = { node: 'node-b', ready: 'Unknown', taints: ['node.kubernetes.io/unreachable'] };

describe('cautionFor, by location', () => {
  it.each<[string, Incident, NodeHealth | undefined, RegExp, RegExp]>([
    // An image pull: the reason says image pull, never a sandbox or the network (scan's own diagnosis).
    [
      'image pull',
      incident('not-storage/image-pull', 'NOT_STORAGE', 'image'),
      undefined,
      /still pulling its image/,
      /sandbox|network/,
    ],
    // A sandbox failure keeps its reason.
    ['sandbox', incident('not-storage', 'NOT_STORAGE', 'sandbox', 'node-b'), undefined, /pod sandbox/, /image/],
    // The pod waits for an attachment node-a holds: node-b is not at fault, draining it does nothing.
    [
      'held elsewhere',
      incident('node/node-a', 'FOLLOWS_NODE', 'attach', 'node-a'),
      undefined,
      /node-a holds: node-b is not at fault/,
      /the fault follows node-b/,
    ],
    // node-b itself is NotReady: no drain can finish there, nothing is run there.
    [
      'node down',
      incident('node/node-b', 'FOLLOWS_NODE', 'node', 'node-b'),
      DOWN,
      /^node-b is NotReady .*a drain cannot finish/,
      /device or resource busy|kubelet and node plugin logs/,
    ],
  ])('%s', (_name, inc, down, says, never) => {
    const c = cautionFor('node-b', {
      terminating: [],
      stale: [],
      stuck: [{ incident: inc, pods: ['ns/p'] }],
      ...(down ? { down } : {}),
    });
    expect(c?.reason).toMatch(says);
    expect(`${c?.reason} ${c?.steps.join(' ')}`).not.toMatch(never);
  });

  it('held elsewhere: the last step says a drain of node-b does nothing, and never proposes one', () => {
    const c = cautionFor('node-b', {
      terminating: [],
      stale: [],
      stuck: [{ incident: incident('node/node-a', 'FOLLOWS_NODE', 'attach', 'node-a'), pods: ['ns/p'] }],
    });
    expect(c?.steps.at(-1)).toBe('Draining node-b does nothing for this: the fault is held by node-a.');
  });
});
