// Per-team routing in the notifier, on the in-memory fakes: one record per (incident, channel), written by the same
// evaluation, each channel's root kept in step through the ordinary steps, the buttons one state shown everywhere.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { type TeamRoute, channelKey } from '../../src/domain/teams.js';
import type { Incident } from '../../src/domain/incident.js';
import { createIncidentActions } from '../../src/notify/actions.js';
import { channelRecords, recordChannels } from '../../src/notify/channels.js';
import { DEFAULT_TIMERS, PARENT_WAIT_MS } from '../../src/notify/decide.js';
import { type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import { markStale } from '../../src/notify/stale.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { MemoryIncidentStore } from '../support/memory-store.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';
import { KEY, M, S, stageDeps, tsOf } from './harness.js';

// rolloutIncident(): pods in platform, search and data (a CronJob's pod).
const TEAMS: TeamRoute[] = [
  { namespace: 'search', channel: 'C0SEARCH', usergroup: 'S0SEARCH' },
  { namespace: 'data', channel: 'C0DATA' },
];
const SEARCH = channelKey(KEY, 'C0SEARCH');
const DATA = channelKey(KEY, 'C0DATA');

let clock: ManualClock;
let slack: MemorySlack;
let deps: StepDeps;
const text = (m: { blocks?: unknown[] } | undefined): string => JSON.stringify(m?.blocks ?? []);
const rootIn = (channel: string) => slack.roots().filter((m) => m.channel === channel);

async function submit(incidents: Incident[] = [rolloutIncident()], teams = TEAMS, keepFiring = 0) {
  const ctx = { store: deps.store, channel: 'C0INC', groupWait: DEFAULT_TIMERS.groupWait, keepFiring };
  return (await recordChannels(ctx, teams, incidents, clock.now())).jobs;
}

// Every open record's steps, the incident channel's first (as the queue would run them, in any order).
async function runAll(keys = [KEY, SEARCH, DATA]): Promise<void> {
  for (const k of keys) await processIncident(deps, k);
}

beforeEach(() => {
  clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  deps = {
    ...stageDeps(clock, slack, channelRecords(new MemoryIncidentStore(clock))),
    messages: { links: {}, broadcastResolution: true, mentionUsergroup: 'S0GLOBAL' },
    teams: TEAMS,
  };
});

describe('per-team routing', () => {
  it('one record per channel; each team root mentions its own group and links the incident thread, and back', async () => {
    expect(await submit()).toEqual([
      { key: KEY, delayMs: 30 * S },
      { key: DATA, delayMs: 30 * S },
      { key: SEARCH, delayMs: 30 * S },
    ]);
    clock.advance(30 * S);
    // A team root waits for the incident channel's root, whose thread it links.
    expect(await processIncident(deps, SEARCH)).toEqual({ kind: 'wait', until: clock.now() + S, steps: [] });
    await runAll();
    expect(slack.roots().map((m) => m.channel)).toEqual(['C0INC', 'C0SEARCH', 'C0DATA']);
    const main = rootIn('C0INC')[0]!;
    const search = rootIn('C0SEARCH')[0]!;
    // Each root carries its own record's key; buttons act on the incident.
    expect(search.metadata?.event_payload.key).toBe(SEARCH);
    expect(text(search)).toContain(`"value":"${KEY}"`);
    // The incident channel's user group on its root only; the team's on the team's.
    expect(main.text).toContain('<!subteam^S0GLOBAL>');
    expect(search.text).toContain('<!subteam^S0SEARCH>');
    expect(search.text).not.toContain('S0GLOBAL');
    expect(rootIn('C0DATA')[0]!.text).not.toContain('subteam');
    expect(text(search)).toContain(
      `<#C0INC> (<https://slack.com/archives/C0INC/p${main.ts.replace('.', '')}|its thread>)`,
    );
    // The incident thread names each team channel once, with a link to its root; each team thread has the evidence.
    const told = slack.replies(main.ts).filter((m) => m.text.includes('Also posted in'));
    expect(told.map((m) => m.text)).toEqual([
      `:busts_in_silhouette: Also posted in <#C0SEARCH> (<https://slack.com/archives/C0SEARCH/p${search.ts.replace('.', '')}|its thread>), for a team whose namespaces are affected.`,
      expect.stringContaining('<#C0DATA>'),
    ]);
    expect(text(slack.replies(search.ts)[0])).toContain('*Next steps*');

    // A change edits every root and replies once in each thread.
    await submit([rolloutIncident([{ node: 'node-50', pod: 'search-new' }])]);
    clock.advance(5 * M);
    await runAll();
    await runAll();
    for (const root of [main, search, rootIn('C0DATA')[0]!]) {
      expect(root.edits).toBe(1);
      expect(slack.replies(root.ts).filter((m) => text(m).includes('new node `node-50`'))).toHaveLength(1);
    }

    // The incident clears: every thread gets its resolution, every root is resolved.
    await submit([]);
    await runAll();
    for (const root of [main, search, rootIn('C0DATA')[0]!]) {
      expect(slack.replies(root.ts).filter((m) => m.text.startsWith('Resolved'))).toHaveLength(1);
      expect(text(root)).toContain('Resolved');
    }
    expect(text(search)).toContain('archives/C0INC/p'); // still linked once resolved
    expect(slack.roots()).toHaveLength(3);
  });

  it('a team that joins an open incident gets its root then; it stays while the incident lasts', async () => {
    const withoutData = rolloutIncident();
    withoutData.pods = withoutData.pods.filter((p) => p.pod.namespace !== 'data');
    withoutData.workloads = withoutData.workloads.filter((w) => w.namespace !== 'data');
    withoutData.cronJobs = [];
    await submit([withoutData]);
    clock.advance(30 * S);
    await runAll();
    expect(slack.roots().map((m) => m.channel)).toEqual(['C0INC', 'C0SEARCH']);
    clock.advance(M);
    expect(await submit()).toContainEqual({ key: DATA, delayMs: 30 * S });
    clock.advance(30 * S);
    await runAll();
    expect(rootIn('C0DATA')).toHaveLength(1);
    // Its pods recover first: the data team's thread still follows the incident, not resolved on its own.
    await submit([withoutData]);
    clock.advance(5 * M);
    await runAll();
    const data = rootIn('C0DATA')[0]!;
    expect(text(data)).not.toContain('Resolved');
    expect(slack.replies(data.ts).some((m) => text(m).includes('nightly-backup'))).toBe(true);
    expect((await deps.store.get(DATA))?.lifecycle.phase).toBe('open');
  });

  it('a team record is kept and cleared with its incident through the keep-firing window, late joiner or not', async () => {
    const withoutData = rolloutIncident();
    withoutData.pods = withoutData.pods.filter((p) => p.pod.namespace !== 'data');
    withoutData.workloads = withoutData.workloads.filter((w) => w.namespace !== 'data');
    withoutData.cronJobs = [];
    await submit([withoutData], TEAMS, M);
    clock.advance(2 * M);
    await submit([rolloutIncident()], TEAMS, M); // the data team joins, 10 s before the incident goes absent
    clock.advance(10 * S);
    expect(await submit([], TEAMS, M)).toEqual([]);
    for (const k of [KEY, SEARCH, DATA]) expect((await deps.store.get(k))?.observed.cleared).toBeUndefined();
    clock.advance(M);
    expect((await submit([], TEAMS, M)).map((j) => j.key).sort()).toEqual([KEY, DATA, SEARCH].sort());
    for (const k of [KEY, SEARCH, DATA]) expect((await deps.store.get(k))?.observed.cleared?.at).toBe(clock.now());
  });

  it('buttons pressed in a team thread act on the incident, shown in every root', async () => {
    await submit();
    clock.advance(30 * S);
    await runAll();
    const actions = createIncidentActions(deps);
    // The value a team root's button carries is the incident's key; a team record's key would do the same.
    expect((await actions.acknowledge(SEARCH, 'U1ALICE', clock.now())).status).toBe('done');
    for (const root of slack.roots()) expect(text(root)).toContain('Acknowledged by <@U1ALICE>');
    expect((await actions.acknowledge(KEY, 'U2BOB', clock.now())).status).toBe('already');
    expect((await deps.store.get(KEY))?.buttons.ack?.user).toBe('U1ALICE');
    expect((await actions.resolve(KEY, 'U1ALICE', clock.now())).status).toBe('done');
    for (const root of slack.roots()) {
      expect(text(root)).toContain('Resolved by <@U1ALICE>');
      expect(slack.replies(root.ts).filter((m) => m.text.startsWith('Resolved'))).toHaveLength(1);
    }
  });

  it('a team root waits at most PARENT_WAIT_MS for the incident root, then goes without the link, added later', async () => {
    await submit();
    clock.advance(30 * S + PARENT_WAIT_MS);
    await processIncident(deps, SEARCH);
    const search = rootIn('C0SEARCH')[0]!;
    expect(text(search)).toContain('its thread is not posted yet');
    await processIncident(deps, KEY);
    clock.advance(5 * M);
    await processIncident(deps, SEARCH);
    expect(text(search)).toContain('archives/C0INC/p');
    // The link is not a change of the incident: no reply for it.
    expect(slack.replies(search.ts).map((m) => m.metadata?.event_payload.reply)).toEqual(['evidence']);
    expect(tsOf(await deps.store.get(SEARCH))).toBe(search.ts);
  });

  it('the stale line goes on every root when the bot cannot see the cluster, and off again', async () => {
    await submit();
    clock.advance(30 * S);
    await runAll();
    const enqueued: string[] = [];
    await markStale(deps.store, async (k) => void enqueued.push(k), clock.now());
    expect(enqueued.sort()).toEqual([KEY, DATA, SEARCH].sort());
    await runAll();
    for (const root of slack.roots()) expect(text(root)).toContain('Stale since');
    await markStale(deps.store, async () => undefined, undefined);
    await runAll();
    for (const root of slack.roots()) expect(text(root)).not.toContain('Stale since');
  });

  it('the incident channel never takes a team record for an incident of its own', async () => {
    await submit();
    expect((await deps.store.listOpen()).sort()).toEqual([KEY, DATA, SEARCH].sort());
    // Without routes (the configuration changed), the open team records are still followed to the end.
    await submit([rolloutIncident()], []);
    await submit([], []);
    expect((await deps.store.get(DATA))?.observed.cleared).toBeDefined();
    expect((await deps.store.get(KEY))?.observed.cleared).toBeDefined();
  });
});
