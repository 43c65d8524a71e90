// `rwx capture`: the simulator's cluster written as a file, then read back with --snapshot gives the answers the
// live cluster gave (triage and scan, as of the same time); read-only, with the same access reviews; no Secret
// read; env values of pod templates withheld; a forbidden kind is said on stderr, exit 5, and in the file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/domain/clock.js';
import { jsonDocuments } from '../../src/domain/json-documents.js';
import type { Incident } from '../../src/domain/incident.js';
import type { TriageReport } from '../../src/triage/types.js';
import { scenarioPath, testSim } from '../support/sim.js';
import { runRwx } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'rwx-capture-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rwx = (argv: string[], clock?: ManualClock) => runRwx(argv, { env: { HOME: dir }, ...(clock ? { clock } : {}) });

let n = 0;
/** `rwx capture ARGS > file`: the run and the file's path. */
async function capture(args: string[], clock: ManualClock) {
  const r = await rwx(['capture', ...args], clock);
  const file = join(dir, `capture-${++n}.json`);
  writeFileSync(file, r.stdout);
  return { ...r, file };
}

type EnvEntry = { name?: string; value?: unknown };

/** Every `env` entry anywhere in a parsed document. */
function envEntries(v: unknown, out: EnvEntry[] = []): EnvEntry[] {
  if (Array.isArray(v)) for (const x of v) envEntries(x, out);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if (k === 'env' && Array.isArray(x)) out.push(...(x as EnvEntry[]));
      else envEntries(x, out);
    }
  return out;
}

