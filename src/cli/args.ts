// Flag parsing shared by every subcommand: node's util.parseArgs in strict mode, with errors as RwxError('USAGE').
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { RwxError } from '../errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses argv strictly; an unknown flag or a missing value becomes one clear USAGE error. */
export function parseFlags<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (e) {
    const msg = e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
    throw new RwxError('USAGE', msg.replace(/^TypeError \[[A-Z_]+\]: /, ''));
  }
}

/** Reads `-o/--output` and checks it is one of the allowed formats. */
export function outputFormat(value: string | undefined, allowed: readonly string[] = ['table', 'json']): string {
  const v = value ?? allowed[0] ?? 'table';
  if (!allowed.includes(v)) throw new RwxError('USAGE', `--output must be one of ${allowed.join(', ')} (got "${v}")`);
  return v;
}
