// loadConfig: precedence, defaults, every validation message names its variable, bad combinations, freezing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../../src/config/index.js';
import { problems } from './helpers.js';

const SOCKET = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_APP_TOKEN: 'xapp-1-A-xyz', SLACK_CHANNEL: 'C0123ABCD' };
const dir = mkdtempSync(join(tmpdir(), 'rwx-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({ env: SOCKET });
    expect(c.port).toBe(DEFAULT_CONFIG.port);
    expect(c.redis).toEqual({ url: 'redis://127.0.0.1:6379', prefix: 'rwx' });
    expect(c.timers).toEqual({
      stuckAfterMs: 300_000,
      groupWaitMs: 30_000,
      groupIntervalMs: 300_000,
      repeatIntervalMs: 4 * 3_600_000,
      cronJobGraceMs: 600_000,
      watchIdleTimeoutMs: 75_000,
      retryMaxMs: 10_000,
      keepFiringMs: 60_000,
      blindAfterMs: 180_000,
      slackRequestTimeoutMs: 10_000,
      lockTtlMs: 30_000,
    });
    expect(c.slack.mode).toBe('socket');
    // empty allowed-channels list means: only the incident channel
    expect(c.access.allowedChannels).toEqual(['C0123ABCD']);
    expect(c.access.allowedUsergroups).toEqual([]);
    expect(c.logLevel).toBe('info');
  });

  it('is deep-frozen', () => {
    const c = loadConfig({ env: SOCKET });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.timers)).toBe(true);
    expect(Object.isFrozen(c.access.allowedChannels)).toBe(true);
  });

  it('reads a YAML file; env overrides the file; flags override env', () => {
    const p = file(
      'prec.yaml',
      [
        'groupWait: 1m',
        'stuckAfter: 2m',
        'port: 8080',
        'kubeContext: from-file',
        'allowedChannels: [C0AAA, "#ops"]',
        'driverDaemonSets:',
        '  nfs.csi.k8s.io: csi/csi-nfs-node',
        'slackSigningSecret:',
      ].join('\n'),
    );
    const c = loadConfig({
      env: { ...SOCKET, RWX_GROUP_WAIT: '45s', RWX_KUBE_CONTEXT: 'from-env' },
      file: p,
      flags: { context: 'from-flag' },
    });
    expect(c.timers.groupWaitMs).toBe(45_000); // env beats file
    expect(c.timers.stuckAfterMs).toBe(120_000); // file beats default
    expect(c.port).toBe(8080);
    expect(c.kube.context).toBe('from-flag'); // flag beats env and file
    expect(c.access.allowedChannels).toEqual(['C0AAA', 'ops']);
    expect(c.driverDaemonSets).toEqual({ 'nfs.csi.k8s.io': { namespace: 'csi', name: 'csi-nfs-node' } });
  });

  it('finds the file through RWX_CONFIG', () => {
    const p = file('envfile.yaml', 'clusterName: prod-eu\n');
    expect(loadConfig({ env: { ...SOCKET, RWX_CONFIG: p } }).clusterName).toBe('prod-eu');
  });

  it('keeps a KUBECONFIG list whole: rwx serve merges it as the read commands do (kube/kubeconfig.ts)', () => {
    const real = file('kubeconfig', 'apiVersion: v1\n');
    const list = `${join(dir, 'nope')}:${real}`;
    expect(loadConfig({ env: { ...SOCKET, KUBECONFIG: list } }).kube.kubeconfig).toBe(list);
    expect(loadConfig({ env: { ...SOCKET, KUBECONFIG: list }, flags: { kubeconfig: real } }).kube.kubeconfig).toBe(
      real,
    );
  });

  it('treats empty environment values as unset', () => {
    const c = loadConfig({ env: { ...SOCKET, PORT: '', RWX_GROUP_WAIT: '' } });
    expect(c.port).toBe(3000);
    expect(c.timers.groupWaitMs).toBe(30_000);
  });

  it('parses comma lists and driver overrides from env', () => {
    const c = loadConfig({
      env: {
        ...SOCKET,
        RWX_ALLOWED_CHANNELS: 'C1AAA, C2BBB',
        RWX_ALLOWED_USERGROUPS: 'S0ONCALL',
        RWX_DRIVER_DAEMONSETS: 'ebs.csi.aws.com=kube-system/ebs-csi-node, efs.csi.aws.com=kube-system/efs-csi-node',
        SLACK_API_URL: 'http://127.0.0.1:9999/api',
      },
    });
    expect(c.access.allowedChannels).toEqual(['C1AAA', 'C2BBB']);
    expect(c.access.allowedUsergroups).toEqual(['S0ONCALL']);
    expect(Object.keys(c.driverDaemonSets)).toEqual(['ebs.csi.aws.com', 'efs.csi.aws.com']);
    expect(c.slack.apiUrl).toBe('http://127.0.0.1:9999/api/'); // normalised: the Web API client appends method names
  });

  it('selects HTTP mode without an app token, and needs the signing secret there', () => {
    const env = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_CHANNEL: 'C0123ABCD' };
    expect(problems(() => loadConfig({ env }))).toEqual([
      'SLACK_SIGNING_SECRET: required in HTTP mode (or set SLACK_APP_TOKEN to use Socket Mode)',
    ]);
    const c = loadConfig({ env: { ...env, SLACK_SIGNING_SECRET: 'abc123' } });
    expect(c.slack.mode).toBe('http');
  });

  it('skips Slack requirements when asked (commands that never post)', () => {
    const c = loadConfig({ env: {}, slack: 'optional' });
    expect(c.slack.botToken).toBe('');
    expect(c.access.allowedChannels).toEqual([]);
  });

  // Each case: the environment, the one problem expected (naming the variable and the expected form).
  const cases: [string, Record<string, string>, string][] = [
    [
      'duration in words',
      { RWX_GROUP_WAIT: '5 minutes' },
      'RWX_GROUP_WAIT: "5 minutes" is not a duration (expected e.g. 30s, 5m)',
    ],
    [
      'zero duration',
      { RWX_STUCK_AFTER: '0s' },
      'RWX_STUCK_AFTER: "0s" must be a positive duration (expected e.g. 30s, 5m)',
    ],
    [
      'negative duration',
      { RWX_CRONJOB_GRACE: '-5m' },
      'RWX_CRONJOB_GRACE: "-5m" must be a positive duration (expected e.g. 30s, 5m)',
    ],
    // A step holds its incident lock, unrenewed, through a Slack call of up to RWX_SLACK_REQUEST_TIMEOUT (10 s).
    [
      'lock TTL a Slack call of the default timeout may outlast',
      { RWX_LOCK_TTL: '10s' },
      'RWX_LOCK_TTL: "10s" must be longer than RWX_SLACK_REQUEST_TIMEOUT ("10s"), the longest a Slack call may take (the incident lock is not renewed during one)',
    ],
    // The same rule against a configured timeout: a longer Slack call needs a longer lock.
    [
      'Slack request timeout as long as the default lock TTL',
      { RWX_SLACK_REQUEST_TIMEOUT: '30s' },
      'RWX_LOCK_TTL: "30s" must be longer than RWX_SLACK_REQUEST_TIMEOUT ("30s"), the longest a Slack call may take (the incident lock is not renewed during one)',
    ],
    // Both shortened (the fault tests): still refused when the lock is the shorter.
    [
      'lock TTL shorter than a short Slack request timeout',
      { RWX_SLACK_REQUEST_TIMEOUT: '2s', RWX_LOCK_TTL: '1500ms' },
      'RWX_LOCK_TTL: "1500ms" must be longer than RWX_SLACK_REQUEST_TIMEOUT ("2s"), the longest a Slack call may take (the incident lock is not renewed during one)',
    ],
    [
      'zero Slack request timeout',
      { RWX_SLACK_REQUEST_TIMEOUT: '0s' },
      'RWX_SLACK_REQUEST_TIMEOUT: "0s" must be a positive duration (expected e.g. 30s, 5m)',
    ],
    ['port out of range', { PORT: '70000' }, 'PORT: "70000" is not a port number (expected 1-65535)'],
    ['port not a number', { PORT: 'http' }, 'PORT: "http" is not a port number (expected 1-65535)'],
    [
      'user token as bot token',
      { SLACK_BOT_TOKEN: 'xoxp-1' },
      'SLACK_BOT_TOKEN: must be a bot token starting with xoxb-',
    ],
    [
      'bot token as app token',
      { SLACK_APP_TOKEN: 'xoxb-2' },
      'SLACK_APP_TOKEN: must be an app-level token starting with xapp- (Socket Mode)',
    ],
    [
      'redis url without scheme',
      { REDIS_URL: 'redis-host:6379' },
      'REDIS_URL: "redis-host:6379" is not a redis:// or rediss:// URL',
    ],
    [
      'a Redis password in REDIS_URL and in REDIS_PASSWORD',
      { REDIS_URL: 'redis://:one@redis:6379', REDIS_PASSWORD: 'two' },
      'REDIS_PASSWORD: REDIS_URL already carries a password: give it in one of the two only',
    ],
    [
      'usergroup handle, not ID',
      { RWX_ALLOWED_USERGROUPS: 'S0ABC,@oncall' },
      'RWX_ALLOWED_USERGROUPS: "@oncall" not valid (expected user group IDs (S0123ABCD))',
    ],
    [
      'driver override without namespace',
      { RWX_DRIVER_DAEMONSETS: 'ebs.csi.aws.com=ebs-csi-node' },
      'RWX_DRIVER_DAEMONSETS: "ebs.csi.aws.com=ebs-csi-node" is not driver=namespace/name (expected e.g. ebs.csi.aws.com=kube-system/ebs-csi-node)',
    ],
    [
      'unknown log level',
      { LOG_LEVEL: 'verbose' },
      'LOG_LEVEL: "verbose": expected one of fatal, error, warn, info, debug, trace, silent',
    ],
    [
      'bad prefix',
      { RWX_REDIS_PREFIX: 'a b' },
      'RWX_REDIS_PREFIX: "a b": expected 1-64 letters, digits, - _ or :, with at most one {hash tag}',
    ],
    ['bad api url', { SLACK_API_URL: 'slack.com/api' }, 'SLACK_API_URL: "slack.com/api" is not an http(s) URL'],
    // A link button opens in a phone's browser: https only.
    [
      'runbook over http',
      { RWX_RUNBOOK_URL: 'http://wiki/csi' },
      'RWX_RUNBOOK_URL: "http://wiki/csi" is not an https URL',
    ],
    ['dashboard not a URL', { RWX_DASHBOARD_URL: 'grafana' }, 'RWX_DASHBOARD_URL: "grafana" is not an https URL'],
    [
      'mention as a handle',
      { RWX_MENTION_USERGROUP: '@oncall' },
      'RWX_MENTION_USERGROUP: "@oncall": expected a user group ID (S0123ABCD)',
    ],
    [
      'broadcast not a boolean',
      { RWX_BROADCAST_RESOLUTION: 'maybe' },
      'RWX_BROADCAST_RESOLUTION: "maybe" is not true or false',
    ],
  ];
  it.each(cases)('rejects %s', (_name, env, expected) => {
    expect(problems(() => loadConfig({ env: { ...SOCKET, ...env } }))).toEqual([expected]);
  });

  it('takes a lock TTL longer than the Slack request timeout, both shortened, from the environment or a file', () => {
    const env = loadConfig({ env: { ...SOCKET, RWX_SLACK_REQUEST_TIMEOUT: '1s', RWX_LOCK_TTL: '2s' } });
    expect([env.timers.slackRequestTimeoutMs, env.timers.lockTtlMs]).toEqual([1_000, 2_000]);
    const p = file('short-lock.yaml', 'slackRequestTimeout: 1s\nlockTtl: 1s\n');
    expect(problems(() => loadConfig({ env: SOCKET, file: p }))).toEqual([
      `${p}: lockTtl: "1s" must be longer than slackRequestTimeout ("1s", in ${p}), the longest a Slack call may take (the incident lock is not renewed during one)`,
    ]);
  });

  it('reads the message settings: links, mention, broadcast (on unless turned off)', () => {
    expect(loadConfig({ env: SOCKET }).messages).toEqual({ links: {}, broadcastResolution: true });
    const c = loadConfig({
      env: {
        ...SOCKET,
        RWX_RUNBOOK_URL: 'https://wiki.example.com/csi',
        RWX_DASHBOARD_URL: 'https://grafana.example.com/d/rwx',
        RWX_MENTION_USERGROUP: 'S0ONCALL',
        RWX_BROADCAST_RESOLUTION: 'False',
      },
    });
    expect(c.messages).toEqual({
      links: { runbook: 'https://wiki.example.com/csi', dashboard: 'https://grafana.example.com/d/rwx' },
      mentionUsergroup: 'S0ONCALL',
      broadcastResolution: false,
    });
  });

  it('lists every problem at once', () => {
    // type errors and missing Slack settings together, in reference-table order
    const ps = problems(() => loadConfig({ env: { RWX_GROUP_WAIT: 'soon', PORT: '0' } }));
    expect(ps.map((p) => p.split(':')[0])).toEqual([
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'SLACK_CHANNEL',
      'PORT',
      'RWX_GROUP_WAIT',
    ]);
  });

  it('never repeats a secret in an error', () => {
    const ps = problems(() =>
      loadConfig({ env: { ...SOCKET, REDIS_URL: 'http://:hunter2@redis', SLACK_BOT_TOKEN: 'xoxp-secret' } }),
    );
    expect(ps).toEqual([
      'SLACK_BOT_TOKEN: must be a bot token starting with xoxb-',
      'REDIS_URL: "http://:****@redis" is not a redis:// or rediss:// URL',
    ]);
  });

  it('names the file and key for file problems, and rejects unknown keys', () => {
    const p = file('bad.yaml', 'groupWait: soon\nSLACK_CHANNEL: C1\ngroupwait: 1m\nport: [1]\n');
    expect(problems(() => loadConfig({ env: SOCKET, file: p }))).toEqual([
      `${p}: unknown key "SLACK_CHANNEL" (in the file, write slackChannel)`,
      `${p}: unknown key "groupwait"`,
      `${p}: port: [1]: expected a port number 1-65535`,
      `${p}: groupWait: "soon" is not a duration (expected e.g. 30s, 5m)`,
    ]);
  });

  it('reports unreadable and malformed files', () => {
    expect(problems(() => loadConfig({ env: SOCKET, file: join(dir, 'missing.yaml') }))[0]).toMatch(
      /cannot read the config file \(ENOENT\)/,
    );
    expect(problems(() => loadConfig({ env: SOCKET, file: file('list.yaml', '- a\n- b\n') }))[0]).toMatch(
      /expected a mapping/,
    );
    expect(problems(() => loadConfig({ env: SOCKET, file: file('broken.yaml', 'a: [\n') }))[0]).toMatch(
      /not valid YAML/,
    );
  });
});
