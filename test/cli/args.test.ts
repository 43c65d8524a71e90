// The one flag parser (src/cli/args.ts): kubectl's conventions, and every error in our own words. The table test
// at the end runs every flag of every command in the command table through main(), with a missing value, a bad
// value of its kind and a value that starts with a dash, and checks each message names the flag and never
// repeats what Node's parseArgs or a Node API would have said.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkValue, parseFlags, type Check, type FlagSpec } from '../../src/cli/args.js';
import { COMMANDS } from '../../src/cli/commands.js';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { isRwxError } from '../../src/errors.js';

const SPECS = {
  namespace: { type: 'string', short: 'n', help: '' },
  'all-namespaces': { type: 'boolean', short: 'A', help: '' },
  output: { type: 'string', short: 'o', help: '', check: { kind: 'oneOf', values: ['table', 'json'] } },
  'stuck-after': { type: 'string', help: '', check: { kind: 'duration' } },
  plugin: { type: 'string', multiple: true, help: '' },
  help: { type: 'boolean', short: 'h', help: '' },
} as const;

function usageError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (!isRwxError(e, 'USAGE')) throw e;
    return e.message;
  }
  throw new Error('expected a USAGE error');
}

describe('parseFlags', () => {
  it.each([
    // long flag, value as the next argument or after =
    { argv: ['--namespace', 'shop'], values: { namespace: 'shop' } },
    { argv: ['--namespace=shop'], values: { namespace: 'shop' } },
    // short flag: next argument, glued, or after =
    { argv: ['-n', 'shop'], values: { namespace: 'shop' } },
    { argv: ['-nshop'], values: { namespace: 'shop' } },
    { argv: ['-n=shop'], values: { namespace: 'shop' } },
    // grouped short booleans, the last one may take a value
    { argv: ['-Ah'], values: { 'all-namespaces': true, help: true } },
    { argv: ['-Ao', 'json'], values: { 'all-namespaces': true, output: 'json' } },
    // a value that starts with a dash is a value (pflag), which its check then judges
    { argv: ['--namespace', '-A'], values: { namespace: '-A' } },
    // booleans take =true / =false
    { argv: ['--all-namespaces=false'], values: { 'all-namespaces': false } },
    // repeatable flags collect, others keep the last value (kubectl)
    { argv: ['--plugin', 'a=b/c', '--plugin=d=e/f'], values: { plugin: ['a=b/c', 'd=e/f'] } },
    { argv: ['-n', 'a', '-n', 'b'], values: { namespace: 'b' } },
  ])('$argv', ({ argv, values }) => {
    expect(parseFlags(argv, SPECS).values).toEqual(values);
  });

  it('keeps positionals in order, between flags and after --', () => {
    const r = parseFlags(['node-1', '-n', 'x', '-', '--', '--not-a-flag'], SPECS, true);
    expect(r.positionals).toEqual(['node-1', '-', '--not-a-flag']);
  });

  it.each([
    // the error parseArgs words as "argument is ambiguous": here the value is taken and checked
    { argv: ['--stuck-after', '-5m'], msg: '--stuck-after: -5m is not a positive duration (e.g. 30s, 5m, 1h30m)' },
    { argv: ['--stuck-after', '0s'], msg: '--stuck-after: 0s is not a positive duration (e.g. 30s, 5m, 1h30m)' },
    { argv: ['--stuck-after=soon'], msg: '--stuck-after: soon is not a positive duration (e.g. 30s, 5m, 1h30m)' },
    // a typo gets the nearest flag
    { argv: ['--namspace', 'x'], msg: 'unknown flag --namspace (did you mean --namespace?)' },
    { argv: ['-z'], msg: 'unknown flag -z' },
    // a missing value names what was expected
    { argv: ['--namespace'], msg: '--namespace needs a value (VALUE)' },
    { argv: ['-o'], msg: '-o needs a value (VALUE)' },
    // a boolean with a value
    { argv: ['--help=yes'], msg: '--help takes no value (or =true, =false), got yes' },
    // a positional where none is taken
    { argv: ['extra'], msg: 'unexpected argument extra' },
    // untrusted text is quoted when it is not plain printable ASCII
    { argv: ['-o', 'a\u202eb'], msg: '--output: "a\u202eb" is not one of table, json' },
  ])('$argv: $msg', ({ argv, msg }) => {
    expect(usageError(() => parseFlags(argv, SPECS))).toBe(msg);
  });
});

