// `rwx triage` end to end against the Kubernetes API simulator over HTTP: the same cluster read live and from a
// snapshot gives the same report; RBAC gaps are reported, not fatal; the command stays read-only; and the
// shared scenario of the five RWX strands (scenarios/rwx-strands.yaml) is classified.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { ManualClock } from '../../src/domain/clock.js';
import { KIND_KEYS, KINDS } from '../../src/domain/kinds.js';
import type { Snapshot } from '../../src/domain/snapshot.js';
import { parseScenario, startSimulator, type Simulator } from '@rwx/kube-sim';
import { simSnapshot } from '../support/sim.js';
import type { TriageReport } from '../../src/triage/types.js';
import { NOW, baseCluster, event, healthyClaim, pod, pv, pvc, va } from '../triage/fixtures.js';

const STRANDS = join(import.meta.dirname, '../../scenarios/rwx-strands.yaml');

let sim: Simulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function rwx(argv: string[], clock: ManualClock): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([]),
    env: { HOME: tmpdir() },
    clock,
  };
  return { code: await main(argv, io), stdout, stderr };
}

/** A cluster with one claim per strand the fixtures can express statically. */
function strandCluster(): Snapshot {
  const s = baseCluster();
  healthyClaim(s, 'shop', 'fine');
  s.pvcs.push(pvc('shop', 'waiting', { volume: null, sc: 'vmstore-rwx-wffc' }));
  s.pvcs.push(pvc('shop', 'noprov', { volume: null }));
  s.events.push(
    event('shop', 'PersistentVolumeClaim', 'noprov', 'ProvisioningFailed', 'rpc error: code = Unauthenticated'),
  );
  s.pvcs.push(pvc('batch', 'stuck'));
  s.pvs.push(pv('pvc-stuck', { ns: 'batch', name: 'stuck' }));
  s.pods.push(pod('batch', 'stuck-0', { claim: 'stuck', state: 'terminating', deletedAgo: 900 }));
  healthyClaim(s, 'batch', 'orphaned');
  s.volumeAttachments.push(va('csi-orphan', 'pvc-orphaned', 'node-02'));
  return s;
}

const phases = (r: TriageReport): string[] => r.claims.map((c) => `${c.namespace}/${c.name}=${c.phase}`);

