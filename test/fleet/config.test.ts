// RWX_FLEET's configuration: a member needs a DNS-label name; the channel -> cluster map is checked at start.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';

const env = (extra: Record<string, string>) => ({
  env: { SLACK_CHANNEL: 'C0INC', ...extra },
  slack: 'optional' as const,
});

describe('fleet configuration', () => {
  it('is off by default; on, it carries the channel defaults', () => {
    expect(loadConfig(env({})).fleet).toEqual({ enabled: false, channelClusters: {} });
    const c = loadConfig(
      env({
        RWX_FLEET: 'true',
        RWX_CLUSTER_NAME: 'prod-eu-1',
        RWX_CHANNEL_CLUSTERS: 'C0EU=prod-eu-1, #us-team=prod-us-1',
      }),
    );
    expect(c.fleet).toEqual({ enabled: true, channelClusters: { C0EU: 'prod-eu-1', 'us-team': 'prod-us-1' } });
  });

  it.each([
    [{ RWX_FLEET: 'true' }, 'RWX_CLUSTER_NAME: required with RWX_FLEET'],
    [
      { RWX_FLEET: 'yes', RWX_CLUSTER_NAME: 'Prod EU' },
      'RWX_CLUSTER_NAME: "Prod EU" must be a DNS label with RWX_FLEET',
    ],
    [{ RWX_FLEET: 'maybe', RWX_CLUSTER_NAME: 'a' }, 'RWX_FLEET: "maybe" is not true or false'],
    [{ RWX_CHANNEL_CLUSTERS: 'C0EU' }, 'RWX_CHANNEL_CLUSTERS: "C0EU=" is not channel=cluster'],
    [{ RWX_CHANNEL_CLUSTERS: 'C0EU=Prod_1' }, 'RWX_CHANNEL_CLUSTERS: "C0EU=Prod_1" is not channel=cluster'],
  ])('%j is refused: %s', (extra, message) => {
    expect(() => loadConfig(env(extra))).toThrow(message);
  });
});
