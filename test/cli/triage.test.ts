// `rwx triage` end to end, in-process through main(), against --snapshot files (JSON, YAML on stdin) and
// against API servers that fail (unreachable, bad kubeconfig).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { KIND_KEYS } from '../../src/domain/kinds.js';
import type { Snapshot } from '../../src/domain/snapshot.js';
import type { TriageReport } from '../../src/triage/types.js';
import { ManualClock } from '../../src/domain/clock.js';
import { KINDS } from '../../src/domain/kinds.js';
import { NOW, baseCluster, event, healthyClaim, pod, pv, pvc } from '../triage/fixtures.js';

/** Runs the CLI in-process; returns exit code and what it printed. */
async function rwx(argv: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv; now?: number } = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from(opts.stdin === undefined ? [] : [Buffer.from(opts.stdin)]),
    env: opts.env ?? { HOME: dir },
    clock: new ManualClock(opts.now ?? NOW),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/**
 * One `kubectl get KIND -A -o json` List per kind, concatenated; empty kinds as `kubectl get --raw` prints them
 * (a typed "VolumeAttachmentList"), which is how a snapshot says "there are none" (docs/triage-json.md).
 */
function kubectlJson(s: Snapshot): string {
  return KIND_KEYS.map((k) =>
    JSON.stringify(
      {
        apiVersion: 'v1',
        kind: s[k].length ? 'List' : `${KINDS[k].kind}List`,
        metadata: { resourceVersion: '' },
        items: s[k],
      },
      null,
      4,
    ),
  ).join('\n');
}

