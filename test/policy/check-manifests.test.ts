// The rule against every node plugin manifest, the project's own and (where present) the upstream drivers': each
// node plugin passes as shipped; removing any one
// `mountPropagation: Bidirectional` line fails exactly the mount it belonged to (or nothing, when that mount is
// not a kubelet directory); non-plugin objects are ignored; Windows plugins are skipped; Helm templates are errors.
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { checkObject } from '../../src/policy/check.js';
import { parseManifests } from '../../src/policy/manifests.js';
import { isRwxError } from '../../src/errors.js';
import { describeUpstream, OWN, UPSTREAM, withoutOnePropagationLine, type ManifestSet } from './manifests.js';

type Verdicts = { plugins: Record<string, string[]>; windows: string[]; failures: string[] };

const memo = new Map<string, Verdicts>();

/** The checker's verdicts for a manifest text, keyed like EXPECTED ("Kind name", "container/volumeMount"). */
function verdicts(text: string, file: string): Verdicts {
  const hit = memo.get(text);
  if (hit) return hit;
  const out: Verdicts = { plugins: {}, windows: [], failures: [] };
  for (const { object } of parseManifests(text, file)) {
    const key = `${object.kind} ${object.metadata?.name}`;
    const v = checkObject(object);
    if (v.status === 'skipped') out.windows.push(key);
    if (v.status !== 'checked') continue;
    out.plugins[key] = v.mounts
      .filter((m) => m.propagation === 'Bidirectional')
      .map((m) => `${m.container}/${m.volumeMount}`);
    for (const f of v.violations) out.failures.push(`${key} ${f.rule} ${f.container}/${f.volumeMount}`);
  }
  memo.set(text, out);
  return out;
}

/** Which volumeMount lost its propagation between two texts, found by comparing the parsed trees (not the checker). */
const mountMemo = new Map<string, Map<string, unknown>>();

function mountThatChanged(before: string, after: string): string {
  const mounts = (text: string) => {
    const hit = mountMemo.get(text);
    if (hit) return hit;
    const out = new Map<string, unknown>();
    mountMemo.set(text, out);
    for (const doc of parseAllDocuments(text)) {
      const o = doc.toJS() as {
        kind?: string;
        metadata?: { name?: string };
        spec?: {
          template?: {
            spec?: { containers?: { name: string; volumeMounts?: { name: string; mountPropagation?: string }[] }[] };
          };
        };
      } | null;
      for (const c of o?.spec?.template?.spec?.containers ?? []) {
        for (const m of c.volumeMounts ?? [])
          out.set(`${o?.kind} ${o?.metadata?.name}|${c.name}/${m.name}`, m.mountPropagation);
      }
    }
    return out;
  };
  const a = mounts(before);
  const b = mounts(after);
  const changed = [...a.keys()].filter((k) => a.get(k) !== b.get(k));
  expect(changed).toHaveLength(1);
  return changed[0] ?? '';
}

/** The rule's verdicts over every file of a set, as shipped and with each propagation line removed. */
function checkSet(set: ManifestSet): void {
  const files = set.files();
  const { expected: EXPECTED } = set;
  const readManifest = set.read;

  it('has an expectation for every manifest file (new files must be looked at)', () => {
    expect(files.length).toBe(set.summary.files);
    expect(files.filter((f) => !(f in EXPECTED))).toEqual([]);
  });

  for (const file of files) {
    const exp = EXPECTED[file];
    if (!exp) continue;

    if (exp.helm) {
      // An unrendered template is reported as such, naming the file, never silently passed.
      it(`${file}: unrendered Helm template is an INPUT error`, () => {
        let err: unknown;
        try {
          parseManifests(readManifest(file), file);
        } catch (e) {
          err = e;
        }
        expect(isRwxError(err, 'INPUT')).toBe(true);
        expect((err as Error).message).toMatch(
          new RegExp(`^${file.replace(/\./g, '\\.')}: line \\d+: an unrendered Helm template`),
        );
      });
      continue;
    }

    it(`${file}: passes as shipped; plugins and Windows skips found as expected`, () => {
      const v = verdicts(readManifest(file), file);
      expect(v.failures).toEqual([]);
      expect(v.plugins).toEqual(exp.plugins);
      expect(v.windows).toEqual(exp.windows ?? []);
    });

    const variants = withoutOnePropagationLine(readManifest(file));
    for (const variant of variants) {
      it(`${file}: without the propagation line ${variant.line} fails exactly that mount, if it is a kubelet mount`, () => {
        const [object, mount] = mountThatChanged(readManifest(file), variant.text).split('|') as [string, string];
        const kubeletMount = exp.plugins[object]?.includes(mount) ?? false;
        const v = verdicts(variant.text, file);
        expect(v.failures).toEqual(kubeletMount ? [`${object} NOT_BIDIRECTIONAL ${mount}`] : []);
      });
    }
  }

  it('fails every Bidirectional kubelet mount of every plugin in some removal variant', () => {
    // Guards the loop above: no expected mount escapes the fail case (upstream: 21 mounts in 17 plugins).
    const expected: string[] = [];
    const failed: string[] = [];
    for (const file of files) {
      const exp = EXPECTED[file];
      if (!exp || exp.helm) continue;
      for (const [obj, mounts] of Object.entries(exp.plugins))
        for (const m of mounts) expected.push(`${obj} NOT_BIDIRECTIONAL ${m}`);
      for (const variant of withoutOnePropagationLine(readManifest(file)))
        failed.push(...verdicts(variant.text, file).failures);
    }
    expect(expected).toHaveLength(set.kubeletMounts);
    expect(failed.sort()).toEqual(expected.sort());
  });
}

describe("rwx policy rule on the project's node plugin fixtures", () => checkSet(OWN));
describeUpstream('rwx policy rule on the upstream CSI manifests', () => checkSet(UPSTREAM));
