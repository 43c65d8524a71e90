// Manifest and snapshot text as a list of documents: what `kubectl get ... -o json` prints (one value, or several
// outputs concatenated: `kubectl get pods -A -o json; kubectl get pv -o json`, or a JSON array), or what `-o yaml`,
// `helm template` and hand-written manifests are (YAML documents separated by `---`). The one reader behind
// `--snapshot` (src/kube/snapshot-file.ts) and `rwx policy check -f` (src/policy/manifests.ts), so both read the
// same inputs and fail with the same words. Pure: text in, values out. The JSON half is json-documents.ts, which
// does not load the YAML library (slower to load than a small JSON snapshot is to read).
import { parseAllDocuments } from 'yaml';
import { RwxError } from '../errors.js';
import { countLines, jsonDocuments, looksLikeJson, type DocumentOptions, type TextDocument } from './json-documents.js';

export type { DocumentOptions, TextDocument } from './json-documents.js';

/** YAML aliases expanded per document at most: kubectl never writes any; a "billion laughs" file has millions. */
const MAX_ALIASES = 100;

/**
 * Parses `text` as a JSON stream when it starts with `{` or `[`, else as YAML documents. Empty YAML documents
 * are kept as null values (callers skip them). Throws one-line RwxError('INPUT') messages prefixed with `label`.
 */
export function parseDocuments(text: string, label: string, opts: DocumentOptions = {}): TextDocument[] {
  return looksLikeJson(text, label) ? jsonDocuments(text, label, opts) : yamlDocuments(text, label, opts);
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
