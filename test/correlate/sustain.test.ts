// An open rollout incident is kept while it sustains (group.ts sustain, rollout.ts sustainsRollout): a partial
// recovery neither splits nor resolves it. Pure: the mini cluster, with and without the incident's key open.
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { MIN, NOW } from '../detect/builders.js';
import { miniCluster, type Placed } from './mini-cluster.js';

const KEY = 'rollout/kube-system/ebs-csi-node@2';
const summary = (pods: Placed[], open: string[]) =>
  evaluate(miniCluster({ onRevision2: ['n-01', 'n-02', 'n-03'], pods }), {
    now: NOW,
    openKeys: new Set(open),
  }).incidents.map((i) => [i.key, i.verdict, i.pods.map((p) => p.pod.name).sort()]);

// a and b stuck on revision-2 nodes; r mounted on revision-2 node n-03 after its plugin started (a "proof").
const stuck: Placed[] = [
  { name: 'a', node: 'n-01' },
  { name: 'b', node: 'n-02' },
];
const recovered: Placed = { name: 'r', node: 'n-03', runningFor: 10 * MIN };

describe('an open rollout incident sustains', () => {
  it.each<[string, Placed[], string[], unknown[]]>([
    // before it opened: the proof on n-03 vetoes the rollout verdict (the test alone decides)
    [
      'new, a mount proven on revision 2',
      [...stuck, recovered],
      [],
      [['unexplained/ebs.csi.aws.com', 'UNEXPLAINED', ['a', 'b']]],
    ],
    // open: the same cluster keeps the incident and its stuck members
    ['open, a mount proven on revision 2', [...stuck, recovered], [KEY], [[KEY, 'FOLLOWS_ROLLOUT', ['a', 'b']]]],
    // open: a pod stuck on a revision-1 node left the pattern; it is grouped on its own, the others stay
    [
      'open, a pod stuck off the new revision',
      [...stuck, recovered, { name: 'o', node: 'n-07' }],
      [KEY],
      [
        [KEY, 'FOLLOWS_ROLLOUT', ['a', 'b']],
        ['unexplained/ebs.csi.aws.com', 'UNEXPLAINED', ['o']],
      ],
    ],
    // open, every member recovered: nothing to sustain, the incident clears
    ['open, every member recovered', [recovered], [KEY], []],
    // another key open (an older revision's incident) does not sustain this one
    [
      'another key open',
      [...stuck, recovered],
      ['rollout/kube-system/ebs-csi-node@1'],
      [['unexplained/ebs.csi.aws.com', 'UNEXPLAINED', ['a', 'b']]],
    ],
  ])('%s', (_name, pods, open, expected) => {
    expect(summary(pods, open)).toEqual(expected);
  });
});

// The same rule for unmount waves: pods stuck Terminating after a rollout reached every node. A complete rollout has
// no control group, so it opens no incident; one that is open stays one incident while a member is still stuck.
describe('an open rollout incident of unmount failures sustains', () => {
  const all = ['n-01', 'n-02', 'n-03', 'n-04'];
  const term = (name: string, node: string): Placed => ({ name, node, terminating: true });
  const summarize = (pods: Placed[], open: string[]) =>
    evaluate(miniCluster({ nodes: 4, onRevision2: all, pods }), { now: NOW, openKeys: new Set(open) }).incidents.map(
      (i) => [i.key, i.verdict, i.pods.map((p) => p.pod.name).sort()],
    );
  it.each<[string, Placed[], string[], unknown[]]>([
    // the wave on two nodes of a complete rollout: no control group, so no new rollout incident; each unmount
    // failure the kubelet reported is evidence on its own node
    [
      'the wave',
      [term('a', 'n-01'), term('b', 'n-02')],
      [],
      [
        ['node/n-01', 'FOLLOWS_NODE', ['a']],
        ['node/n-02', 'FOLLOWS_NODE', ['b']],
      ],
    ],
    // the same wave already open: it stays one rollout incident while it sustains
    ['the wave, open', [term('a', 'n-01'), term('b', 'n-02')], [KEY], [[KEY, 'FOLLOWS_ROLLOUT', ['a', 'b']]]],
    // new, one node left: the test alone decides (one node is not a rollout)
    ['new, one node stuck', [term('b', 'n-02')], [], [['node/n-02', 'FOLLOWS_NODE', ['b']]]],
    // open, a terminated and b still stuck: the incident stays, no node incident of its own
    ['open, one member terminated', [term('b', 'n-02')], [KEY], [[KEY, 'FOLLOWS_ROLLOUT', ['b']]]],
    // open, every member terminated: nothing to sustain
    ['open, every member terminated', [], [KEY], []],
  ])('%s', (_name, pods, open, expected) => {
    expect(summarize(pods, open)).toEqual(expected);
  });
});
