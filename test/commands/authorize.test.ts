import { describe, expect, it } from 'vitest';
import { authorize, UsergroupCache, type AccessPolicy, type UsergroupDirectory } from '../../src/commands/authorize.js';
import { ManualClock } from '../../src/domain/clock.js';
import { RwxError } from '../../src/errors.js';

/** An in-memory user group directory that counts calls and can be told to fail. */
class FakeDirectory implements UsergroupDirectory {
  calls = 0;
  failing = new Set<string>();
  constructor(public groups: Record<string, string[]>) {
    this.groups = structuredClone(groups); // tests mutate their own copy
  }
  async usersOf(group: string): Promise<readonly string[]> {
    this.calls++;
    if (this.failing.has(group)) throw new RwxError('SLACK_API', 'usergroups.users.list: ratelimited');
    return this.groups[group] ?? [];
  }
}

const oncall = { S0ONCALL: ['U1', 'U2'], S0STORAGE: ['U3'] };

describe('authorize', () => {
  it.each<[string, AccessPolicy, { userId: string; channelId: string; channelName?: string }, string]>([
    [
      'allowed channel by ID, no groups',
      { allowedChannels: ['C0INC'], allowedUsergroups: [] },
      { userId: 'U9', channelId: 'C0INC' },
      'allowed',
    ],
    [
      'allowed channel by name',
      { allowedChannels: ['incidents'], allowedUsergroups: [] },
      { userId: 'U9', channelId: 'C0X', channelName: 'incidents' },
      'allowed',
    ],
    [
      'any channel with *',
      { allowedChannels: ['*'], allowedUsergroups: [] },
      { userId: 'U9', channelId: 'D0DM' },
      'allowed',
    ],
    [
      'other channel refused',
      { allowedChannels: ['C0INC'], allowedUsergroups: [] },
      { userId: 'U1', channelId: 'C0RANDOM' },
      'channel',
    ],
    [
      'no channel configured refuses all',
      { allowedChannels: [], allowedUsergroups: [] },
      { userId: 'U1', channelId: 'C0INC' },
      'channel',
    ],
    [
      'member of the first group',
      { allowedChannels: ['*'], allowedUsergroups: ['S0ONCALL'] },
      { userId: 'U2', channelId: 'C0INC' },
      'allowed',
    ],
    [
      'member of the second group',
      { allowedChannels: ['*'], allowedUsergroups: ['S0ONCALL', 'S0STORAGE'] },
      { userId: 'U3', channelId: 'C0INC' },
      'allowed',
    ],
    [
      'not a member of any group',
      { allowedChannels: ['*'], allowedUsergroups: ['S0ONCALL'] },
      { userId: 'U3', channelId: 'C0INC' },
      'usergroup',
    ],
    [
      'member, but wrong channel: both must hold',
      { allowedChannels: ['C0INC'], allowedUsergroups: ['S0ONCALL'] },
      { userId: 'U1', channelId: 'C0OTHER' },
      'channel',
    ],
  ])('%s', async (_name, policy, req, want) => {
    const cache = new UsergroupCache(new FakeDirectory(oncall), new ManualClock(0));
    const d = await authorize(policy, cache, req);
    expect(d.allowed ? 'allowed' : d.reason).toBe(want);
    if (!d.allowed) expect(d.message).toMatch(/^Sorry/);
  });

  it('names the allowed channels in the refusal', async () => {
    const cache = new UsergroupCache(new FakeDirectory({}), new ManualClock(0));
    const d = await authorize({ allowedChannels: ['C0INC', 'storage-oncall'], allowedUsergroups: [] }, cache, {
      userId: 'U1',
      channelId: 'C0X',
    });
    expect(!d.allowed && d.message).toBe(
      'Sorry, `/rwx` does not answer in this channel. Please use it in <#C0INC>, #storage-oncall.',
    );
  });

  it('fails closed when Slack cannot be asked, and another group can still admit', async () => {
    const dir = new FakeDirectory(oncall);
    dir.failing.add('S0ONCALL');
    const cache = new UsergroupCache(dir, new ManualClock(0));
    const policy = { allowedChannels: ['*'], allowedUsergroups: ['S0ONCALL', 'S0STORAGE'] };
    const refused = await authorize(policy, cache, { userId: 'U1', channelId: 'C0INC' });
    expect(refused.allowed ? 'allowed' : refused.reason).toBe('lookup-failed');
    const admitted = await authorize(policy, cache, { userId: 'U3', channelId: 'C0INC' });
    expect(admitted.allowed).toBe(true);
  });
});

describe('UsergroupCache', () => {
  it('asks Slack once per TTL, and again after it expires', async () => {
    const dir = new FakeDirectory(oncall);
    const clock = new ManualClock(1_000);
    const cache = new UsergroupCache(dir, clock, 60_000);
    await cache.members('S0ONCALL');
    clock.advance(59_999);
    await cache.members('S0ONCALL');
    expect(dir.calls).toBe(1); // still fresh
    dir.groups.S0ONCALL = ['U7'];
    clock.advance(1);
    expect([...(await cache.members('S0ONCALL'))]).toEqual(['U7']); // expired: refetched, sees the change
    expect(dir.calls).toBe(2);
  });

  it('shares one request between concurrent look-ups', async () => {
    const dir = new FakeDirectory(oncall);
    const cache = new UsergroupCache(dir, new ManualClock(0));
    await Promise.all([cache.members('S0ONCALL'), cache.members('S0ONCALL'), cache.members('S0ONCALL')]);
    expect(dir.calls).toBe(1);
  });

  it('does not cache failures', async () => {
    const dir = new FakeDirectory(oncall);
    dir.failing.add('S0ONCALL');
    const cache = new UsergroupCache(dir, new ManualClock(0));
    await expect(cache.members('S0ONCALL')).rejects.toMatchObject({ code: 'SLACK_API' });
    dir.failing.clear();
    expect((await cache.members('S0ONCALL')).has('U1')).toBe(true);
  });
});
