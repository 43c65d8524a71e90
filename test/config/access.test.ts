// Who may use /rwx: channel allow-list (default: only SLACK_CHANNEL) and optional user-group membership.
import { describe, expect, it } from 'vitest';
import { isChannelAllowed, isUserAllowed, loadConfig } from './helpers.js';

const base = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', SLACK_CHANNEL: 'C0INCIDENT' };
const access = (env: Record<string, string>) => loadConfig({ env: { ...base, ...env } }).access;

describe('isChannelAllowed', () => {
  // Each case: extra env, channel ID, channel name, expected.
  it.each([
    [{}, 'C0INCIDENT', 'incidents', true], // default: the incident channel
    [{}, 'C0OTHER', 'random', false], // default: no other channel
    [{ RWX_ALLOWED_CHANNELS: '*' }, 'C0OTHER', 'random', true], // explicit wildcard
    [{ RWX_ALLOWED_CHANNELS: '#storage-oncall' }, 'C0X', 'storage-oncall', true], // listed by name
    [{ RWX_ALLOWED_CHANNELS: 'C0SRE' }, 'C0INCIDENT', 'incidents', false], // a list replaces the default
  ] as [Record<string, string>, string, string, boolean][])('%j in %s', (env, id, name, expected) => {
    expect(isChannelAllowed(access(env), id, name)).toBe(expected);
  });
});

describe('isUserAllowed', () => {
  it('allows anyone when no groups are configured', () => {
    expect(isUserAllowed(access({}), [])).toBe(true);
  });
  it('requires membership of one listed group when configured', () => {
    const a = access({ RWX_ALLOWED_USERGROUPS: 'S0ONCALL,S0SRE' });
    expect(isUserAllowed(a, ['S0DEV', 'S0SRE'])).toBe(true);
    expect(isUserAllowed(a, ['S0DEV'])).toBe(false);
    expect(isUserAllowed(a, [])).toBe(false);
  });
});