describe('checkValue', () => {
  it.each<[Check, string, boolean]>([
    [{ kind: 'duration' }, '1h30m', true],
    [{ kind: 'duration' }, '-1h', false],
    // kubectl's --request-timeout (clientcmd ParseTimeout): bare seconds, a duration, 0 for none
    [{ kind: 'timeout' }, '0', true],
    [{ kind: 'timeout' }, '30', true],
    [{ kind: 'timeout' }, '1m30s', true],
    [{ kind: 'timeout' }, '250ms', true],
    [{ kind: 'timeout' }, '-1s', false],
    [{ kind: 'timeout' }, '5sec', false],
    [{ kind: 'int', min: 1, max: 32 }, '32', true],
    [{ kind: 'int', min: 1, max: 32 }, '1.5', false],
    [{ kind: 'int', min: 1, max: 32 }, '0', false],
    [{ kind: 'number', min: 0, max: 1000 }, '0.5', true],
    [{ kind: 'number', min: 0, max: 1000 }, '0', false],
    [{ kind: 'port' }, '0', true],
    [{ kind: 'port' }, '65536', false],
    [{ kind: 'port' }, '-1', false],
    [{ kind: 'time' }, '2026-11-30T09:15:00Z', true],
    [{ kind: 'time' }, 'yesterday', false],
    [{ kind: 'url' }, 'http://127.0.0.1:9743', true],
    [{ kind: 'url' }, 'file:///etc/passwd', false],
  ])('%j %s -> %s', (check, value, ok) => {
    if (ok) expect(() => checkValue(check, value, '--x')).not.toThrow();
    else expect(usageError(() => checkValue(check, value, '--x'))).toMatch(/^--x: \S+ is not /);
  });
});

/** A value each check refuses, and what the message then says. */
const BAD: Record<Check['kind'], { value: string; says: RegExp }> = {
  duration: { value: '-5m', says: /is not a positive duration/ },
  timeout: { value: '-5s', says: /is not a timeout/ },
  int: { value: '-3', says: /is not a whole number from/ },
  number: { value: '-2', says: /is not a number above/ },
  port: { value: '-1', says: /is not a port number/ },
  time: { value: '-1d', says: /is not an RFC 3339 time/ },
  url: { value: '-x', says: /is not an http\(s\) URL/ },
  oneOf: { value: '-wide', says: /is not one of / },
  pattern: { value: '-bad', says: /is not / },
};

/** Words of parseArgs and of Node's own validation errors, which users must never see. */
const FOREIGN = /ambiguous|parseArgs|ERR_|TypeError|should be >=|Unknown option|options\.\w+/;

async function rwx(argv: string[]): Promise<{ code: number; err: string; out: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: Readable.from([]),
    env: { HOME: '/nonexistent' },
  };
  const code = await main(argv, io);
  return { code, err, out };
}

const cases = Object.entries(COMMANDS).flatMap(([command, spec]) =>
  Object.entries(spec.flags as Record<string, FlagSpec>).map(([flag, f]) => ({ command, flag, f })),
);

describe('every flag of every command', () => {
  it('covers every command', () => {
    expect(new Set(cases.map((c) => c.command))).toEqual(new Set(Object.keys(COMMANDS)));
  });

  it.each(cases.filter((c) => c.f.type === 'string'))(
    'rwx $command --$flag with no value',
    async ({ command, flag, f }) => {
      const r = await rwx([command, `--${flag}`]);
      expect(r.code).toBe(1);
      expect(r.err).toBe(
        `rwx ${command}: --${flag} needs a value (${f.arg ?? 'VALUE'})\n(see: rwx ${command} --help)\n`,
      );
    },
  );

  it.each(cases.filter((c) => c.f.check))('rwx $command --$flag with a bad value', async ({ command, flag, f }) => {
    const bad = BAD[f.check!.kind];
    // a value starting with a dash, the case parseArgs calls "ambiguous", as the next argument and after =
    for (const argv of [
      [command, `--${flag}`, bad.value],
      [command, `--${flag}=${bad.value}`],
    ]) {
      const r = await rwx(argv);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`^rwx ${command}: --${flag}: ${bad.value} `));
      expect(r.err).toMatch(bad.says);
      expect(r.err).not.toMatch(FOREIGN);
    }
  });

  it.each(cases.filter((c) => c.f.short))('rwx $command -$f.short is --$flag', async ({ command, f }) => {
    // a string flag asks for its value under its short name; a boolean one is accepted (then --help answers)
    const r = await rwx([command, `-${f.short}`, ...(f.type === 'string' ? [] : ['--help'])]);
    if (f.type === 'string') expect(r.err).toMatch(new RegExp(`^rwx ${command}: -${f.short} needs a value`));
    else expect(r).toMatchObject({ code: 0, err: '' });
  });

  it.each(Object.keys(COMMANDS))(
    'rwx %s --help lists every flag, and a typo is answered in our words',
    async (command) => {
      const help = await rwx([command, '--help']);
      expect(help.code).toBe(0);
      for (const flag of Object.keys(COMMANDS[command as keyof typeof COMMANDS].flags))
        expect(help.out).toContain(`--${flag}`);
      const r = await rwx([command, '--hepl']);
      expect(r.err).toBe(`rwx ${command}: unknown flag --hepl (did you mean --help?)\n(see: rwx ${command} --help)\n`);
    },
  );
});
