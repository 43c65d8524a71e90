// The one flag parser and value checker of every rwx command, in kubectl's (pflag's) conventions: `--flag value`,
// `--flag=value`, `-f value`, `-fvalue`, short booleans grouped (`-Ah`), flags and positionals in any order, `--`
// ends the flags. A string flag takes the next argument whatever it looks like (`--stuck-after -5m` is the value
// "-5m", which its check then refuses), so no error ever comes from Node's parseArgs. Every error is an
// RwxError('USAGE') worded here, naming the flag.
import { parseDuration } from '../domain/duration.js';
import { RwxError } from '../errors.js';

/**
 * What a string flag's value must be; checked while parsing, with one message per kind (the table test in
 * test/cli/args.test.ts feeds every flag of every command a bad value of its kind).
 */
export type Check =
  | { kind: 'duration' } // a positive duration: 30s, 5m, 1h30m
  | { kind: 'timeout' } // kubectl's --request-timeout: whole seconds or a duration; 0 is none
  | { kind: 'int'; min: number; max: number } // a whole number in [min, max]
  | { kind: 'number'; min: number; max: number } // greater than min, at most max
  | { kind: 'port' } // 0..65535 (0: any free port)
  | { kind: 'time' } // RFC 3339
  | { kind: 'url' } // http or https
  | { kind: 'oneOf'; values: readonly string[] }
  | { kind: 'pattern'; pattern: RegExp; expected: string };

/** What shell completion offers for a flag's value (or a positional); the cluster's names come from kubectl. */
export type Completion = 'file' | 'dir' | 'node' | 'namespace' | 'context' | readonly string[];

/** One flag: its type, short letter, repeatability, value check, help line and completion. */
export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  readonly check?: Check;
  /** The value's placeholder in help ("FILE", "DURATION"). */
  readonly arg?: string;
  /** One line for --help. */
  readonly help: string;
  readonly complete?: Completion;
}

/** A command's flags by long name. */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

type ValueOf<S extends FlagSpec> = S['type'] extends 'boolean'
  ? boolean
  : S['multiple'] extends true
    ? string[]
    : string;

/** Parsed values: each flag given is present, typed by its spec. */
export type FlagValues<O extends FlagSpecs> = { -readonly [K in keyof O]?: ValueOf<O[K]> };

/** The result of parseFlags. */
export interface Parsed<O extends FlagSpecs> {
  values: FlagValues<O>;
  positionals: string[];
}

/**
 * Parses argv against `options`. Throws RwxError('USAGE') for an unknown flag (suggesting the nearest known one),
 * a missing value, a value a boolean does not take, a value that fails its check, or a positional argument when
 * `allowPositionals` is false. A repeated flag that is not `multiple` keeps its last value, as kubectl does.
 */
export function parseFlags<O extends FlagSpecs>(
  argv: readonly string[],
  options: O,
  allowPositionals = false,
): Parsed<O> {
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(options)) if (spec.short) byShort.set(spec.short, name);
  const set = (name: string, value: string | boolean) => {
    const spec = options[name] as FlagSpec;
    if (typeof value === 'string' && spec.check) checkValue(spec.check, value, `--${name}`);
    if (spec.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value as string];
    else values[name] = value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const spec = options[name];
      if (!spec) throw unknownFlag(`--${name}`, options);
      if (spec.type === 'boolean') set(name, eq < 0 ? true : booleanValue(arg.slice(eq + 1), `--${name}`));
      else if (eq >= 0) set(name, arg.slice(eq + 1));
      else if (i + 1 < argv.length) set(name, argv[++i] as string);
      else throw missingValue(`--${name}`, spec);
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') {
      // A group of short flags: booleans, optionally ending in one string flag that takes the rest (or the next arg).
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j] as string;
        const name = byShort.get(letter);
        if (!name) throw unknownFlag(`-${letter}`, options);
        const spec = options[name] as FlagSpec;
        if (spec.type === 'boolean') {
          set(name, true);
          continue;
        }
        const rest = arg.slice(j + 1).replace(/^=/, '');
        if (rest !== '') set(name, rest);
        else if (i + 1 < argv.length) set(name, argv[++i] as string);
        else throw missingValue(`-${letter}`, spec);
        break;
      }
      continue;
    }
    if (!allowPositionals) throw new RwxError('USAGE', `unexpected argument ${shown(arg)}`);
    positionals.push(arg);
  }
  return { values: values as FlagValues<O>, positionals };
}

