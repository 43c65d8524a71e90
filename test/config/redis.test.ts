// The Redis topologies in the configuration: one server, Sentinel, Cluster, with ACL user and TLS; every
// contradiction is a CONFIG error naming its variable, and Cluster's prefix always carries a hash tag.
import { describe, expect, it } from 'vitest';
import { loadConfig, maskSecrets, toFileForm } from '../../src/config/index.js';
import { hashTagOf } from '../../src/config/redis.js';
import { problems as problemsOf } from './helpers.js';

const SOCKET = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_APP_TOKEN: 'xapp-1-A-xyz', SLACK_CHANNEL: 'C0123ABCD' };
const load = (env: Record<string, string>) => loadConfig({ env: { ...SOCKET, ...env } });
const problems = (env: Record<string, string>) => problemsOf(() => load(env));

describe('Redis topologies', () => {
  it('Sentinel: the seeds, the primary name and the sentinel password; no URL', () => {
    const c = load({
      REDIS_SENTINELS: 'sentinel-0.redis:26379, [::1]:26380',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'sp',
      REDIS_PASSWORD: 'pw',
      REDIS_USERNAME: 'rwx',
    });
    expect(c.redis).toEqual({
      url: '',
      prefix: 'rwx',
      password: 'pw',
      username: 'rwx',
      sentinel: {
        nodes: [
          { host: 'sentinel-0.redis', port: 26379 },
          { host: '::1', port: 26380 },
        ],
        name: 'mymaster',
        password: 'sp',
      },
    });
    expect(maskSecrets(c).redis.sentinel?.password).not.toBe('sp');
    // The file form reads back to the same configuration.
    const file = toFileForm(c);
    expect(file.redisSentinels).toEqual(['sentinel-0.redis:26379', '[::1]:26380']);
  });

  it('Cluster: the prefix is wrapped in a hash tag unless it has one; TLS with a CA file', () => {
    const c = load({ REDIS_CLUSTER_NODES: 'a:7000,b:7001', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: '/dev/null' });
    expect(c.redis.prefix).toBe('{rwx}');
    expect(c.redis.cluster?.nodes).toHaveLength(2);
    expect(c.redis.tls).toEqual({ caFile: '/dev/null' });
    expect(load({ REDIS_CLUSTER_NODES: 'a:7000', RWX_REDIS_PREFIX: 'team-{rwx}' }).redis.prefix).toBe('team-{rwx}');
    expect(hashTagOf('{rwx}:c:prod-a:notify:wait')).toBe('rwx');
    expect(hashTagOf('{}rwx')).toBeUndefined(); // an empty tag hashes the whole key
  });

  it('one server stays as it was', () => {
    expect(load({ REDIS_URL: 'rediss://r:6380' }).redis).toEqual({ url: 'rediss://r:6380', prefix: 'rwx' });
  });

  it.each([
    // Two topologies at once: which one is meant is not ours to guess.
    [
      { REDIS_URL: 'redis://r:6379', REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_NAME: 'm' },
      'REDIS_URL: set with REDIS_SENTINELS: give one topology only (REDIS_URL is for one server)',
    ],
    [
      { REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'a:7000' },
      'REDIS_URL: set with REDIS_CLUSTER_NODES: give one topology only (REDIS_URL is for one server)',
    ],
    // Sentinel without the name of the primary it watches cannot find it.
    [
      { REDIS_SENTINELS: 's:26379' },
      "REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the monitored primary's name, e.g. mymaster)",
    ],
    // A sentinel setting without sentinels is a typo somewhere.
    [{ REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINEL_NAME: needs REDIS_SENTINELS'],
    // A seed that is not host:port.
    [
      { REDIS_CLUSTER_NODES: 'a:7000,b' },
      'REDIS_CLUSTER_NODES: "b" is not host:port (expected e.g. redis-0.redis:26379)',
    ],
    // A CA bundle that is not there.
    [{ REDIS_TLS_CA_FILE: '/nonexistent/ca.pem' }, 'REDIS_TLS_CA_FILE: "/nonexistent/ca.pem": no such file'],
    // The ACL user twice.
    [
      { REDIS_URL: 'redis://u:p@r:6379', REDIS_USERNAME: 'v' },
      'REDIS_USERNAME: REDIS_URL already carries a user: give it in one of the two only',
    ],
  ])('refuses %j', (env, expected) => {
    expect(problems(env)).toContain(expected);
  });

  it('Sentinel and Cluster together: named on the Cluster variable', () => {
    const p = problems({ REDIS_SENTINELS: 's:1', REDIS_SENTINEL_NAME: 'm', REDIS_CLUSTER_NODES: 'a:7000' });
    expect(p).toEqual(['REDIS_CLUSTER_NODES: set with REDIS_SENTINELS: give one topology only']);
  });
});
