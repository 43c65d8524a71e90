// Which cluster a command is about (pure): the named one, status where received, the channel's default, the only
// cluster, the only one that has the name, else a question; "maybe" clusters are never ruled out.
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/commands/index.js';
import { targetOf, type TargetInput, type WorkCommand } from '../../src/fleet/target.js';

const cmd = (text: string): WorkCommand => {
  const c = parseCommand(text);
  if (c.kind === 'help' || c.kind === 'usage') throw new Error(`not a work command: ${text}`);
  return c;
};
const base = (text: string, over: Partial<TargetInput> = {}): TargetInput => ({
  cmd: cmd(text),
  self: 'b',
  known: ['a', 'b', 'c'],
  channelId: 'C0INC',
  channelClusters: {},
  ...over,
});

describe('targetOf', () => {
  it.each([
    // the named cluster wins over everything, even the channel default
    ['drain n1 @c', { channelClusters: { C0INC: 'a' } }, { kind: 'cluster', cluster: 'c' }],
    // a name the fleet does not know
    ['drain n1 @zz', {}, { kind: 'unknown-cluster', name: 'zz', known: ['a', 'b', 'c'] }],
    // status lists the fleet from Redis: where it was received
    ['status', { channelClusters: { C0INC: 'a' } }, { kind: 'cluster', cluster: 'b' }],
    // the channel's default, by ID
    ['drain n1', { channelClusters: { C0INC: 'a' } }, { kind: 'cluster', cluster: 'a' }],
    // the channel's default, by name
    ['drain n1', { channelName: 'eu', channelClusters: { eu: 'c' } }, { kind: 'cluster', cluster: 'c' }],
    // a fleet of one
    ['triage', { known: ['b'] }, { kind: 'cluster', cluster: 'b' }],
    // the only cluster that surely has the node, none that maybe has it
    ['drain n1', { having: { has: ['c'], maybe: [] } }, { kind: 'cluster', cluster: 'c' }],
    // one has it, another has not published its names: ask
    [
      'drain n1',
      { having: { has: ['c'], maybe: ['a'] } },
      { kind: 'ask', candidates: ['a', 'c'], about: { what: 'nodes', name: 'n1' } },
    ],
    // two have the claim
    [
      'triage ns/claim',
      { having: { has: ['c', 'a'], maybe: [] } },
      { kind: 'ask', candidates: ['a', 'c'], about: { what: 'claims', name: 'ns/claim' } },
    ],
    // nobody has the namespace
    [
      'triage data',
      { having: { has: [], maybe: [] } },
      { kind: 'nowhere', about: { what: 'namespaces', name: 'data' }, known: ['a', 'b', 'c'] },
    ],
    // a driver or the whole cluster names nothing to look up: ask among all
    ['triage driver ebs.csi.aws.com', {}, { kind: 'ask', candidates: ['a', 'b', 'c'] }],
  ] as const)('%s %j', (text, over, want) => {
    expect(targetOf(base(text, over as Partial<TargetInput>))).toEqual(want);
  });
});

describe('@CLUSTER in /rwx', () => {
  it.each([
    ['drain node-19 @prod-eu-1', { kind: 'drain', node: 'node-19', public: false, cluster: 'prod-eu-1' }],
    ['drain node-19 @prod-eu-1 public', { kind: 'drain', node: 'node-19', public: true, cluster: 'prod-eu-1' }],
    ['status @staging-1', { kind: 'status', public: false, cluster: 'staging-1' }],
    [
      'triage data/uploads @a',
      { kind: 'triage', scope: { kind: 'claim', namespace: 'data', claim: 'uploads' }, public: false, cluster: 'a' },
    ],
  ])('%s', (text, want) => {
    expect(parseCommand(text)).toEqual(want);
  });

  it.each([
    ['drain n1 @a @b', 'name one cluster at most'],
    ['drain n1 @Prod_EU', 'is not a cluster name'],
    ['help @a', 'leave out `@CLUSTER`'],
    ['@a', 'a command is needed'],
  ])('%s is usage', (text, reason) => {
    const c = parseCommand(text);
    expect(c.kind).toBe('usage');
    expect(c.kind === 'usage' && c.error).toContain(reason);
  });
});
