// Snapshot files: whatever `kubectl get ... -o json` or `-o yaml` printed, possibly several outputs concatenated
// (`kubectl get pods -A -o json; kubectl get pv -o json`), or multi-document YAML, with mixed kinds.
//
// Absent kinds: a file with no object of a kind, and no typed wrapper for it (a `PodList` from the raw API),
// cannot prove the cluster has none (a dump of pods only says nothing about VolumeAttachments), so such kinds
// are listed in `unreadable` with reason 'not in snapshot' and readers report what they could not decide.
// kubectl prints an empty result as a plain `List` with no items: that proves nothing either, so it is the same.
import { jsonDocuments, looksLikeJson } from '../domain/json-documents.js';
import { RwxError } from '../errors.js';
import { KIND_KEYS, kindKeyOf, type KindKey } from '../domain/kinds.js';
import { emptySnapshot, type Snapshot } from '../domain/snapshot.js';
import { isCaptureHeader } from './capture.js';
import { readInputText } from './input.js';
import { project } from './project.js';

/** Reason recorded in `unreadable` for kinds a snapshot file does not contain. */
export const NOT_IN_SNAPSHOT = 'not in snapshot';

/**
 * Reads a snapshot file (or stdin for '-'), refusing one over the input cap (src/kube/input-limit.ts) before
 * reading it; throws one-line RwxError('INPUT') naming the file on any problem.
 */
export async function loadSnapshotFile(path: string, stdin: NodeJS.ReadableStream): Promise<Snapshot> {
  const name = path === '-' ? '(stdin)' : path;
  return parseSnapshotText(await readInputText(path, stdin, `snapshot ${name}`), name);
}

/** Parses snapshot text (JSON stream or YAML documents); `name` is used in error messages. */
export async function parseSnapshotText(text: string, name: string): Promise<Snapshot> {
  const label = `snapshot ${name}`;
  // The YAML library is loaded only for YAML: loading it takes longer than reading a small JSON snapshot.
  const docs = looksLikeJson(text, label)
    ? jsonDocuments(text, label)
    : (await import('../domain/documents.js')).parseDocuments(text, label);
  const snap = emptySnapshot();
  const seen = new Set<KindKey>();
  // A file `rwx capture` wrote says why a kind is missing (forbidden, not asked for): kept as the reason.
  const atCapture = new Map<KindKey, string>();
  docs.forEach((doc, i) => {
    if (isCaptureHeader(doc.value)) {
      for (const u of doc.value.unreadable) atCapture.set(u.kind, `at capture: ${u.reason}`);
    } else addDocument(snap, seen, doc.value, `${name}: document ${i + 1} (line ${doc.line})`);
  });
  for (const k of KIND_KEYS)
    if (!seen.has(k)) snap.unreadable.push({ kind: k, reason: atCapture.get(k) ?? NOT_IN_SNAPSHOT });
  return snap;
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
