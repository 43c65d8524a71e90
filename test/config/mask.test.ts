// maskSecrets, toFileForm and formatDuration: what `rwx config check` prints.
import { describe, expect, it } from 'vitest';
import { formatDuration, loadConfig, maskSecrets, maskUrl, parseDuration, toFileForm } from './helpers.js';

describe('maskSecrets', () => {
  it('masks tokens (keeping the type prefix), the signing secret and the Redis password', () => {
    const c = loadConfig({
      env: {
        SLACK_BOT_TOKEN: 'xoxb-111-222-secretbot',
        SLACK_APP_TOKEN: 'xapp-1-A1-secretapp',
        SLACK_SIGNING_SECRET: 'sig-secret',
        SLACK_CHANNEL: 'C0123ABCD',
        REDIS_URL: 'redis://default:pw-secret@redis.rwx:6379/2',
      },
    });
    const m = maskSecrets(c);
    expect(m.slack.botToken).toBe('xoxb-****');
    expect(m.slack.appToken).toBe('xapp-****');
    expect(m.slack.signingSecret).toBe('****');
    expect(m.redis.url).toBe('redis://default:****@redis.rwx:6379/2');
    expect(JSON.stringify(m)).not.toMatch(/secret/);
    // the original stays intact
    expect(c.slack.botToken).toBe('xoxb-111-222-secretbot');
  });

  it('masks REDIS_PASSWORD', () => {
    const env = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', SLACK_CHANNEL: 'C0123ABCD' };
    const c = loadConfig({ env: { ...env, REDIS_URL: 'redis://rwx-redis:6379', REDIS_PASSWORD: 'pw-secret' } });
    expect(c.redis).toEqual({ url: 'redis://rwx-redis:6379', prefix: 'rwx', password: 'pw-secret' });
    expect(maskSecrets(c).redis.password).toBe('****');
    expect(toFileForm(maskSecrets(c)).redisPassword).toBe('****');
  });

  // Each case: input URL, masked form.
  it.each([
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'], // nothing to hide
    ['rediss://:pw@host:6380', 'rediss://:****@host:6380'], // password without user
    ['not a url', 'not a url'], // unparseable, nothing where a password would be: shown as given
    ['redis:/user:pw@host', 'redis:/****@host'], // no host (a path): all that could be a password masked
    ['redis://u:p@ss@host', 'redis://u:****@host'], // an unescaped @ in the password: the URL's own password
  ])('maskUrl(%s)', (input, expected) => {
    expect(maskUrl(input)).toBe(expected);
  });
});

describe('toFileForm', () => {
  it('round-trips through loadConfig', () => {
    const c = loadConfig({
      env: {
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_APP_TOKEN: 'xapp-1',
        SLACK_CHANNEL: 'C0123ABCD',
        RWX_GROUP_WAIT: '1h30m',
        RWX_DRIVER_DAEMONSETS: 'a.b=ns/ds',
      },
    });
    const form = toFileForm(c);
    expect(form.groupWait).toBe('1h30m');
    expect(form.driverDaemonSets).toEqual({ 'a.b': 'ns/ds' });
    expect(form.slackSigningSecret).toBeNull();
  });

  // Each case: milliseconds, text; parseDuration(text) must give the milliseconds back.
  it.each([
    [0, '0s'],
    [30_000, '30s'],
    [5_400_000, '1h30m'],
    [49 * 3_600_000, '2d1h'],
    [1500, '1s500ms'],
  ])('formatDuration(%d)', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});
