// `rwx scan` end to end on the rollout incident's snapshot, in-process through main().
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import type { Incident } from '../../src/domain/incident.js';
import { startSimulator } from '@rwx/kube-sim';
import { rolloutObjects } from '../correlate/rollout-fixture.js';
import { rwx, writeSnapshot } from '../correlate/cli-run.js';

const NOW = '2026-11-30T09:15:00Z';

describe('rwx scan', () => {
  const rolloutFile = writeSnapshot(rolloutObjects());

  it('prints the rollout incident and exits 2', async () => {
    const r = await rwx('scan', '--snapshot', rolloutFile, '--now', NOW);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('[FOLLOWS_ROLLOUT] rollout/kube-system/ebs-csi-node@2');
    expect(r.stdout).toContain('kubelet-dir: mountPropagation Bidirectional -> none');
    expect(r.stdout).toMatch(/node-19\s+ebs-csi-node-node-19\s+2\s+2h12m\s+platform\/postgres-2/);
    expect(r.stdout).toContain('data/nightly-backup  "0 2 * * *": 2 missed runs');
    expect(r.stdout).toContain('node-19  BLOCK  Do not drain');
  });

  it('-o wide adds the driver, DaemonSet and revision, and per node the DaemonSet, plugin start and pod counts', async () => {
    const r = await rwx('scan', '--snapshot', rolloutFile, '--now', NOW, '-o', 'wide');
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('  Driver: ebs.csi.aws.com  DaemonSet: kube-system/ebs-csi-node  Revision: 2\n');
    expect(r.stdout).toMatch(
      /NODE +DAEMONSET +PLUGIN +REVISION +PLUGIN AGE +PLUGIN STARTED +STUCK +RUNNING +STUCK PODS/,
    );
    expect(r.stdout).toMatch(
      /node-19 +kube-system\/ebs-csi-node +ebs-csi-node-node-19 +2 +2h12m +2026-11-30T07:03:00.000Z +1 +0 +platform\/postgres-2/,
    );
    expect(r.stdout).toMatch(
      /node-02 +kube-system\/ebs-csi-node +ebs-csi-node-node-02 +1 +26d +\S+ +0 +1 +- +search\//,
    );
    // everything the table says, wide says too
    expect(r.stdout).toContain('node-19  BLOCK  Do not drain');
    const plain = await rwx('scan', '--snapshot', rolloutFile, '--now', NOW);
    expect(plain.stdout).not.toContain('DAEMONSET');
    expect(plain.stdout).not.toContain('Driver: ');
  });

  it('-o json prints the incidents', async () => {
    const r = await rwx('scan', '--snapshot', rolloutFile, '--now', NOW, '-o', 'json');
    const out = JSON.parse(r.stdout) as { incidents: Incident[] };
    expect(out.incidents.map((i) => [i.key, i.verdict])).toEqual([
      ['rollout/kube-system/ebs-csi-node@2', 'FOLLOWS_ROLLOUT'],
    ]);
  });

  it('exits 0 when nothing is stuck (a later --stuck-after)', async () => {
    // no pod has waited 8 hours, and with the CronJob suspended nothing else is left
    const suspended = rolloutObjects().map((o) =>
      o.kind === 'CronJob' ? { ...o, spec: { ...(o as { spec?: object }).spec, suspend: true } } : o,
    );
    const r = await rwx('scan', '--snapshot', writeSnapshot(suspended), '--now', NOW, '--stuck-after', '8h');
    expect([r.code, r.stdout]).toEqual([0, 'No incidents: no stuck pods and no missed CronJob runs.\n']);
  });

  it('cannot tell (exit 5) when a kind it reads is missing: no CronJobs in the file is not "no missed runs"', async () => {
    const r = await rwx(
      'scan',
      '--snapshot',
      writeSnapshot(rolloutObjects().filter((o) => o.kind !== 'CronJob')),
      '--now',
      NOW,
      '--stuck-after',
      '8h',
    );
    expect(r.code).toBe(5);
    expect(r.stdout).toBe(
      'Cannot tell whether there are incidents: none found in what could be read.\n' +
        'Incomplete view. Could not read cronJobs (not in snapshot), which leaves undecided which CronJobs missed their scheduled runs.\n',
    );
  });

  it.each([
    // a malformed duration
    [['--stuck-after', 'soon'], /--stuck-after: soon is not a positive duration/],
    // a bad override
    [['--plugin', 'nfs'], /--plugin: nfs is not DRIVER=NAMESPACE\/DAEMONSET/],
    // bad output format
    [['-o', 'xml'], /--output: xml is not one of table, wide, json, yaml, name/],
    // a missing file
    [['--snapshot', '/nonexistent/x.json'], /snapshot \/nonexistent\/x.json: cannot read/],
  ])('%j is a one-line error, exit 1', async (args, msg) => {
    const r = await rwx(
      'scan',
      ...(args.includes('--snapshot') ? [] : ['--snapshot', rolloutFile]),
      ...args,
      '--now',
      NOW,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(msg);
  });
});

describe('rwx scan against the simulator over HTTP', () => {
  it('reads the propagation-loss scenario through --kubeconfig and finds the rollout', async () => {
    const sim = await startSimulator({
      scenario: 'scenarios/propagation-loss.yaml',
      clock: new ManualClock(Date.parse(NOW)),
    });
    try {
      const r = await rwx('scan', '--kubeconfig', sim.kubeconfigPath, '--now', NOW, '-o', 'json');
      const out = JSON.parse(r.stdout) as { incidents: Incident[] };
      expect([r.code, out.incidents.map((i) => i.key)]).toEqual([2, ['rollout/kube-system/ebs-csi-node@2']]);
    } finally {
      await sim.stop();
    }
  });
});
