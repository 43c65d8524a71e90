// What the read commands accept as input files: `policy check -f` reads what `--snapshot` reads (concatenated JSON,
// JSON arrays, YAML documents, Lists) through the same reader; an input over the documented size cap is refused
// before it is read (a file by its size, stdin as soon as the cap is passed); a file with no CSI node plugin in it
// says so, and `--require-plugin` makes that a failure.
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { isRwxError } from '../../src/errors.js';
import { readInputText } from '../../src/kube/input.js';
import { SNAPSHOT_MAX_BYTES, SNAPSHOT_MAX_MB } from '../../src/kube/input-limit.js';
import { OWN } from '../policy/manifests.js';

const dir = mkdtempSync(join(tmpdir(), 'rwx-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EBS = 'ebs-csi-node.yaml';
const readManifest = OWN.read;
const MANIFEST_DIR = OWN.dir();

async function rwx(argv: string[], stdin: Readable = Readable.from([])) {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin,
    env: {},
  };
  return { code: await main(argv, io), out, err };
}

/** The EBS node plugin DaemonSet (and what else its manifest holds) as JSON objects. */
const ebsObjects = (): unknown[] =>
  readManifest(EBS)
    .split(/^---$/m)
    .map((d) => parse(d) as unknown)
    .filter(Boolean);

describe('rwx policy check -f reads what --snapshot reads', () => {
  it.each([
    // two `kubectl get -o json` outputs back to back
    {
      name: 'concatenated JSON',
      text: () =>
        ebsObjects()
          .map((o) => JSON.stringify(o, null, 2))
          .join('\n'),
    },
    // a JSON array
    { name: 'a JSON array', text: () => JSON.stringify(ebsObjects()) },
    // kubectl get -o json: a List
    { name: 'a List', text: () => JSON.stringify({ apiVersion: 'v1', kind: 'List', items: ebsObjects() }) },
  ])('$name', async ({ text }) => {
    const f = join(dir, 'in.json');
    writeFileSync(f, text());
    const r = await rwx(['policy', 'check', '-f', f]);
    expect(r.err).toBe('');
    expect([r.code, r.out]).toEqual([0, expect.stringContaining('1 CSI node plugin(s) checked in 1 file(s)')]);
  });

  it('names the file and line of malformed JSON, as --snapshot does', async () => {
    const f = join(dir, 'bad.json');
    writeFileSync(f, `${JSON.stringify(ebsObjects()[0])}\n{"kind": "DaemonSet",\n  "metadata": {name: 1}}\n`);
    const policy = await rwx(['policy', 'check', '-f', f]);
    expect(policy.out).toMatch(/ERROR +\S+bad\.json .* document 2 \(line 2\): malformed JSON at line 3/);
    const snapshot = await rwx(['triage', '--snapshot', f]);
    expect(snapshot.err).toMatch(/snapshot \S+bad\.json: document 2 \(line 2\): malformed JSON at line 3/);
  });
});

describe('a file with no CSI node plugin in it', () => {
  const services = join(dir, 'services.yaml');
  writeFileSync(services, 'kind: Service\nmetadata: {name: a}\n---\nkind: ConfigMap\nmetadata: {name: b}\n');

  it('says so on stderr, exit 0', async () => {
    const r = await rwx(['policy', 'check', '-f', services, '-f', join(MANIFEST_DIR, EBS)]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      `rwx policy: ${services}: no CSI node plugin in it, so nothing was checked (--require-plugin makes this a failure)\n`,
    );
  });

  it('--require-plugin makes it exit 2 (a CI gate pointed at the wrong file fails)', async () => {
    const r = await rwx(['policy', 'check', '--require-plugin', '-f', services, '-f', join(MANIFEST_DIR, EBS)]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`rwx policy: ${services}: no CSI node plugin in it, so nothing was checked\n`);
    const ok = await rwx(['policy', 'check', '--require-plugin', '-f', join(MANIFEST_DIR, EBS)]);
    expect([ok.code, ok.err]).toEqual([0, '']);
  });
});

describe(`inputs over the ${SNAPSHOT_MAX_MB} MB cap`, () => {
  it('a file is refused by its size, before it is read', async () => {
    // a sparse file: reading it would take seconds and gigabytes; stat says its size at once
    const f = join(dir, 'huge.json');
    const fd = openSync(f, 'w');
    ftruncateSync(fd, SNAPSHOT_MAX_BYTES + 100 * 1024 * 1024);
    closeSync(fd);
    const msg = `is over the ${SNAPSHOT_MAX_MB} MB input limit; read fewer kinds or one namespace at a time\n`;
    const triage = await rwx(['triage', '--snapshot', f]);
    expect([triage.code, triage.err]).toEqual([1, `rwx triage: snapshot ${f}: ${SNAPSHOT_MAX_MB + 100} MB ${msg}`]);
    const policy = await rwx(['policy', 'check', '-f', f]);
    expect(policy.out).toContain(`${SNAPSHOT_MAX_MB + 100} MB is over the ${SNAPSHOT_MAX_MB} MB input limit`);
  });

  it('stdin is counted as it arrives and refused once past the cap (an endless stream ends)', async () => {
    let sent = 0;
    const endless = new Readable({
      read() {
        sent += 64 * 1024;
        this.push(Buffer.alloc(64 * 1024, 0x20));
      },
    });
    try {
      await readInputText('-', endless, 'snapshot (stdin)', 1024 * 1024);
      expect.unreachable();
    } catch (e) {
      expect(isRwxError(e, 'INPUT')).toBe(true);
      expect((e as Error).message).toBe(
        'snapshot (stdin): more than 1 MB is over the 1 MB input limit; read fewer kinds or one namespace at a time',
      );
    }
    expect(sent).toBeLessThan(2 * 1024 * 1024);
  });
});
