// Records the previous version wrote, read in the current form: each combination of its flags is the one phase
// it meant. Pure; test/notify/upgrade.test.ts runs the notifier over such records in Redis.
import { describe, expect, it } from 'vitest';
import { mergeHistory } from '../../src/domain/history.js';
import { membersOf } from '../../src/domain/members.js';
import { type LegacyRecord, fromLegacy } from '../../src/store/migrate.js';
import type { Lifecycle } from '../../src/store/record.js';
import { FIXTURE_NOW as T, rolloutIncident } from '../render/incident-fixtures.js';

const incident = rolloutIncident();
const members = membersOf(incident);
/** A record as the previous version created it: firing, nothing posted. */
const created: LegacyRecord = {
  key: incident.key,
  channel: 'C1',
  createdAt: T,
  updatedAt: T,
  incident,
  observedHash: 'old-hash',
  history: mergeHistory(undefined, incident, T).history,
  firing: true,
};
const posted: Partial<LegacyRecord> = {
  threadTs: '1.1',
  evidencePosted: true,
  members,
  lastSentHash: 'sent-hash',
  lastNotifiedAt: T + 1000,
};
const thread = { ts: '1.1', sent: { hash: 'sent-hash', members, at: T + 1000 } };

describe('fromLegacy: the lifecycle', () => {
  it.each<[string, Partial<LegacyRecord>, boolean, Lifecycle]>([
    // created, group_wait not over: nothing sent
    ['nothing posted', {}, false, { phase: 'pending' }],
    // the root's post was started and not recorded: it is looked up before posting
    ['root post started', { rootPostStartedAt: T + 30 }, false, { phase: 'posting-root', startedAt: T + 30 }],
    // root recorded, its evidence reply started: the reply is looked up before posting
    [
      'evidence reply started',
      { threadTs: '1.1', members, lastSentHash: 'sent-hash', lastNotifiedAt: T + 1000, replyStarted: 'evidence' },
      false,
      { phase: 'posting-evidence', thread: { ...thread, replying: 'evidence' } },
    ],
    // root and evidence in Slack
    ['open thread', posted, false, { phase: 'open', thread }],
    // a change reply started and not recorded
    [
      'change reply started',
      { ...posted, replyStarted: 'change:1:abc' },
      false,
      { phase: 'open', thread: { ...thread, replying: 'change:1:abc' } },
    ],
    // the resolution reply recorded, the root edit not yet: the resolve step finds the reply and does not repeat it
    [
      'resolution replied, root not edited',
      { ...posted, firing: false, clearedAt: T + 5000, resolutionReplied: true },
      false,
      { phase: 'open', thread: { ...thread, replying: 'resolution' } },
    ],
    // resolved automatically, awaiting a CronJob
    [
      'resolved, following up',
      {
        ...posted,
        firing: false,
        clearedAt: T + 5000,
        resolvedAt: T + 5000,
        resolutionReplied: true,
        resolutionPosted: true,
        awaitingCronJobs: ['data/nightly-backup'],
        awaitingUntil: T + 9000,
      },
      false,
      {
        phase: 'following-up',
        threadTs: '1.1',
        resolution: { at: T + 5000 },
        awaiting: { cronJobs: ['data/nightly-backup'], until: T + 9000 },
      },
    ],
    // resolved by a person while it still fires
    [
      'resolved by hand, firing',
      { ...posted, resolvedAt: T + 4000, resolvedBy: 'U1', resolutionReplied: true, resolutionPosted: true },
      false,
      { phase: 'resolved', threadTs: '1.1', resolution: { at: T + 4000, by: 'U1' } },
    ],
    // resolved and closed (the record only waits to expire)
    [
      'closed',
      { ...posted, firing: false, resolvedAt: T + 5000, resolutionReplied: true, resolutionPosted: true },
      true,
      { phase: 'closed', threadTs: '1.1', resolution: { at: T + 5000 } },
    ],
  ])('%s', (_name, over, closed, want) => {
    expect(fromLegacy({ ...created, ...over }, closed)?.lifecycle).toEqual(want);
  });
});

describe('fromLegacy: what the evaluator and the buttons wrote', () => {
  it('keeps the incident, its hash and history, and reads firing: false as cleared with its facts', () => {
    const facts = { recovered: ['platform/postgres-2'], deleted: [], cronJobs: [] };
    const r = fromLegacy({ ...created, ...posted, firing: false, clearedAt: T + 5000, resolution: facts });
    expect(r?.observed).toEqual({
      incident,
      hash: 'old-hash',
      history: created.history,
      cleared: { at: T + 5000, facts },
    });
    expect(fromLegacy(created)?.observed.cleared).toBeUndefined();
  });

  it('builds the history from the last incident when the record has none', () => {
    const { history: _none, ...older } = created;
    expect(fromLegacy(older)?.observed.history).toEqual(mergeHistory(undefined, incident, T).history);
  });

  it('moves ack, mute and a Resolve click whose resolution was not posted yet to the buttons', () => {
    const r = fromLegacy({
      ...created,
      ...posted,
      ack: { user: 'U1', at: T + 1 },
      muteUntil: T + 3600_000,
      mutedBy: 'U2',
      resolvedAt: T + 2,
      resolvedBy: 'U3',
    });
    expect(r?.buttons).toEqual({
      ack: { user: 'U1', at: T + 1 },
      mute: { until: T + 3600_000, by: 'U2' },
      resolved: { by: 'U3', at: T + 2 },
    });
    expect(r?.lifecycle.phase).toBe('open'); // the resolve step finishes what the click started
  });

  it('reads a record without an incident (never written by the previous version) as none', () => {
    const { incident: _none, ...broken } = created;
    expect(fromLegacy(broken)).toBeUndefined();
  });
});