let dir = '';
let healthy = '';
let strands = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rwx-cli-triage-'));
  const ok = baseCluster();
  healthyClaim(ok, 'shop', 'data');
  healthy = join(dir, 'healthy.json');
  await writeFile(healthy, kubectlJson(ok));

  const s = baseCluster();
  healthyClaim(s, 'shop', 'fine');
  s.pvcs.push(pvc('shop', 'orphan'));
  s.pvcs.push(pvc('shop', 'waiting', { volume: null, sc: 'vmstore-rwx-wffc' }));
  s.pvcs.push(pvc('batch', 'stuck'));
  s.pvs.push(pv('pvc-stuck', { ns: 'batch', name: 'stuck' }));
  s.pods.push(pod('batch', 'stuck-0', { claim: 'stuck', state: 'terminating', deletedAgo: 900 }));
  s.pvcs.push(pvc('batch', 'nomount'));
  s.pvs.push(pv('pvc-nomount', { ns: 'batch', name: 'nomount' }));
  s.pods.push(pod('batch', 'nomount-0', { claim: 'nomount', state: 'creating', node: 'node-02' }));
  s.events.push(
    event(
      'batch',
      'Pod',
      'nomount-0',
      'FailedMount',
      'MountVolume.SetUp failed for volume "pvc-nomount" : mount failed: exit status 32',
    ),
  );
  strands = join(dir, 'strands.json');
  await writeFile(strands, kubectlJson(s));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('rwx triage --snapshot', () => {
  it('exits 0 and prints the table when nothing needs attention', async () => {
    const r = await rwx(['triage', '--snapshot', healthy]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // a snapshot is read as of the newest time it records (the leader's renewal, 5 s before NOW), and says so
    expect(r.stdout).toMatch(
      /^Ages as of 2026-11-30T01:59:55Z, the newest time recorded in the snapshot \(--now TIME to measure against another\)\.\n\nPREFLIGHT\n {4}access {5}ok {7}all 10 resources readable\n/,
    );
    expect(r.stdout).toMatch(/leader {5}ok .*held by vmstore-csi-controller-7d9f-0/);
    expect(r.stdout).toContain('RWX claims examined: 1');
    expect(r.stdout).toMatch(/\[OK\]\n {4}shop\/data +1 pod\(s\) across 1 node\(s\)/);
    expect(r.stdout).toMatch(/claims needing attention: 0\n$/);
  });

  // A snapshot file a few minutes old is not "no leader": its ages are its own, unless --now says otherwise.
  it('measures a snapshot against its own time, or --now when given', async () => {
    const later = NOW + 10 * 60_000;
    const own = await rwx(['triage', '--snapshot', healthy, '-o', 'json'], { now: later });
    const report = JSON.parse(own.stdout) as {
      generatedAt: string;
      timeBasis: string;
      preflight: { check: string; status: string }[];
    };
    expect([report.generatedAt, report.timeBasis]).toEqual(['2026-11-30T01:59:55Z', 'snapshot']);
    expect(report.preflight.find((p) => p.check === 'leader')?.status).toBe('ok');
    const given = await rwx(['triage', '--snapshot', healthy, '--now', new Date(later).toISOString()], { now: later });
    expect(given.stdout).toMatch(/^Ages as of 2026-11-30T02:10:00Z \(--now\)\.\n/);
    expect(given.stdout).toMatch(/leader +problem .*no leader, nothing provisions/);
    expect(given.code).toBe(2);
  });

  it('-o wide adds storage class, driver, volume and nodes to each claim, under a header', async () => {
    const r = await rwx(['triage', '--snapshot', strands, '-o', 'wide']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^ {4}CLAIM +STORAGECLASS +DRIVER +VOLUME +NODES +DETAIL$/m);
    // the failing mount names its node; a claim without a PV shows '-' for what the report does not know
    expect(r.stdout).toMatch(/^ {4}batch\/nomount +vmstore-rwx +\S+ +pvc-nomount +node-02 +\S/m);
    expect(r.stdout).toMatch(/^ {4}shop\/waiting +vmstore-rwx-wffc +\S+ +- +- +\S/m);
    // the plain table has neither the header nor the columns
    const plain = await rwx(['triage', '--snapshot', strands]);
    expect(plain.stdout).not.toContain('STORAGECLASS');
    expect(plain.stdout).not.toMatch(/batch\/nomount +vmstore-rwx /);
  });

  it('exits 2 and groups strands by phase, OK last', async () => {
    const r = await rwx(['triage', '--snapshot', strands]);
    expect(r.code).toBe(2);
    const headers = [...r.stdout.matchAll(/^\[([A-Z_]+)\]$/gm)].map((m) => m[1]);
    expect(headers).toEqual(['BOUND_NO_PV', 'MOUNT_FAILED', 'PENDING_NO_CONSUMER', 'UNPUBLISH_STUCK', 'OK']);
    expect(r.stdout).toMatch(
      /batch\/stuck +terminating: stuck-0 14m past grace, finalizers \[example.com\/drain-guard\]/,
    );
    expect(r.stdout).toMatch(/event {2}FailedMount x7, 55s ago on Pod\/batch\/nomount-0: MountVolume.SetUp failed/);
    expect(r.stdout).toMatch(/next {3}A process in the container/);
    expect(r.stdout).toMatch(/claims needing attention: 3\n$/);
  });

  it('prints the documented JSON with -o json, filtered by namespace', async () => {
    const r = await rwx(['triage', '--snapshot', strands, '-o', 'json', '-n', 'batch']);
    expect(r.code).toBe(2);
    const rep = JSON.parse(r.stdout) as TriageReport;
    expect(rep.schemaVersion).toBe(1);
    expect(rep.filters).toEqual({ namespace: 'batch', driver: null });
    expect(rep.claims.map((c) => [c.namespace, c.name, c.phase])).toEqual([
      ['batch', 'nomount', 'MOUNT_FAILED'],
      ['batch', 'stuck', 'UNPUBLISH_STUCK'],
    ]);
    expect(rep.claims[0]).toHaveProperty('evidence.nodes', [{ name: 'node-02', driverRegistered: true, exists: true }]);
    expect(rep.summary).toMatchObject({ claimsExamined: 2, claimsNeedingAttention: 2, preflightProblems: 0 });
  });

  it('reads multi-document YAML from stdin', async () => {
    const s = baseCluster();
    healthyClaim(s, 'shop', 'data');
    const docs = KIND_KEYS.flatMap((k) => s[k] as object[])
      .map((o) => stringify(o))
      .join('---\n');
    const r = await rwx(['triage', '--snapshot', '-', '--driver', 'csi.vmstore.tintri.com'], { stdin: docs });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('PREFLIGHT (driver csi.vmstore.tintri.com)');
  });

  it('exits 2 when claims could not be read at all', async () => {
    const f = join(dir, 'nodes-only.json');
    await writeFile(f, JSON.stringify({ kind: 'List', items: [{ kind: 'Node', metadata: { name: 'node-01' } }] }));
    const r = await rwx(['triage', '--snapshot', f]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/persistentvolumeclaims \(not in snapshot\): no claim can be classified/);
  });

  it('reports kinds a partial dump lacks instead of guessing', async () => {
    const f = join(dir, 'pvcs-only.json');
    await writeFile(f, JSON.stringify({ kind: 'List', items: [pvc('shop', 'data')] }));
    const r = await rwx(['triage', '--snapshot', f]);
    // BOUND_NO_PV is not decided without PVs, so the claim is not called broken on missing evidence
    expect(r.stdout).toMatch(/NOT DECIDED\n {4}persistentvolumes \(not in snapshot\): BOUND_NO_PV/);
    expect(r.stdout).toMatch(/access {5}unknown {2}volumeattachments not in snapshot: STALE_ATTACHMENT is not decided/);
  });
});

describe('rwx triage errors: one line, exit 1, no stack', () => {
  it.each([
    // an unknown flag
    { name: 'unknown flag', argv: ['triage', '--bogus'], err: /^rwx triage: unknown flag --bogus\n/ },
    // a bad output format
    {
      name: 'bad -o',
      argv: ['triage', '--snapshot', 'x', '-o', 'xml'],
      err: /^rwx triage: --output: xml is not one of table, wide, json, yaml, name\n/,
    },
    // --snapshot with live flags
    {
      name: 'snapshot and context',
      argv: ['triage', '--snapshot', 'x', '--context', 'prod'],
      err: /cannot be combined with --kubeconfig, --context or --request-timeout/,
    },
    // a file that does not exist
    {
      name: 'missing snapshot',
      argv: ['triage', '--snapshot', '/nonexistent/snap.json'],
      err: /^rwx triage: snapshot \/nonexistent\/snap.json: cannot read: no such file\n$/,
    },
    // no kubeconfig anywhere and not in a cluster
    {
      name: 'no kubeconfig',
      argv: ['triage'],
      err: /^rwx triage: no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster\n$/,
    },
  ])('$name', async ({ argv, err }) => {
    const r = await rwx(argv);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(err);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('names the file for a malformed snapshot', async () => {
    const f = join(dir, 'bad.json');
    await writeFile(f, '{"kind": "List", "items": [');
    const r = await rwx(['triage', '--snapshot', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`rwx triage: snapshot ${f}: document 1 (line 1): truncated JSON (unbalanced brackets)\n`);
  });

  it('names the server when the API server is unreachable', async () => {
    const kc = join(dir, 'unreachable.yaml');
    await writeFile(
      kc,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'dead',
        clusters: [{ name: 'dead', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: { token: 'secret-token' } }],
        contexts: [{ name: 'dead', context: { cluster: 'dead', user: 'u' } }],
      }),
    );
    const r = await rwx(['triage', '--kubeconfig', kc]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('rwx triage: cannot reach the API server at https://127.0.0.1:1 (ECONNREFUSED)\n');
    const ctx = await rwx(['triage', '--kubeconfig', kc, '--context', 'nope']);
    expect(ctx.stderr).toBe(`rwx triage: context "nope" not found in ${kc}\n`);
    // KUBECONFIG is honoured when --kubeconfig is absent
    const env = await rwx(['triage'], { env: { HOME: dir, KUBECONFIG: kc } });
    expect(env.stderr).toMatch(/cannot reach the API server at https:\/\/127.0.0.1:1/);
  });
});
