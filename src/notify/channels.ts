// Per-team routing (RWX_TEAM_CHANNELS): an incident whose members live in a team's namespaces is also posted in
// that team's channel, one root per channel. Design: one record per (incident, channel). The incident channel's
// record is the incident's own (key = the incident key); each team channel gets a record of its own, keyed
// `<incident key>#<channel>` (domain/teams.ts), with its own phase, decide(), steps and lock, so crash safety holds
// per channel exactly as it does for the incident channel: its root carries its own key in the message metadata
// and is looked up by it before any post. The same evaluation writes every channel's record, through the very
// per-record logic the incident channel's record goes through (record.ts recordReported / recordAbsent over a view
// of the store that maps the incident key to the channel's record), so every channel's thread changes, resolves and
// follows up on the same facts.
// What the channels share is not copied: the buttons (one acknowledgement, mute and resolution per incident) live
// on the incident channel's record only, and a team channel's record is read with them, and with where the
// incident channel's thread is, which its root links (channelRecords).
import {
  type TeamRoute,
  channelKey,
  isChannelKey,
  splitChannelKey,
  teamChannelsOf,
  usergroupOf,
} from '../domain/teams.js';
import type { Incident } from '../domain/incident.js';
import type { IncidentStore } from '../store/incident-store.js';
import { type IncidentRecord, type RecordPatch, threadTsOf } from '../store/record.js';
import type { MessageOptions } from './deps.js';
import { type RecordContext, type Recorded, recordAbsent, recordEvaluation, recordReported } from './record.js';

/**
 * Records one evaluation in every channel: the incident channel's records (recordEvaluation), then, for each
 * incident, the record of every team channel its members' namespaces map to and of every team channel it was
 * already posted in (a team that joined stays until the incident ends, even when its own pods recovered first),
 * then the open team records whose incident the evaluation no longer reports. Those follow their incident
 * channel's record through the keep-firing window: kept while it is kept, cleared the evaluation it clears (each
 * team record's own createdAt, later for a team that joined late, must not give it a window of its own). Returns
 * the jobs of every channel, and the incidents kept.
 */
export async function recordChannels(
  ctx: RecordContext,
  teams: readonly TeamRoute[],
  incidents: readonly Incident[],
  now: number,
): Promise<Recorded> {
  const recorded = await recordEvaluation({ ...ctx, store: new ChannelView(ctx.store) }, incidents, now);
  const open = (await ctx.store.listOpen()).map(splitChannelKey).filter((k) => k.channel !== undefined);
  if (teams.length === 0 && open.length === 0) return recorded;
  const joined = new Map<string, string[]>();
  for (const k of open) joined.set(k.incident, [...(joined.get(k.incident) ?? []), k.channel!]);
  const reported = new Set<string>();
  for (const incident of incidents) {
    const channels = new Set([...teamChannelsOf(incident, teams), ...(joined.get(incident.key) ?? [])]);
    channels.delete(ctx.channel);
    for (const channel of [...channels].sort()) {
      const key = channelKey(incident.key, channel);
      if (reported.has(key)) continue;
      reported.add(key);
      const job = await recordReported(inChannel(ctx, channel), incident, now);
      if (job) recorded.jobs.push({ key, delayMs: job.delayMs });
    }
  }
  const kept = new Set(recorded.kept.map((i) => i.key));
  for (const { incident, channel } of open) {
    const key = channelKey(incident, channel!);
    if (reported.has(key) || kept.has(incident)) continue;
    const absent = await recordAbsent({ ...inChannel(ctx, channel!), keepFiring: 0 }, incident, now);
    if (absent && !('kept' in absent)) recorded.jobs.push({ key, delayMs: absent.delayMs });
  }
  return recorded;
}

/** Where the team channels' records are kept: their own prefix, so a release without per-team routing (a
 * rollback) never sees them in its open set, and so never takes one for an incident that cleared. */
export function teamPrefix(prefix: string): string {
  return `${prefix}:team`;
}

/**
 * The records as the notifier reads them: the incident channels' in `store`, the team channels' in `teams` (by
 * key; the same store when none is given), one open set over both. A team channel's record comes with the buttons
 * of its incident channel's record (the one state every root shows; a team record's own are never written) and
 * that record's key, channel and thread (`parent`).
 */
