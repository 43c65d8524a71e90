import { describe, expect, it } from 'vitest';
import { parseCommand, type ParsedCommand } from '../../src/commands/parse.js';
import { isValidName } from '../../src/commands/names.js';

const all = { kind: 'all' } as const;

describe('parseCommand: valid commands', () => {
  it.each<[string, ParsedCommand]>([
    ['', { kind: 'help' }], // empty text is help
    ['   ', { kind: 'help' }], // whitespace only is help
    ['help', { kind: 'help' }], // explicit help
    ['HELP', { kind: 'help' }], // subcommands are case-insensitive
    ['status', { kind: 'status', public: false }], // status is ephemeral by default
    ['status public', { kind: 'status', public: true }], // ...and public on request
    ['triage', { kind: 'triage', scope: all, public: false }], // whole cluster
    ['triage public', { kind: 'triage', scope: all, public: true }], // trailing public is the flag
    ['triage platform', { kind: 'triage', scope: { kind: 'namespace', namespace: 'platform' }, public: false }], // namespace
    [
      'triage platform/data-postgres-2',
      { kind: 'triage', scope: { kind: 'claim', namespace: 'platform', claim: 'data-postgres-2' }, public: false },
    ], // one claim
    ['triage node node-19', { kind: 'triage', scope: { kind: 'node', node: 'node-19' }, public: false }], // one node
    [
      'triage node ip-10-0-1-7.ec2.internal public',
      { kind: 'triage', scope: { kind: 'node', node: 'ip-10-0-1-7.ec2.internal' }, public: true },
    ], // dotted node, public
    [
      'triage driver ebs.csi.aws.com',
      { kind: 'triage', scope: { kind: 'driver', driver: 'ebs.csi.aws.com' }, public: false },
    ], // driver
    [
      'triage driver Tintri_CSI.vmstore',
      { kind: 'triage', scope: { kind: 'driver', driver: 'Tintri_CSI.vmstore' }, public: false },
    ], // CSI names allow upper case and _
    ['triage public public', { kind: 'triage', scope: { kind: 'namespace', namespace: 'public' }, public: true }], // a namespace named public
    ['drain node-19', { kind: 'drain', node: 'node-19', public: false }], // drain one node
    ['drain node-19 public', { kind: 'drain', node: 'node-19', public: true }], // drain, answered in channel
    ['drain public', { kind: 'drain', node: 'public', public: false }], // a lone word after drain is the node
    ['node node-19', { kind: 'node', node: 'node-19', public: false }], // one node's agent report
    ['node node-19 public', { kind: 'node', node: 'node-19', public: true }], // answered in channel
    [
      '  triage\u00a0\tplatform  ',
      { kind: 'triage', scope: { kind: 'namespace', namespace: 'platform' }, public: false },
    ], // NBSP and tabs split words
    ['Triage Node node-19', { kind: 'triage', scope: { kind: 'node', node: 'node-19' }, public: false }], // keywords case-insensitive
  ])('%j', (text, want) => expect(parseCommand(text)).toEqual(want));
});

describe('parseCommand: usage, never an exception', () => {
  it.each<[string | undefined | null, RegExp]>([
    [undefined, /^$/], // missing text is help, checked below
    ['frobnicate', /unknown subcommand "frobnicate"/], // unknown subcommand
    ['<!channel>', /unknown subcommand "<!channel>"/], // hostile mention as subcommand: quoted, escaped later
    ['triage <!channel>', /not a valid namespace name/], // hostile mention as namespace
    ['triage &lt;!here&gt;', /"<!here>" is not a valid namespace name/], // Slack-encoded entities decoded before checking
    ['triage a&b', /not a valid namespace name/], // ampersand
    ['triage Platform', /not a valid namespace name/], // namespaces are lower case
    ['triage -platform', /not a valid namespace name/], // must start alphanumeric
    ['triage platform-', /not a valid namespace name/], // must end alphanumeric
    ['triage my.ns', /not a valid namespace name/], // namespaces are labels: no dots
    [`triage ${'a'.repeat(64)}`, /not a valid namespace name/], // 64 characters is one too many for a label
    ['triage platform/', /not a valid claim name/], // empty claim
    ['triage /data', /not a valid namespace name/], // empty namespace
    ['triage a/b/c', /not a valid claim name/], // two slashes
    ['triage platform extra', /too many arguments/], // stray word
    ['triage node', /needs a NODE name/], // node without a name
    ['triage driver', /needs a DRIVER name/], // driver without a name
    ['triage node a b', /too many arguments/], // two node names
    ['triage node nöde-19', /not a valid node name/], // unicode in a node name
    ['triage driver 🚀.csi', /not a valid driver name/], // emoji in a driver name
    [`triage driver ${'d'.repeat(64)}`, /not a valid driver name/], // driver names are at most 63
    ['drain', /needs a NODE name/], // drain without a node
    ['drain a b', /takes one NODE name/], // drain with two nodes
    ['node', /`node` needs a NODE name/], // node without a node
    ['node a b', /`node` takes one NODE name/], // node with two nodes
    ['drain NODE-19', /not a valid node name/], // node names are lower case
    ['drain <@U123|bob>', /not a valid node name/], // a user mention as node
    ['status now', /takes no arguments/], // status takes nothing
    ['help me', /takes no arguments/], // help takes nothing
    ['x'.repeat(5000), /too long/], // very long text refused before splitting
    [`triage ${'a '.repeat(400)}`, /too long/], // long after decoding
  ])('%j', (text, re) => {
    const got = parseCommand(text);
    if (text === undefined) return expect(got).toEqual({ kind: 'help' });
    expect(got.kind).toBe('usage');
    if (got.kind === 'usage') expect(got.error).toMatch(re);
  });

  it('quotes at most 60 characters of the offending word', () => {
    const got = parseCommand(`triage ${'Z'.repeat(300)}`);
    expect(got.kind === 'usage' && got.error.length).toBeLessThan(200);
  });

  it('survives arbitrary strings', () => {
    // A deterministic sweep of awkward characters: parse must return, never throw.
    const chars = ['<', '>', '&', '|', '/', '\u0000', '\u202e', '😀', '\n', ' ', 'a', '-', '.', 'public'];
    for (let i = 0; i < 2000; i++) {
      let s = '';
      for (let j = 0, x = i; j < 6; j++, x = Math.floor(x / 3) + j * 7) s += chars[(x + j) % chars.length];
      expect(() => parseCommand(`triage ${s}`)).not.toThrow();
      expect(() => parseCommand(s)).not.toThrow();
    }
  });
});

describe('isValidName', () => {
  it.each<[Parameters<typeof isValidName>[0], string, boolean]>([
    ['namespace', 'kube-system', true], // typical namespace
    ['namespace', 'a'.repeat(63), true], // label at its maximum
    ['node', `${'a'.repeat(63)}.${'b'.repeat(63)}`, true], // subdomain with long labels
    ['node', 'a'.repeat(254), false], // subdomain over 253
    ['claim', 'data..x', false], // empty label inside a subdomain
    ['driver', 'csi.tintri.com', true], // real driver name
    ['driver', '_csi', false], // must start alphanumeric
  ])('%s %j -> %s', (kind, name, ok) => expect(isValidName(kind, name)).toBe(ok));
});
