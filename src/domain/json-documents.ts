// The JSON half of documents.ts: a stream of JSON values (`kubectl get -o json` outputs back to back, or one JSON
// array), split and parsed without the YAML library, so a command reading a JSON snapshot does not load it.
import { RwxError } from '../errors.js';

/** One parsed document and the 1-based line it starts on. */
export interface TextDocument {
  value: unknown;
  line: number;
}

/** Options: `syntaxError` may reword a syntax error at `line` (policy's "unrendered Helm template"). */
export interface DocumentOptions {
  syntaxError?: (line: number) => RwxError | undefined;
}

/** Whether `text` is JSON (starts with `{` or `[`) rather than YAML; throws INPUT "`label`: file is empty". */
export function looksLikeJson(text: string, label: string): boolean {
  const trimmed = text.trimStart();
  if (trimmed === '') throw new RwxError('INPUT', `${label}: file is empty`);
  return trimmed.startsWith('{') || trimmed.startsWith('[');
}

/** Splits a stream of concatenated JSON values and parses each; errors name the value and its line. */
export function jsonDocuments(text: string, label: string, opts: DocumentOptions = {}): TextDocument[] {
  const docs: TextDocument[] = [];
  const at: Cursor = { i: 0, line: 1 };
  for (skipWhitespace(text, at); at.i < text.length; skipWhitespace(text, at)) {
    const open = text[at.i];
    if (open !== '{' && open !== '[') throw notAValue(text, at, label, opts);
    const start = at.i;
    const startLine = at.line;
    const balanced = scanValue(text, at);
    const chunk = text.slice(start, at.i);
    const where = `${label}: document ${docs.length + 1} (line ${startLine})`;
    if (!balanced)
      throw opts.syntaxError?.(startLine) ?? new RwxError('INPUT', `${where}: truncated JSON (unbalanced brackets)`);
    docs.push({ value: parseValue(chunk, startLine, where, opts), line: startLine });
  }
  return docs;
}

/** A position in the text: the offset and its 1-based line. */
interface Cursor {
  i: number;
  line: number;
}

/** Moves `at` past the whitespace between values, counting lines. */
function skipWhitespace(text: string, at: Cursor): void {
  while (at.i < text.length && /\s/.test(text[at.i] as string)) {
    if (text[at.i] === '\n') at.line++;
    at.i++;
  }
}

/** The error for a value that does not start with `{` or `[`, quoting the start of the rest of its line. */
function notAValue(text: string, at: Cursor, label: string, opts: DocumentOptions): RwxError {
  return (
    opts.syntaxError?.(at.line) ??
    new RwxError(
      'INPUT',
      `${label}: line ${at.line}: expected a JSON object or array, found ${JSON.stringify(text.slice(at.i, at.i + 20).split('\n')[0])}`,
    )
  );
}

/**
 * Moves `at` from an opening bracket past its matching closing one (brackets inside strings do not count),
 * counting lines; false when the text ends first (unbalanced brackets).
 */
function scanValue(text: string, at: Cursor): boolean {
  const n = text.length;
  let depth = 0;
  let inStr = false;
  for (; at.i < n; at.i++) {
    const c = text.charCodeAt(at.i);
    if (c === 10) at.line++;
    if (inStr) {
      if (c === 92)
        at.i++; // backslash: skip the escaped character
      else if (c === 34) inStr = false;
    } else if (c === 34) inStr = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) {
        at.i++;
        break;
      }
    }
  }
  return depth === 0;
}

/** Parses one value; a syntax error names the line it is on, counted from the value's `startLine`. */
function parseValue(chunk: string, startLine: number, where: string, opts: DocumentOptions): unknown {
  try {
    return JSON.parse(chunk);
  } catch (e) {
    const msg = e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
    const pos = /position (\d+)/.exec(msg);
    const errLine = startLine + (pos ? countLines(chunk, Number(pos[1])) : 0);
    throw (
      opts.syntaxError?.(errLine) ??
      new RwxError(
        'INPUT',
        `${where}: malformed JSON${pos ? ` at line ${errLine}` : ''}: ${msg.replace(/ in JSON at position \d+.*$/, '')}`,
      )
    );
  }
}

/** The number of newlines in `s` before offset `upTo`. */
export function countLines(s: string, upTo: number): number {
  let c = 0;
  for (let i = 0; i < upTo && i < s.length; i++) if (s.charCodeAt(i) === 10) c++;
  return c;
}
