// Help and summaries say what the command does: `rwx diff -n` picks the DaemonSet's namespace (diff reads no
// workload objects), and `policy check --cluster` checked the cluster, not "1 file(s)".
import { describe, expect, it } from 'vitest';
import { scenarioPath, testSim } from '../support/sim.js';
import { runRwx } from './run.js';

const rwx = (argv: string[]) => runRwx(argv);

describe('words of the CLI', () => {
  it("rwx diff --help: -n and -A are about the DaemonSet's namespace", async () => {
    const { stdout } = await rwx(['diff', '--help']);
    expect(stdout).toMatch(
      /-n, --namespace NS +the DaemonSet's namespace \(default: the kubeconfig context's namespace/,
    );
    expect(stdout).toMatch(/-A, --all-namespaces +look for the DaemonSet in every namespace/);
    expect(stdout).not.toContain('only workload objects');
  });

  it('policy check --cluster says it checked the cluster', async () => {
    const { sim } = await testSim(scenarioPath('propagation-loss'));
    const r = await rwx(['policy', 'check', '--cluster', '--kubeconfig', sim.kubeconfigPath]);
    expect(r.stdout).toMatch(
      /\n\d+ CSI node plugin\(s\) checked in the cluster: \d+ violation\(s\), 0 Windows plugin\(s\) skipped\n$/,
    );
    expect(r.stdout).not.toContain('file(s)');
  });

  it('every read command takes --request-timeout; --kubeconfig-less policy check -f refuses it', async () => {
    for (const c of ['triage', 'scan', 'drain-check', 'diff', 'policy', 'node'])
      expect((await rwx([c, '--help'])).stdout).toContain('--request-timeout DURATION');
    const r = await rwx(['policy', 'check', '-f', '-', '--request-timeout', '5s']);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('only apply with --cluster')]);
  });
});
