// Manifest and snapshot text as a list of documents: what `kubectl get ... -o json` prints (one value, or several
// outputs concatenated: `kubectl get pods -A -o json; kubectl get pv -o json`, or a JSON array), or what `-o yaml`,
// `helm template` and hand-written manifests are (YAML documents separated by `---`). The one reader behind
// `--snapshot` (src/kube/snapshot-file.ts) and `rwx policy check -f` (src/policy/manifests.ts), so both read the
// same inputs and fail with the same words. Pure: text in, values out.
import { parseAllDocuments } from 'yaml';
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

/** YAML aliases expanded per document at most: kubectl never writes any; a "billion laughs" file has millions. */
const MAX_ALIASES = 100;

/**
 * Parses `text` as a JSON stream when it starts with `{` or `[`, else as YAML documents. Empty YAML documents
 * are kept as null values (callers skip them). Throws one-line RwxError('INPUT') messages prefixed with `label`.
 */
export function parseDocuments(text: string, label: string, opts: DocumentOptions = {}): TextDocument[] {
  const trimmed = text.trimStart();
  if (trimmed === '') throw new RwxError('INPUT', `${label}: file is empty`);
  return trimmed.startsWith('{') || trimmed.startsWith('[')
    ? jsonDocuments(text, label, opts)
    : yamlDocuments(text, label, opts);
}

/** Splits a stream of concatenated JSON values and parses each; errors name the value and its line. */
function jsonDocuments(text: string, label: string, opts: DocumentOptions): TextDocument[] {
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

function yamlDocuments(text: string, label: string, opts: DocumentOptions): TextDocument[] {
  const docs: TextDocument[] = [];
  for (const d of parseAllDocuments(text, { uniqueKeys: false })) {
    const err = d.errors[0];
    if (err) {
      const pos = err.linePos?.[0];
      const what = (err.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      throw (
        opts.syntaxError?.(pos?.line ?? countLines(text, err.pos[0]) + 1) ??
        new RwxError(
          'INPUT',
          `${label}: document ${docs.length + 1}: malformed YAML${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${what}`,
        )
      );
    }
    const line = d.contents?.range ? countLines(text, d.contents.range[0]) + 1 : 1;
    try {
      docs.push({ value: d.toJS({ maxAliasCount: MAX_ALIASES }), line });
    } catch (e) {
      const msg = e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
      throw new RwxError('INPUT', `${label}: document ${docs.length + 1} (line ${line}): ${msg}`);
    }
  }
  return docs;
}

function countLines(s: string, upTo: number): number {
  let c = 0;
  for (let i = 0; i < upTo && i < s.length; i++) if (s.charCodeAt(i) === 10) c++;
  return c;
}
