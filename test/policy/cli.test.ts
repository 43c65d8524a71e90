// `rwx policy check` end to end, in-process through main(): inputs, output formats and exit codes.
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { describeUpstream, OWN, UPSTREAM, withoutOnePropagationLine, type ManifestSet } from './manifests.js';
import { startGateSim } from '../gate/sim.js';

const EBS = 'ebs-csi-node.yaml';
const HELM = 'helm-template-node.yaml';
const readManifest = OWN.read;
const MANIFEST_DIR = OWN.dir();

/** Runs `rwx ...argv` with `stdin` text; returns exit code and what it printed. */
async function rwx(argv: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: Readable.from([stdin]),
    env: {},
  };
  const code = await main(argv, io);
  return { code, out, err };
}

describe('rwx policy check', () => {
  it('passes a node plugin with exit 0 and an ok row per Bidirectional mount', async () => {
    const r = await rwx(['policy', 'check', '-f', join(MANIFEST_DIR, EBS)]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^ok +\S+ebs-csi-node\.yaml:3 +DaemonSet ebs-csi-node +ebs-plugin +kubelet-dir +hostPath \/var\/lib\/kubelet Bidirectional$/m,
    );
    expect(r.out).toContain('1 CSI node plugin(s) checked in 1 file(s): 0 violation(s)');
  });

  it('fails the propagation-less variant from stdin with exit 2, naming object, container, volumeMount and fix', async () => {
    const variant = withoutOnePropagationLine(readManifest(EBS))[0]?.text ?? '';
    const r = await rwx(['policy', 'check', '-f', '-'], variant);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(
      /^FAIL +<stdin>:3 +DaemonSet ebs-csi-node +ebs-plugin +kubelet-dir +hostPath \/var\/lib\/kubelet has propagation None: set mountPropagation: Bidirectional on volumeMount "kubelet-dir" of container "ebs-plugin"$/m,
    );
  });

  it('prints JSON with -o json', async () => {
    const variant = withoutOnePropagationLine(readManifest(EBS))[0]?.text ?? '';
    const r = await rwx(['policy', 'check', '-f', '-', '-o', 'json'], variant);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.out) as { summary: Record<string, number>; results: Record<string, unknown>[] };
    expect(report.summary).toEqual({ files: 1, plugins: 1, violations: 1, skipped: 0, errors: 0 });
    expect(report.results).toEqual([
      {
        result: 'fail',
        file: '<stdin>',
        line: 3,
        kind: 'DaemonSet',
        name: 'ebs-csi-node',
        rule: 'NOT_BIDIRECTIONAL',
        container: 'ebs-plugin',
        volumeMount: 'kubelet-dir',
        hostPath: '/var/lib/kubelet',
        mountPath: '/var/lib/kubelet',
        propagation: 'None',
        fix: 'set mountPropagation: Bidirectional on volumeMount "kubelet-dir" of container "ebs-plugin"',
      },
    ]);
  });

  it('reads a `kubectl get -o json` List', async () => {
    const items = parseAllDocuments(readManifest(EBS)).map((d) => d.toJS() as unknown);
    const r = await rwx(['policy', 'check', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    expect(r.code).toBe(0);
    expect(r.out).toContain('DaemonSet ebs-csi-node');
  });

  it('reports an unrendered Helm template as an error row and exits 1, still checking the other files', async () => {
    const r = await rwx(['policy', 'check', '-f', join(MANIFEST_DIR, HELM), '-f', join(MANIFEST_DIR, EBS)]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^ERROR +\S+helm-template-node\.yaml +- +- +- +line \d+: an unrendered Helm template/m);
    expect(r.out).toMatch(/^ok +\S+ebs-csi-node\.yaml:3 /m);
  });

  it('says so when nothing is a node plugin', async () => {
    const r = await rwx(['policy', 'check', '-f', '-'], 'kind: ConfigMap\nmetadata: {name: x}\n');
    expect(r.code).toBe(0);
    expect(r.out).toContain('no CSI node plugins found');
  });

  // Flag errors are one line and exit 1.
  const usage: [string, string[], RegExp][] = [
    ['no input', ['policy', 'check'], /give -f FILE/],
    ['no subcommand', ['policy'], /expected `rwx policy check`/],
    ['bad output', ['policy', 'check', '-f', '-', '-o', 'xml'], /--output: xml is not one of table, json, yaml/],
    ['both inputs', ['policy', 'check', '-f', '-', '--cluster'], /cannot be combined/],
    ['unknown flag', ['policy', 'check', '--bogus'], /bogus/],
  ];
  for (const [name, argv, msg] of usage) {
    it(`usage: ${name}`, async () => {
      const r = await rwx(argv);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(msg);
    });
  }

  it('reports a missing file as an error row', async () => {
    const r = await rwx(['policy', 'check', '-f', '/nonexistent.yaml']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^ERROR +\/nonexistent\.yaml .* cannot read: no such file$/m);
  });
});

/** `rwx policy check -f DIR` over a whole set: every plugin, Windows skip and Helm template counted. */
function checksDirectory(set: ManifestSet): void {
  const { plugins, skipped, errors } = set.summary;
  it(`checks a whole directory: ${plugins} plugins, ${skipped} Windows skip(s), ${errors} Helm template(s)`, async () => {
    const r = await rwx(['policy', 'check', '-f', set.dir(), '-o', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as { summary: Record<string, number> };
    expect(report.summary).toEqual({ ...set.summary, violations: 0 });
    expect(r.err.split('\n').filter(Boolean)).toHaveLength(errors);
  });
}

describe("rwx policy check -f on the project's fixtures", () => checksDirectory(OWN));
describeUpstream('rwx policy check -f on the upstream CSI manifests', () => checksDirectory(UPSTREAM));

describe('rwx policy check --cluster', () => {
  it('reads the live DaemonSets and fails the plugin that lost its propagation', async () => {
    const { sim } = await startGateSim();
    try {
      const r = await rwx(['policy', 'check', '--cluster', '--kubeconfig', sim.kubeconfigPath]);
      expect(r.code).toBe(2);
      expect(r.out).toMatch(
        /^FAIL +cluster +DaemonSet kube-system\/ebs-csi-node +ebs-plugin +kubelet-dir +hostPath \/var\/lib\/kubelet has propagation None: /m,
      );
      expect(sim.audit.filter((a) => a.verb !== 'list' && a.verb !== 'get')).toEqual([]);
    } finally {
      await sim.stop();
    }
  });
});
