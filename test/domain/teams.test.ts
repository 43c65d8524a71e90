// Per-team routing's pure rules: which team a namespace belongs to, which channels an incident goes to, and the
// keys of a team channel's record.
import { describe, expect, it } from 'vitest';
import {
  type TeamRoute,
  channelKey,
  isChannelKey,
  splitChannelKey,
  teamChannelsOf,
  teamOf,
  usergroupOf,
} from '../../src/domain/teams.js';
import { rolloutIncident } from '../render/incident-fixtures.js';

const ROUTES: TeamRoute[] = [
  { namespace: 'payments-*', channel: 'C0PAY', usergroup: 'S0PAYOPS' },
  { namespace: 'payments-ledger', channel: 'C0LEDGER' },
  { namespace: '*-batch', channel: 'C0BATCH' },
  { namespace: 'payments-*-batch', channel: 'C0PAYBATCH' },
  { namespace: 'search', channel: 'C0SEARCH' },
  { namespace: 'data*', channel: 'C0DATA' },
  { namespace: 'dat*', channel: 'C0DAT' },
];

describe('teamOf', () => {
  it.each([
    ['payments-api', 'C0PAY'], // the pattern
    ['payments-ledger', 'C0LEDGER'], // the exact name wins over a matching pattern
    ['payments-eu-batch', 'C0PAYBATCH'], // three patterns match: the one with the most literal characters
    ['search-batch', 'C0BATCH'],
    ['search', 'C0SEARCH'],
    ['searchx', undefined], // an exact entry is not a prefix
    ['payments', undefined], // "payments-*" needs the dash
    ['data', 'C0DATA'], // `*` may match nothing; the longer pattern wins over "dat*"
    ['platform', undefined],
  ])('%s -> %s', (ns, channel) => expect(teamOf(ns, ROUTES)?.channel).toBe(channel));

  it('takes the first listed of two equally specific patterns', () => {
    const routes = [
      { namespace: 'a-*', channel: 'C0FIRST' },
      { namespace: '*-b', channel: 'C0SECOND' },
    ];
    expect(teamOf('a-b', routes)?.channel).toBe('C0FIRST');
  });
});

describe('teamChannelsOf', () => {
  it("names each channel of the members' namespaces once, sorted (pods, CronJobs and workloads count)", () => {
    // rolloutIncident: pods in platform, search (two) and data (a CronJob's pod).
    const routes = [
      { namespace: 'search', channel: 'C0SEARCH' },
      { namespace: 'data', channel: 'C0DATA' },
      { namespace: 'platform', channel: 'C0DATA' },
    ];
    expect(teamChannelsOf(rolloutIncident(), routes)).toEqual(['C0DATA', 'C0SEARCH']);
    expect(teamChannelsOf(rolloutIncident(), [])).toEqual([]);
    expect(teamChannelsOf(rolloutIncident(), [{ namespace: 'media', channel: 'C0M' }])).toEqual([]);
  });

  it('gives the user group of a channel', () => {
    expect(usergroupOf('C0PAY', ROUTES)).toBe('S0PAYOPS');
    expect(usergroupOf('C0SEARCH', ROUTES)).toBeUndefined();
  });
});

describe('channel keys', () => {
  it("round-trip, in a fleet too (the cluster stays the key's first part)", () => {
    const k = channelKey('prod-eu-1:rollout/kube-system/ebs-csi-node@2', 'C0PAY');
    expect(k).toBe('prod-eu-1:rollout/kube-system/ebs-csi-node@2#C0PAY');
    expect(splitChannelKey(k)).toEqual({ incident: 'prod-eu-1:rollout/kube-system/ebs-csi-node@2', channel: 'C0PAY' });
    expect(splitChannelKey('node/node-19')).toEqual({ incident: 'node/node-19' });
    expect(isChannelKey(k)).toBe(true);
    expect(isChannelKey('node/node-19')).toBe(false);
  });
});