describe('rwx capture', () => {
  it('triage and scan of the file answer as the live cluster did', async () => {
    const { sim, clock } = await testSim(scenarioPath('propagation-loss'));
    await sim.advance(15 * 60_000); // the rollout has happened: stuck pods, an incident
    const at = new Date(clock.now()).toISOString();
    const cap = await capture(['--kubeconfig', sim.kubeconfigPath], clock);
    expect(cap.code).toBe(0);
    expect(cap.stderr).toMatch(
      new RegExp(`^rwx capture: \\d+ objects of 14 kinds from ${sim.url.replace(/\/$/, '')} at ${at}\\n$`),
    );

    const live = await rwx(['scan', '--kubeconfig', sim.kubeconfigPath, '--now', at, '-o', 'json']);
    const offline = await rwx(['scan', '--snapshot', cap.file, '--now', at, '-o', 'json']);
    const incidents = (r: { stdout: string }) => (JSON.parse(r.stdout) as { incidents: Incident[] }).incidents;
    expect(incidents(live).length).toBeGreaterThan(0);
    expect([offline.code, offline.stderr, incidents(offline)]).toEqual([live.code, '', incidents(live)]);

    const triage = async (argv: string[]) =>
      JSON.parse((await rwx(['triage', ...argv, '-o', 'json'], clock)).stdout) as TriageReport;
    const liveTriage = await triage(['--kubeconfig', sim.kubeconfigPath]);
    const fileTriage = await triage(['--snapshot', cap.file, '--now', at]);
    expect(liveTriage.claims.length).toBeGreaterThan(0);
    expect(fileTriage.claims).toEqual(liveTriage.claims);
    expect(fileTriage.undecided).toEqual([]);

    // read-only: lists and access reviews (one per kind, as triage asks them), nothing else; no Secret read
    const captureRequests = sim.audit.filter((a) => a.method !== 'GET');
    expect(captureRequests.every((a) => a.path.endsWith('/selfsubjectaccessreviews'))).toBe(true);
    expect(sim.audit.some((a) => /\/secrets\b/.test(a.path))).toBe(false);
  });

  it('withholds credential env values (equal ones stay equal), keeps the others, and holds no Secret', async () => {
    // the plugin's template with a credential in its env, as some charts set one
    const text = readFileSync(scenarioPath('propagation-loss'), 'utf8').replaceAll(
      '- {name: CSI_ENDPOINT, value: "unix:/csi/csi.sock"}',
      '- {name: CSI_ENDPOINT, value: "unix:/csi/csi.sock"}\n      - {name: AWS_SECRET_ACCESS_KEY, value: hunter2-key}',
    );
    const scenario = join(dir, 'with-credential.yaml');
    writeFileSync(scenario, text);
    const { sim, clock } = await testSim(scenario);
    const cap = await capture(['--kubeconfig', sim.kubeconfigPath], clock);
    const docs = jsonDocuments(cap.stdout, 'capture').map((d) => d.value as { kind?: string });
    expect(docs[0]).toMatchObject({ apiVersion: 'rwx.dev/v1', kind: 'Capture', unreadable: [] });
    expect(docs.map((d) => d.kind)).not.toContain('SecretList');
    const env = envEntries(docs).filter((e) => typeof e.value === 'string');
    const keys = env.filter((e) => e.name === 'AWS_SECRET_ACCESS_KEY');
    expect(keys.length).toBeGreaterThan(1); // in the DaemonSet and in each revision
    expect(keys.every((e) => /^\(value withheld: [0-9a-f]{16}\)$/.test(e.value as string))).toBe(true);
    expect(new Set(keys.map((e) => e.value)).size).toBe(1); // equal values, one fingerprint
    expect(cap.stdout).not.toContain('hunter2');
    // what the plugin finder reads stays as it is
    expect(env.some((e) => e.name === 'CSI_ENDPOINT' && e.value === 'unix:/csi/csi.sock')).toBe(true);
    expect(sim.audit.some((a) => /\/secrets\b/.test(a.path))).toBe(false);
  });

  it('a forbidden kind: said on stderr, exit 5, and readers of the file say it was forbidden at capture', async () => {
    const { sim, clock } = await testSim(scenarioPath('propagation-loss'));
    sim.faults.forbid('volumeattachments');
    const cap = await capture(['--kubeconfig', sim.kubeconfigPath], clock);
    expect(cap.code).toBe(5);
    expect(cap.stderr).toMatch(
      /^rwx capture: warning: volumeattachments not captured \(forbidden: .*\); the file lacks them\n/,
    );
    // the access reviews the read commands ask: one per kind
    expect(sim.audit.filter((a) => a.path.endsWith('/selfsubjectaccessreviews'))).toHaveLength(14);
    const scan = await rwx(['scan', '--snapshot', cap.file]);
    expect(scan.stderr).toMatch(/rwx scan: warning: volumeAttachments unreadable \(at capture: forbidden: /);
  });

  it('--for diff captures what diff reads, and rwx diff of the file shows the revisions', async () => {
    const { sim, clock } = await testSim(scenarioPath('propagation-loss'));
    await sim.advance(15 * 60_000);
    const cap = await capture(['--kubeconfig', sim.kubeconfigPath, '--for', 'diff'], clock);
    expect(cap.code).toBe(0);
    const lists = sim.audit.filter((a) => a.method === 'GET').map((a) => a.path.split('?')[0]);
    expect(new Set(lists)).toEqual(new Set(['/apis/apps/v1/daemonsets', '/apis/apps/v1/controllerrevisions']));
    const diff = await rwx(['diff', 'ds/ebs-csi-node', '-n', 'kube-system', '--snapshot', cap.file]);
    const live = await rwx(['diff', 'ds/ebs-csi-node', '-n', 'kube-system', '--kubeconfig', sim.kubeconfigPath]);
    expect(live.stdout).toContain('daemonset kube-system/ebs-csi-node revision');
    expect([diff.code, diff.stdout]).toEqual([0, live.stdout]);
    expect((await rwx(['scan', '--snapshot', cap.file])).stderr).toContain(
      'pods unreadable (at capture: not captured (rwx capture --for diff))',
    );
  });

  it('--snapshot is not a flag of capture; a wrong --for is a usage error', async () => {
    expect((await rwx(['capture', '--snapshot', 'x'])).stderr).toContain('unknown flag --snapshot');
    expect((await rwx(['capture', '--for', 'gate'])).stderr).toContain('--for: gate is not one of triage, scan');
  });
});
