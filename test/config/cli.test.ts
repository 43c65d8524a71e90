// `rwx config check` in-process through main(): effective YAML with secrets masked (exit 0) or every problem (exit 1).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'rwx-config-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rwx(argv: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const io = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: new PassThrough(),
    env,
  };
  const code = await main(argv, io);
  return { code, out, err };
}

const ENV = { SLACK_BOT_TOKEN: 'xoxb-1-2-topsecret', SLACK_SIGNING_SECRET: 'alsosecret', SLACK_CHANNEL: 'C0123ABCD' };

describe('rwx config check', () => {
  it('prints the effective configuration as YAML with secrets masked', async () => {
    const file = join(dir, 'rwx.yaml');
    writeFileSync(file, 'groupWait: 1m\nclusterName: prod\n');
    const r = await rwx(['config', 'check', '--config', file, '--context', 'kind-rwx'], {
      ...ENV,
      RWX_GROUP_WAIT: '45s',
    });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^# rwx effective configuration \(secrets masked\)\. Slack mode: HTTP, \/slack\/events on port 3000/,
    );
    expect(r.out).not.toMatch(/topsecret|alsosecret/);
    const doc = parse(r.out) as Record<string, unknown>;
    expect(doc).toMatchObject({
      slackBotToken: 'xoxb-****',
      slackSigningSecret: '****',
      groupWait: '45s',
      clusterName: 'prod',
      kubeContext: 'kind-rwx',
    });
  });

  it('lists every problem and exits 1', async () => {
    const r = await rwx(['config', 'check'], { RWX_GROUP_WAIT: '5 minutes', SLACK_APP_TOKEN: 'xapp-1' });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err.split('\n')).toEqual([
      'rwx config check: 3 problems',
      '  SLACK_BOT_TOKEN: required (expected xoxb-...)',
      '  SLACK_CHANNEL: required (expected a channel ID such as C0123ABCD)',
      '  RWX_GROUP_WAIT: "5 minutes" is not a duration (expected e.g. 30s, 5m)',
      '',
    ]);
  });

  // Each case: argv after `config`, expected stderr fragment.
  it.each([
    [[], 'missing subcommand (expected: check)'],
    [['show'], 'unknown subcommand "show" (expected: check)'],
    [['check', '--bogus'], 'unknown flag --bogus'],
  ])('rejects %j with a usage error', async (argv, fragment) => {
    const r = await rwx(['config', ...argv], ENV);
    expect(r.code).toBe(1);
    expect(r.err).toContain(fragment);
  });

  it('prints help', async () => {
    const r = await rwx(['config', '--help'], {});
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: rwx config check/);
  });
});
