// Snapshot files: whatever `kubectl get ... -o json` or `-o yaml` printed, possibly several outputs concatenated
// (`kubectl get pods -A -o json; kubectl get pv -o json`), or multi-document YAML, with mixed kinds.
//
// Absent kinds: a file with no object of a kind, and no typed wrapper for it (a `PodList` from the raw API),
// cannot prove the cluster has none (a dump of pods only says nothing about VolumeAttachments), so such kinds
// are listed in `unreadable` with reason 'not in snapshot' and readers report what they could not decide.
// kubectl prints an empty result as a plain `List` with no items: that proves nothing either, so it is the same.
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { RwxError } from '../errors.js';
import { KIND_KEYS, kindKeyOf, type KindKey } from '../domain/kinds.js';
import { emptySnapshot, type Snapshot } from '../domain/snapshot.js';
import { project } from './project.js';

/** Reason recorded in `unreadable` for kinds a snapshot file does not contain. */
export const NOT_IN_SNAPSHOT = 'not in snapshot';

/** Reads a snapshot file (or stdin for '-'); throws one-line RwxError('INPUT') naming the file on any problem. */
export async function loadSnapshotFile(path: string, stdin: NodeJS.ReadableStream): Promise<Snapshot> {
  const name = path === '-' ? '(stdin)' : path;
  let text: string;
  try {
    text = path === '-' ? await readAll(stdin) : await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw new RwxError(
      'INPUT',
      `snapshot ${name}: cannot read (${code ?? (e instanceof Error ? e.message : String(e))})`,
      { cause: e },
    );
  }
  return parseSnapshotText(text, name);
}

/** Parses snapshot text (JSON stream or YAML documents); `name` is used in error messages. */
export function parseSnapshotText(text: string, name: string): Snapshot {
  const trimmed = text.trimStart();
  if (trimmed === '') throw new RwxError('INPUT', `snapshot ${name}: file is empty`);
  const docs =
    trimmed.startsWith('{') || trimmed.startsWith('[') ? jsonDocuments(text, name) : yamlDocuments(text, name);
  const snap = emptySnapshot();
  const seen = new Set<KindKey>();
  docs.forEach((doc, i) =>
    addDocument(snap, seen, doc.value, `${name}: document ${i + 1}${doc.line ? ` (line ${doc.line})` : ''}`),
  );
  for (const k of KIND_KEYS) if (!seen.has(k)) snap.unreadable.push({ kind: k, reason: NOT_IN_SNAPSHOT });
  return snap;
}

interface Doc {
  value: unknown;
  line?: number;
}

function addDocument(snap: Snapshot, seen: Set<KindKey>, v: unknown, where: string): void {
  if (v === null || v === undefined) return; // an empty YAML document ('---' twice)
  if (Array.isArray(v)) {
    v.forEach((item, j) => addObject(snap, seen, item, undefined, `${where}, item ${j + 1}`));
    return;
  }
  if (typeof v !== 'object') throw new RwxError('INPUT', `snapshot ${where}: not a Kubernetes object or List`);
  const o = v as { kind?: unknown; items?: unknown };
  if (Array.isArray(o.items)) {
    // A raw API list ("PodList") names its kind once; kubectl's "List" names it on each item.
    const listKind =
      typeof o.kind === 'string' && o.kind.endsWith('List') && o.kind !== 'List' ? o.kind.slice(0, -4) : undefined;
    const lk = kindKeyOf(listKind);
    if (lk) seen.add(lk);
    o.items.forEach((item, j) => addObject(snap, seen, item, listKind, `${where}, item ${j + 1}`));
    return;
  }
  addObject(snap, seen, v, undefined, where);
}

function addObject(
  snap: Snapshot,
  seen: Set<KindKey>,
  item: unknown,
  defaultKind: string | undefined,
  where: string,
): void {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    throw new RwxError('INPUT', `snapshot ${where}: not a Kubernetes object`);
  }
  const o = item as { kind?: unknown; metadata?: { name?: unknown } | null };
  const kind = typeof o.kind === 'string' ? o.kind : defaultKind;
  if (kind === undefined) throw new RwxError('INPUT', `snapshot ${where}: object has no kind`);
  const k = kindKeyOf(kind);
  if (!k) return; // kinds the bot does not read (Services, ConfigMaps...) are ignored
  if (typeof o.metadata?.name !== 'string' || o.metadata.name === '') {
    throw new RwxError('INPUT', `snapshot ${where}: ${kind} has no metadata.name`);
  }
  seen.add(k);
  const p = project(k, item);
  if (p.kind === undefined) p.kind = kind;
  (snap[k] as unknown[]).push(p);
}

/** Splits a stream of concatenated JSON values and parses each; errors name the value and its line. */
function jsonDocuments(text: string, name: string): Doc[] {
  const docs: Doc[] = [];
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
      throw new RwxError(
        'INPUT',
        `snapshot ${name}: line ${line}: expected a JSON object or array, found "${text.slice(i, i + 20).split('\n')[0]}"`,
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
    const where = `${name}: document ${docs.length + 1} (line ${startLine})`;
    if (depth !== 0) throw new RwxError('INPUT', `snapshot ${where}: truncated JSON (unbalanced brackets)`);
    try {
      docs.push({ value: JSON.parse(chunk), line: startLine });
    } catch (e) {
      const msg = e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
      const pos = /position (\d+)/.exec(msg);
      const at = pos ? ` at line ${startLine + countLines(chunk, Number(pos[1]))}` : '';
      throw new RwxError(
        'INPUT',
        `snapshot ${where}: malformed JSON${at}: ${msg.replace(/ in JSON at position \d+.*$/, '')}`,
      );
    }
  }
  return docs;
}

function yamlDocuments(text: string, name: string): Doc[] {
  const docs: Doc[] = [];
  for (const d of parseAllDocuments(text, { uniqueKeys: false })) {
    const err = d.errors[0];
    if (err) {
      const pos = err.linePos?.[0];
      const what = (err.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      throw new RwxError(
        'INPUT',
        `snapshot ${name}: document ${docs.length + 1}: malformed YAML${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${what}`,
      );
    }
    const line = d.contents?.range ? countLines(text, d.contents.range[0]) + 1 : undefined;
    docs.push(
      line === undefined ? { value: d.toJS({ maxAliasCount: -1 }) } : { value: d.toJS({ maxAliasCount: -1 }), line },
    );
  }
  return docs;
}

function countLines(s: string, upTo: number): number {
  let c = 0;
  for (let i = 0; i < upTo && i < s.length; i++) if (s.charCodeAt(i) === 10) c++;
  return c;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
