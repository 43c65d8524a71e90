// Table tests of the rule on small synthetic objects: each case isolates one clause of docs/policy.md.
import { describe, expect, it } from 'vitest';
import { checkObject } from '../../src/policy/check.js';
import { parseManifests } from '../../src/policy/manifests.js';
import type { KubeObject } from '../../src/domain/objects.js';
import { CASES } from './cases.js';
import { isRwxError } from '../../src/errors.js';

/** Short form of a verdict: status, then "rule container/volumeMount" per violation. */
function verdict(obj: KubeObject): string {
  const v = checkObject(obj);
  if (v.status !== 'checked') return v.status;
  return v.violations.length === 0
    ? 'pass'
    : v.violations.map((x) => `${x.rule} ${x.container ?? ''}/${x.volumeMount ?? ''}`).join('; ');
}

describe('checkObject', () => {
  for (const [name, obj, want] of CASES) it(name, () => expect(verdict(obj)).toBe(want));
});

describe('parseManifests', () => {
  // kubectl get -o yaml wraps objects in a List
  it('flattens Lists', () => {
    const objs = parseManifests(
      'apiVersion: v1\nkind: List\nitems:\n- kind: DaemonSet\n  metadata: {name: a}\n- kind: Service\n',
      'f',
    );
    expect(objs.map((o) => o.object.kind)).toEqual(['DaemonSet', 'Service']);
  });
  // JSON is YAML; empty documents are skipped; lines point at each document
  it('reads JSON and multi-document YAML with lines', () => {
    const objs = parseManifests('---\n# c\n---\nkind: A\n---\n{"kind": "B"}\n', 'f');
    expect(objs.map((o) => `${o.object.kind}@${o.line}`)).toEqual(['A@4', 'B@6']);
  });
  // malformed YAML without {{ }} is a plain INPUT error naming the line
  it('rejects malformed YAML', () => {
    expect(() => parseManifests('kind: A\n  bad: [\n', 'x.yaml')).toThrow(
      /^x\.yaml: document 1: malformed YAML at line \d+/,
    );
  });
  // a scalar document is not an object
  it('rejects scalars', () => {
    try {
      parseManifests('hello\n', 'x.yaml');
    } catch (e) {
      expect(isRwxError(e, 'INPUT')).toBe(true);
      return;
    }
    expect.unreachable();
  });
});