/** Throws RwxError('USAGE') unless `value` passes `check`; the message names `flag` and what was expected. */
export function checkValue(check: Check, value: string, flag: string): void {
  const fail = (expected: string) => new RwxError('USAGE', `${flag}: ${shown(value)} is not ${expected}`);
  switch (check.kind) {
    case 'duration':
      durationValue(value, flag);
      return;
    case 'timeout':
      if (timeoutValue(value) === undefined)
        throw fail('a timeout (whole seconds, or a duration such as 5s or 1m; 0 for none)');
      return;
    case 'int': {
      const n = /^-?\d+$/.test(value) ? Number(value) : NaN;
      if (!(n >= check.min && n <= check.max))
        throw fail(`a whole number from ${check.min} to ${check.max === Number.MAX_SAFE_INTEGER ? 'up' : check.max}`);
      return;
    }
    case 'number': {
      const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
      if (!(n > check.min && n <= check.max)) throw fail(`a number above ${check.min}, at most ${check.max}`);
      return;
    }
    case 'port': {
      const n = /^\d+$/.test(value) ? Number(value) : NaN;
      if (!(n >= 0 && n <= 65535)) throw fail('a port number (0 to 65535; 0 picks a free port)');
      return;
    }
    case 'time':
      if (!RFC3339.test(value) || Number.isNaN(Date.parse(value)))
        throw fail('an RFC 3339 time (e.g. 2026-11-30T09:15:00Z)');
      return;
    case 'url':
      if (!/^https?:\/\/[^\s/]+/.test(value) || !URL.canParse(value)) throw fail('an http(s) URL');
      return;
    case 'oneOf':
      if (!check.values.includes(value)) throw fail(`one of ${check.values.join(', ')}`);
      return;
    case 'pattern':
      if (!check.pattern.test(value)) throw fail(check.expected);
      return;
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A positive duration flag in milliseconds (undefined when not given); throws USAGE in our words. */
export function durationValue(value: string, flag: string): number;
export function durationValue(value: string | undefined, flag: string): number | undefined;
export function durationValue(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  let ms = NaN;
  try {
    ms = parseDuration(value, flag);
  } catch {
    /* worded below */
  }
  if (!(ms > 0))
    throw new RwxError('USAGE', `${flag}: ${shown(value)} is not a positive duration (e.g. 30s, 5m, 1h30m)`);
  return ms;
}

/**
 * A timeout flag in milliseconds as kubectl reads --request-timeout (clientcmd ParseTimeout): a whole number is
 * seconds, else a duration with units (250ms, 5s, 1m30s); 0 means no timeout. Undefined when it is neither.
 */
export function timeoutValue(value: string): number | undefined {
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  try {
    const ms = parseDuration(value);
    return ms >= 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}

/** A numeric flag already checked by parseFlags, as a number (undefined when not given). */
export function numberValue(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

/** The `-o` format: `value` when given (parseFlags has checked it against the flag's oneOf), else the first allowed. */
export function outputFormat<F extends string>(value: string | undefined, allowed: readonly F[]): F {
  const v = value ?? allowed[0] ?? '';
  if (!(allowed as readonly string[]).includes(v)) checkValue({ kind: 'oneOf', values: allowed }, v, '--output');
  return v as F;
}

/** A value as it may be echoed to a terminal: plain when printable ASCII without spaces, else JSON-quoted. */
export function shown(value: string): string {
  return /^[\x21-\x7e]+$/.test(value) ? value : JSON.stringify(value);
}

function booleanValue(v: string, flag: string): boolean {
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new RwxError('USAGE', `${flag} takes no value (or =true, =false), got ${shown(v)}`);
}

function missingValue(flag: string, spec: FlagSpec): RwxError {
  return new RwxError('USAGE', `${flag} needs a value (${spec.arg ?? 'VALUE'})`);
}

function unknownFlag(flag: string, options: FlagSpecs): RwxError {
  const near = nearest(flag.replace(/^-+/, ''), Object.keys(options));
  return new RwxError('USAGE', `unknown flag ${shown(flag)}${near ? ` (did you mean --${near}?)` : ''}`);
}

/** The known name within edit distance 2 of `name` (a typo), if exactly one is nearest. */
function nearest(name: string, known: readonly string[]): string | undefined {
  if (name.length < 3) return undefined;
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    const d = distance(name, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(
        (prev[j] as number) + 1,
        (cur[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    prev = cur;
  }
  return prev[b.length] as number;
}

/** The "Flags:" section of a command's --help, from its specs (one rule for every command's help). */
export function flagHelp(options: FlagSpecs): string {
  const rows = Object.entries(options).map(([name, s]) => {
    const left = `${s.short ? `-${s.short}, ` : '    '}--${name}${s.type === 'string' ? ` ${s.arg ?? 'VALUE'}` : ''}`;
    return [left, s.help + (s.multiple ? ' (repeatable)' : '')] as const;
  });
  const width = Math.min(30, Math.max(...rows.map(([l]) => l.length)));
  return rows
    .map(([l, h]) => (l.length > width ? `  ${l}\n  ${' '.repeat(width)}  ${h}` : `  ${l.padEnd(width)}  ${h}`))
    .join('\n');
}