describe('rwx triage against the API simulator', () => {
  it('reports the same claims live as from a snapshot of the same cluster, and only reads', async () => {
    const s = strandCluster();
    const objects = [
      { kind: 'Namespace', metadata: { name: 'shop' } },
      { kind: 'Namespace', metadata: { name: 'batch' } },
      { kind: 'Namespace', metadata: { name: 'vmstore-csi' } },
      ...KIND_KEYS.flatMap((k) => s[k] as object[]),
    ];
    const clock = new ManualClock(NOW);
    sim = await startSimulator({ scenario: parseScenario({ name: 'triage-e2e', objects }), clock });
    const live = await rwx(['triage', '--kubeconfig', sim.kubeconfigPath, '--context', 'sim', '-o', 'json'], clock);
    expect(live.stderr).toBe('');
    expect(live.code).toBe(2);
    const liveReport = JSON.parse(live.stdout) as TriageReport;

    dir = await mkdtemp(join(tmpdir(), 'rwx-triage-sim-'));
    const file = join(dir, 'snap.json');
    const state = simSnapshot(sim);
    await writeFile(
      file,
      KIND_KEYS.map((k) => JSON.stringify({ kind: `${KINDS[k].kind}List`, items: state[k] })).join('\n'),
    );
    const offline = JSON.parse((await rwx(['triage', '--snapshot', file, '-o', 'json'], clock)).stdout) as TriageReport;

    expect(phases(liveReport)).toEqual(phases(offline));
    expect(phases(liveReport)).toEqual(
      expect.arrayContaining([
        'batch/orphaned=STALE_ATTACHMENT',
        'batch/stuck=UNPUBLISH_STUCK',
        'shop/noprov=PROVISION_FAILED',
        'shop/waiting=PENDING_NO_CONSUMER',
      ]),
    );
    expect(
      liveReport.preflight
        .filter((p) => p.check === 'access')
        .every((p) => p.status === 'ok' && p.detail === 'list allowed'),
    ).toBe(true);
    // read-only: lists and access reviews, nothing else
    expect(sim.audit.every((a) => a.method === 'GET' || a.path.endsWith('/selfsubjectaccessreviews'))).toBe(true);
  });

  it('reports a forbidden resource and goes on with what it can read', async () => {
    const s = strandCluster();
    const clock = new ManualClock(NOW);
    sim = await startSimulator({
      scenario: parseScenario({
        name: 'triage-rbac',
        objects: KIND_KEYS.flatMap((k) => s[k] as object[]),
        permissions: { deny: [{ resource: 'volumeattachments' }] },
      }),
      clock,
    });
    sim.faults.forbid('volumeattachments');
    const r = await rwx(['triage', '--kubeconfig', sim.kubeconfigPath], clock);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /access {5}unknown {2}volumeattachments list not allowed: STALE_ATTACHMENT is not decided/,
    );
    expect(r.stdout).toMatch(/NOT DECIDED\n {4}volumeattachments/);
    expect(r.stdout).toMatch(/\[OK\]\n(.*\n)*? {4}batch\/orphaned/);
  });

  it('fails with one line on expired credentials', async () => {
    const clock = new ManualClock(NOW);
    sim = await startSimulator({ scenario: parseScenario({ name: 'triage-401', objects: [] }), clock });
    sim.faults.unauthorized();
    const r = await rwx(['triage', '--kubeconfig', sim.kubeconfigPath], clock);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`rwx triage: ${sim.url}: credentials rejected (expired?)\n`);
  });

  // The simulator's library scenario of the five strands (issue 3), with the expected triage from its header.
  // Strand 4 (I/O errors on a healthy mount) is invisible to the API, so web/sessions is OK.
  it.skipIf(!existsSync(STRANDS))('classifies the five-strand scenario', async () => {
    const clock = new ManualClock(NOW);
    sim = await startSimulator({ scenario: STRANDS, clock });
    const r = await rwx(['triage', '--kubeconfig', sim.kubeconfigPath, '-o', 'json'], clock);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const rep = JSON.parse(r.stdout) as TriageReport;
    expect(phases(rep)).toEqual([
      'legacy/reports=BOUND_NO_PV',
      'archive/old-logs=LOST',
      'media/assets=MOUNT_FAILED',
      'analytics/scratch=PENDING_NO_CONSUMER',
      'ci/build-cache=PROVISION_FAILED',
      'shared/home=STALE_ATTACHMENT',
      'ml/datasets=UNPUBLISH_STUCK',
      'shared/tools=OK',
      'web/sessions=OK',
    ]);
    const claim = (ns: string, name: string) => rep.claims.find((c) => c.namespace === ns && c.name === name)!;
    expect(claim('media', 'assets').evidence.nodes).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'node-06', driverRegistered: false })]),
    );
    expect(claim('ml', 'datasets').evidence.pods[0]?.finalizers?.length).toBeGreaterThan(0);
    expect(claim('shared', 'home').evidence.attachments.map((a) => a.node)).toEqual(['node-04']);
    expect(claim('analytics', 'scratch').needsAttention).toBe(false);
    const check = (c: string) => rep.preflight.find((p) => p.check === c)!;
    expect(check('leader')).toMatchObject({
      status: 'problem',
      detail: expect.stringMatching(/vmstore-csi-tintri-com .* last renewed 47m ago/),
    });
    expect(check('csinode')).toMatchObject({ status: 'problem', nodes: ['node-06'] });
    expect(check('csidriver').status).toBe('ok');
  });
});
