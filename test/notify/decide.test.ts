import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMERS, type Decision, needsUpdate } from '../../src/notify/decide.js';
import type { IncidentRecord } from '../../src/store/incident-store.js';
import { rolloutIncident } from '../render/incident-fixtures.js';

const T = 1_000_000;
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const rec = (over: Partial<IncidentRecord>): IncidentRecord => ({
  key: 'k',
  channel: 'C',
  createdAt: T,
  updatedAt: T,
  firing: true,
  incident: rolloutIncident(),
  ...over,
});
const posted = { threadTs: '1.1', evidencePosted: true, lastSentHash: 'h1', lastNotifiedAt: T };

describe('needsUpdate', () => {
  it.each<[string, Partial<IncidentRecord>, string, number, Decision]>([
    ['new incident waits for group_wait', {}, 'h1', T + 10 * S, { action: 'wait', until: T + 30 * S }],
    ['new incident posts once group_wait passed', {}, 'h1', T + 30 * S, { action: 'post' }],
    ['a post started before a crash resumes at once', { rootPostStartedAt: T }, 'h1', T + S, { action: 'post' }],
    ['root posted but evidence missing: finish the post', { threadTs: '1.1' }, 'h1', T + H, { action: 'post' }],
    ['unchanged: wait for repeat_interval', posted, 'h1', T + H, { action: 'wait', until: T + 4 * H }],
    ['unchanged after repeat_interval: repeat', posted, 'h1', T + 4 * H, { action: 'repeat' }],
    ['changed within group_interval: wait for it', posted, 'h2', T + M, { action: 'wait', until: T + 5 * M }],
    ['changed after group_interval: update', posted, 'h2', T + 5 * M, { action: 'update' }],
    [
      'muted: no update until the mute ends',
      { ...posted, muteUntil: T + H },
      'h2',
      T + 10 * M,
      { action: 'wait', until: T + H },
    ],
    ['mute over: update', { ...posted, muteUntil: T + H }, 'h2', T + H, { action: 'update' }],
    [
      'cleared after posting: resolve, even when muted',
      { ...posted, muteUntil: T + H, firing: false },
      'h1',
      T + M,
      { action: 'resolve' },
    ],
    ['cleared before anything was posted: discard', { firing: false }, 'h1', T + M, { action: 'discard' }],
    [
      'cleared while a post may have happened: resolve',
      { firing: false, rootPostStartedAt: T },
      'h1',
      T + M,
      { action: 'resolve' },
    ],
    [
      'resolved by a person, still firing: nothing (stays closed)',
      { ...posted, resolutionPosted: true, resolvedBy: 'U1' },
      'h2',
      T + 9 * H,
      { action: 'none' },
    ],
    [
      'resolution posted and cleared: close the record',
      { ...posted, firing: false, resolutionPosted: true },
      'h2',
      T + 9 * H,
      { action: 'close' },
    ],
  ])('%s', (_name, over, hash, now, want) => {
    expect(needsUpdate(rec(over), hash, now, DEFAULT_TIMERS)).toEqual(want);
  });

  it('defaults are Alertmanager’s 30s / 5m / 4h', () => {
    expect(DEFAULT_TIMERS).toEqual({ groupWait: 30 * S, groupInterval: 5 * M, repeatInterval: 4 * H });
  });
});
