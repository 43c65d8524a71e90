// RWX_TEAM_CHANNELS: namespace=channel[@usergroup],... (a map in YAML), checked at start with errors that name
// the variable and the entry.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, toFileForm } from '../../src/config/index.js';

const env = (extra: Record<string, string>) => ({
  env: { SLACK_CHANNEL: 'C0INC', ...extra },
  slack: 'optional' as const,
});

describe('RWX_TEAM_CHANNELS', () => {
  it('is empty by default, and reads entries in order, with and without a user group', () => {
    expect(loadConfig(env({})).teams).toEqual([]);
    const c = loadConfig(env({ RWX_TEAM_CHANNELS: ' payments-*=C0PAY@S0PAYOPS , search=C0SEARCH,' }));
    expect(c.teams).toEqual([
      { namespace: 'payments-*', channel: 'C0PAY', usergroup: 'S0PAYOPS' },
      { namespace: 'search', channel: 'C0SEARCH' },
    ]);
    // `rwx config check` shows it in the file's form, which reads back the same.
    expect(toFileForm(c).teamChannels).toEqual({ 'payments-*': 'C0PAY@S0PAYOPS', search: 'C0SEARCH' });
  });

  it('reads a map from the YAML file', () => {
    const file = join(tmpdir(), `rwx-teams-${process.pid}.yaml`);
    writeFileSync(file, 'teamChannels:\n  payments: C0PAY@S0PAYOPS\n  "search-*": G0SEARCH\n');
    expect(loadConfig({ ...env({}), file }).teams).toEqual([
      { namespace: 'payments', channel: 'C0PAY', usergroup: 'S0PAYOPS' },
      { namespace: 'search-*', channel: 'G0SEARCH' },
    ]);
  });

  it.each([
    // no channel
    ['payments', 'RWX_TEAM_CHANNELS: "payments=" is not namespace=channel[@usergroup]'],
    // a channel name: the bot needs the ID to find its roots again
    ['payments=#payments', 'RWX_TEAM_CHANNELS: "payments=#payments": "#payments" is not a channel ID'],
    // not a namespace
    ['Payments=C0PAY', 'RWX_TEAM_CHANNELS: "Payments=C0PAY": "Payments" is not a namespace'],
    // a user group by name
    ['payments=C0PAY@oncall', 'RWX_TEAM_CHANNELS: "payments=C0PAY@oncall": "oncall" is not a user group ID'],
    ['payments=C0PAY@S0A@S0B', 'RWX_TEAM_CHANNELS: "payments=C0PAY@S0A@S0B" is not namespace=channel[@usergroup]'],
    // one namespace, two teams
    ['payments=C0PAY,payments=C0OTHER', 'RWX_TEAM_CHANNELS: "payments" is listed twice'],
    // one channel, two user groups
    ['a=C0PAY@S0ONE,b=C0PAY@S0TWO', 'RWX_TEAM_CHANNELS: "b=C0PAY@S0TWO": C0PAY has user group S0ONE already'],
    // the incident channel itself
    ['payments=C0INC', 'RWX_TEAM_CHANNELS: "payments=C0INC" is SLACK_CHANNEL'],
  ])('%s is refused', (value, message) => {
    expect(() => loadConfig(env({ RWX_TEAM_CHANNELS: value }))).toThrow(message);
  });

  it('lets one channel serve several namespaces, the user group given once', () => {
    const c = loadConfig(env({ RWX_TEAM_CHANNELS: 'a=C0PAY@S0ONE,b=C0PAY' }));
    expect(c.teams.map((t) => t.channel)).toEqual(['C0PAY', 'C0PAY']);
  });
});
