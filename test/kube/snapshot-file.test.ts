import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRwxError } from '../../src/errors.js';
import { NOT_IN_SNAPSHOT, loadSnapshotFile, parseSnapshotText } from '../../src/kube/snapshot-file.js';

const list = (items: unknown[], kind = 'List'): string =>
  JSON.stringify({ apiVersion: 'v1', kind, metadata: { resourceVersion: '' }, items }, null, 4);
const podJson = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: 'shop', managedFields: [{}] },
  spec: { nodeName: 'n1' },
};
const pvJson = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pv-1' },
  spec: { csi: { driver: 'd', volumeHandle: 'h' } },
};

/** The one-line INPUT error a text produces. */
async function inputError(text: string, name = 'snap.json'): Promise<string> {
  try {
    await parseSnapshotText(text, name);
  } catch (e) {
    if (!isRwxError(e, 'INPUT')) throw e;
    expect(e.message).not.toContain('\n');
    return e.message;
  }
  throw new Error('expected an INPUT error');
}

describe('parseSnapshotText', () => {
  it.each([
    // kubectl get pods -A -o json: a List with kinds on items
    { name: 'one List', text: list([podJson]), pods: 1, pvs: 0 },
    // two kubectl outputs concatenated
    { name: 'concatenated Lists', text: `${list([podJson])}\n${list([pvJson])}\n`, pods: 1, pvs: 1 },
    // kubectl get pod web-0 -o json: a single object
    { name: 'single objects', text: `${JSON.stringify(podJson)}${JSON.stringify(pvJson)}`, pods: 1, pvs: 1 },
    // a raw API list: kind on the list, not on the items
    {
      name: 'raw API PodList',
      text: JSON.stringify({ kind: 'PodList', items: [{ metadata: { name: 'a', namespace: 'x' } }] }),
      pods: 1,
      pvs: 0,
    },
    // a JSON array of objects
    { name: 'JSON array', text: JSON.stringify([podJson, pvJson]), pods: 1, pvs: 1 },
    // kubectl -o yaml, several documents, one empty, mixed and unknown kinds
    {
      name: 'multi-document YAML',
      text: 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: web-0\n    namespace: shop\n---\n---\nkind: PersistentVolume\nmetadata:\n  name: pv-1\n---\nkind: ConfigMap\nmetadata:\n  name: cm\n',
      pods: 1,
      pvs: 1,
    },
    // strings containing braces and escaped quotes do not confuse the JSON splitter
    {
      name: 'braces in strings',
      text:
        JSON.stringify({ ...podJson, metadata: { name: 'w', namespace: 's', annotations: { a: '}{ "\\"' } } }) +
        JSON.stringify(pvJson),
      pods: 1,
      pvs: 1,
    },
  ])('$name', async ({ text, pods, pvs }) => {
    const s = await parseSnapshotText(text, 'snap');
    expect(s.pods).toHaveLength(pods);
    expect(s.pvs).toHaveLength(pvs);
    if (pods) expect(s.pods[0]!.metadata).not.toHaveProperty('managedFields');
  });

  it('marks kinds the file does not contain as unreadable, and an empty typed list as present', async () => {
    const s = await parseSnapshotText(
      `${list([podJson])}${JSON.stringify({ kind: 'VolumeAttachmentList', items: [] })}${list([])}`,
      'snap',
    );
    const missing = s.unreadable.map((u) => u.kind);
    expect(missing).not.toContain('pods');
    expect(missing).not.toContain('volumeAttachments');
    expect(missing).toContain('leases');
    expect(missing).toContain('pvs');
    expect(s.unreadable.every((u) => u.reason === NOT_IN_SNAPSHOT)).toBe(true);
  });

  it.each([
    // truncated output (kubectl interrupted)
    {
      name: 'truncated JSON',
      text: '{"kind":"List","items":[{"kind":"Pod"',
      msg: /snap.json: document 1 \(line 1\): truncated JSON/,
    },
    // a syntax error on line 3 of the second document
    {
      name: 'malformed JSON',
      text: `${list([podJson])}\n{\n  "kind": "Pod",\n  "metadata": {name: 1}\n}`,
      msg: /document 2 \(line \d+\): malformed JSON at line \d+/,
    },
    // a log line pasted into the file
    {
      name: 'garbage after JSON',
      text: `${list([podJson])}\nerror: the server doesn't have a resource type "foo"`,
      msg: /line \d+: expected a JSON object or array/,
    },
    // YAML with a bad indentation
    {
      name: 'malformed YAML',
      text: 'kind: Pod\nmetadata:\n  name: a\n   namespace: b\n',
      msg: /document 1: malformed YAML at line \d/,
    },
    // a scalar document
    { name: 'scalar YAML', text: 'just text\n', msg: /document 1 \(line 1\): not a Kubernetes object or List/ },
    // an item without kind in a plain List
    {
      name: 'item without kind',
      text: list([{ metadata: { name: 'a' } }]),
      msg: /document 1 \(line 1\), item 1: object has no kind/,
    },
    // an object without a name
    {
      name: 'object without name',
      text: list([{ kind: 'Pod', metadata: { namespace: 'x' } }]),
      msg: /item 1: Pod has no metadata.name/,
    },
    // an empty file
    { name: 'empty', text: '  \n', msg: /snap.json: file is empty/ },
  ])('rejects $name with one line', async ({ text, msg }) => {
    expect(await inputError(text)).toMatch(msg);
  });
});

describe('loadSnapshotFile', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rwx-snap-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file and stdin', async () => {
    const f = join(dir, 'pods.json');
    await writeFile(f, list([podJson]));
    expect(await loadSnapshotFile(f, Readable.from([]))).toMatchObject({ pods: [{ metadata: { name: 'web-0' } }] });
    expect((await loadSnapshotFile('-', Readable.from([Buffer.from(list([pvJson]))]))).pvs).toHaveLength(1);
  });

  it('names a missing file', async () => {
    await expect(loadSnapshotFile(join(dir, 'nope.json'), Readable.from([]))).rejects.toThrow(
      /snapshot .*nope.json: cannot read: no such file/,
    );
  });
});
