// Reading manifests: multi-document YAML or JSON, `kubectl get -o yaml` Lists, Helm-rendered output. A Helm
// template that was never rendered is not YAML; we say so for that file instead of guessing at its contents.
import { parseDocuments } from '../domain/documents.js';
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
 * Parses manifest text into objects, flattening `kind: *List` items and JSON arrays; reads what `--snapshot` reads
 * (src/domain/documents.ts: YAML documents, concatenated JSON). Throws RwxError('INPUT') naming the file and line,
 * with a distinct message for an unrendered Helm template (`{{ }}` where YAML or JSON cannot be parsed).
 */
export function parseManifests(text: string, source: string): ManifestObject[] {
  const helm = (line: number) =>
    TEMPLATE_ACTION.test(text)
      ? new RwxError(
          'INPUT',
          `${source}: line ${line}: an unrendered Helm template ({{ }} is not YAML); ` +
            'render it first, e.g. `helm template RELEASE CHART | rwx policy check -f -`',
        )
      : undefined;
  const out: ManifestObject[] = [];
  for (const doc of parseDocuments(text, source, { syntaxError: helm })) collect(doc.value, source, doc.line, out);
  return out;
}

function collect(value: unknown, source: string, line: number, out: ManifestObject[]): void {
  if (value === null || value === undefined) return; // an empty document between two `---`
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) collect(item, source, line, out);
    return;
  }
  if (typeof value !== 'object')
    throw new RwxError('INPUT', `${source}: line ${line}: expected a Kubernetes object, got ${typeof value}`);
  const obj = value as KubeObject;
  if (typeof obj.kind === 'string' && obj.kind.endsWith('List') && Array.isArray(obj.items)) {
    for (const item of obj.items as unknown[]) collect(item, source, line, out);
    return;
  }
  out.push({ source, line, object: obj });
}
