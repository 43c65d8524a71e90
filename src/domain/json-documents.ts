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
  let i = 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    // skip whitespace between values, counting lines
    while (i < n && /\s/.test(text[i] as string)) {
      if (text[i] === '\n') line++;
      i++;
    }
    if (i >= n) break;
    const start = i;
    const startLine = line;
    const open = text[i];
    if (open !== '{' && open !== '[') {
      throw (
        opts.syntaxError?.(line) ??
        new RwxError(
          'INPUT',
          `${label}: line ${line}: expected a JSON object or array, found ${JSON.stringify(text.slice(i, i + 20).split('\n')[0])}`,
        )
      );
    }
    let depth = 0;
    let inStr = false;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) line++;
      if (inStr) {
        if (c === 92)
          i++; // backslash: skip the escaped character
        else if (c === 34) inStr = false;
      } else if (c === 34) inStr = true;
      else if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      }
    }
    const chunk = text.slice(start, i);
    const where = `${label}: document ${docs.length + 1} (line ${startLine})`;
    if (depth !== 0)
      throw opts.syntaxError?.(startLine) ?? new RwxError('INPUT', `${where}: truncated JSON (unbalanced brackets)`);
    try {
      docs.push({ value: JSON.parse(chunk), line: startLine });
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
  return docs;
}

/** The number of newlines in `s` before offset `upTo`. */
export function countLines(s: string, upTo: number): number {
  let c = 0;
  for (let i = 0; i < upTo && i < s.length; i++) if (s.charCodeAt(i) === 10) c++;
  return c;
}