export function channelRecords(store: IncidentStore, teams: IncidentStore = store): IncidentStore {
  const of = (key: string): IncidentStore => (isChannelKey(key) ? teams : store);
  return {
    get: async (key) => {
      const { incident, channel } = splitChannelKey(key);
      if (!channel) return store.get(key);
      const [r, parent] = await Promise.all([teams.get(key), store.get(incident)]);
      return r && withParent(r, incident, parent);
    },
    create: (r) => of(r.key).create(r),
    patch: (key, fields) => of(key).patch(key, fields),
    setAckIfAbsent: (key, ack) => of(key).setAckIfAbsent(key, ack),
    delete: (key) => of(key).delete(key),
    close: (key, ttlMs) => of(key).close(key, ttlMs),
    listOpen: async () =>
      teams === store ? store.listOpen() : [...(await store.listOpen()), ...(await teams.listOpen())].sort(),
    tryLock: (key, ttlMs, owner) => of(key).tryLock(key, ttlMs, owner),
    unlock: (key, token) => of(key).unlock(key, token),
    lockToken: (key) => of(key).lockToken(key),
    // Claims name what they are about (a channel) themselves: one place for them all.
    claimOnce: (name, owner) => store.claimOnce(name, owner),
  };
}

/** The keys of the open team records of incident `key` (none for a key that is a team record's own). */
export async function teamKeysOf(store: Pick<IncidentStore, 'listOpen'>, key: string): Promise<string[]> {
  return (await store.listOpen()).filter((k) => {
    const s = splitChannelKey(k);
    return s.channel !== undefined && s.incident === key;
  });
}

/** The message options of the record `key`: in a team channel, its user group is the one a new root mentions. */
export function messagesIn(messages: MessageOptions, teams: readonly TeamRoute[], key: string): MessageOptions {
  const { channel } = splitChannelKey(key);
  if (!channel) return messages;
  const { mentionUsergroup: _global, ...rest } = messages;
  const group = usergroupOf(channel, teams);
  return group ? { ...rest, mentionUsergroup: group } : rest;
}

function withParent(r: IncidentRecord, key: string, parent: IncidentRecord | undefined): IncidentRecord {
  const ts = parent && threadTsOf(parent.lifecycle);
  return {
    ...r,
    buttons: parent?.buttons ?? {},
    parent: { key, ...(parent ? { channel: parent.channel } : {}), ...(ts ? { threadTs: ts } : {}) },
  };
}

// The evaluator's context for team channel `channel`: its records, under the incident's key.
function inChannel(ctx: RecordContext, channel: string): RecordContext {
  return { ...ctx, store: new ChannelView(ctx.store, channel), channel };
}

/**
 * The records of one channel under the incidents' own keys: a team channel's (`channel` given), or the incident
 * channel's (none given: its open set leaves the team records out, so recordEvaluation never takes one for an
 * incident it no longer reports).
 */
class ChannelView implements IncidentStore {
  constructor(
    private readonly store: IncidentStore,
    private readonly channel?: string,
  ) {}

  get(key: string): Promise<IncidentRecord | undefined> {
    return this.store.get(this.key(key));
  }
  create(record: IncidentRecord): Promise<boolean> {
    return this.store.create({ ...record, key: this.key(record.key) });
  }
  patch(key: string, fields: RecordPatch): Promise<boolean> {
    return this.store.patch(this.key(key), fields);
  }
  setAckIfAbsent(key: string, ack: { user: string; at: number }): Promise<boolean> {
    return this.store.setAckIfAbsent(this.key(key), ack);
  }
  delete(key: string): Promise<void> {
    return this.store.delete(this.key(key));
  }
  close(key: string, ttlMs: number): Promise<void> {
    return this.store.close(this.key(key), ttlMs);
  }
  async listOpen(): Promise<string[]> {
    const keys = (await this.store.listOpen()).map(splitChannelKey);
    return keys.filter((k) => k.channel === this.channel).map((k) => k.incident);
  }
  tryLock(key: string, ttlMs: number, owner?: string): Promise<string | undefined> {
    return this.store.tryLock(this.key(key), ttlMs, owner);
  }
  unlock(key: string, token: string): Promise<void> {
    return this.store.unlock(this.key(key), token);
  }
  lockToken(key: string): Promise<string | undefined> {
    return this.store.lockToken(this.key(key));
  }
  claimOnce(name: string, owner: string): Promise<boolean> {
    return this.store.claimOnce(name, owner);
  }

  private key(key: string): string {
    return this.channel === undefined ? key : channelKey(key, this.channel);
  }
}
