// Reading manifests: multi-document YAML or JSON, `kubectl get -o yaml` Lists, Helm-rendered output. A Helm
// template that was never rendered is not YAML; we say so for that file instead of guessing at its contents.
import { parseAllDocuments } from 'yaml';
import { RwxError } from '../errors.js';
import type { KubeObject } from '../domain/objects.js';

/** One object read from a manifest, with where it came from. */
export interface ManifestObject {
  /** The file label: a path, "<stdin>" or "cluster". */
  source: string;
  /** 1-based line of the document that holds the object (the List's line for List items). */
  line: number;
  object: KubeObject;
}

const TEMPLATE_ACTION = /\{\{.*\}\}/;

/**
 * Parses manifest text into objects, flattening `kind: *List` items. Throws RwxError('INPUT') naming the file and
 * line for malformed YAML, with a distinct message for an unrendered Helm template (`{{ }}` outside quotes).
 */
export function parseManifests(text: string, source: string): ManifestObject[] {
  const docs = parseAllDocuments(text, { prettyErrors: false });
  const out: ManifestObject[] = [];
  for (const doc of docs) {
    const err = doc.errors[0];
    if (err) {
      const line = lineOf(text, err.pos[0]);
      if (TEMPLATE_ACTION.test(text)) {
        throw new RwxError(
          'INPUT',
          `${source}: line ${line}: an unrendered Helm template ({{ }} is not YAML); ` +
            'render it first, e.g. `helm template RELEASE CHART | rwx policy check -f -`',
        );
      }
      throw new RwxError('INPUT', `${source}: line ${line}: not valid YAML: ${firstLine(err.message)}`);
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    const line = doc.contents ? lineOf(text, doc.contents.range?.[0] ?? 0) : 1;
    collect(value, source, line, out);
  }
  return out;
}

function collect(value: unknown, source: string, line: number, out: ManifestObject[]): void {
  if (value === null || value === undefined) return; // an empty document between two `---`
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new RwxError(
      'INPUT',
      `${source}: line ${line}: expected a Kubernetes object, got ${Array.isArray(value) ? 'a list' : typeof value}`,
    );
  }
  const obj = value as KubeObject;
  if (typeof obj.kind === 'string' && obj.kind.endsWith('List') && Array.isArray(obj.items)) {
    for (const item of obj.items as unknown[]) collect(item, source, line, out);
    return;
  }
  out.push({ source, line, object: obj });
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
