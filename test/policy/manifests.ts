// Test data: the project's own node plugin manifests (test/support/plugin-fixtures.ts, every shape the upstream
// drivers ship) for the suite, and the real upstream CSI manifests as an extra conformance test where a directory of
// them is present (read in place, never copied), with the expected verdict for each, written by hand from reading
// the files (not from the checker's output).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { PLUGIN_FIXTURES, pluginFixtureDir } from '../support/plugin-fixtures.js';

/**
 * Where the upstream manifests live: RWX_CSI_MANIFESTS, else ../shared/csi-manifests beside the clone. Set
 * RWX_CSI_MANIFESTS=none to hide them on purpose (`.ci/run` runs the suite so, to prove it needs none).
 */
export const UPSTREAM_DIR = process.env.RWX_CSI_MANIFESTS ?? join(import.meta.dirname, '../../../shared/csi-manifests');

/** Whether the upstream manifests are there to test against. */
export const UPSTREAM_PRESENT = UPSTREAM_DIR !== 'none' && existsSync(join(UPSTREAM_DIR, 'INDEX.tsv'));

/** CI must run the conformance test: with CI=true and the manifests absent (not hidden on purpose), it fails. */
const UPSTREAM_REQUIRED = process.env.CI === 'true' && UPSTREAM_DIR !== 'none';

/**
 * A describe block over the upstream manifests: run where they are present; where absent, one skipped test that
 * says so, or, in CI, one failing test.
 */
export function describeUpstream(title: string, body: () => void): void {
  const name = `upstream conformance: ${title}`;
  if (UPSTREAM_PRESENT) describe(name, body);
  else if (UPSTREAM_REQUIRED)
    describe(name, () =>
      it('needs the upstream CSI manifests in CI', () => {
        throw new Error(`no upstream CSI manifests at ${UPSTREAM_DIR} (set RWX_CSI_MANIFESTS, or =none to skip)`);
      }),
    );
  else
    describe.skip(`${name} (skipped: no upstream CSI manifests at ${UPSTREAM_DIR}; set RWX_CSI_MANIFESTS)`, () =>
      it('upstream', () => {}));
}

/** A plugin container's kubelet-directory mount that upstream sets to Bidirectional: "container/volumeMount". */
type Mount = string;

/** What a file holds: node plugins by "Kind name" with their Bidirectional kubelet mounts, skipped Windows plugins. */
export interface Expectation {
  plugins: Record<string, Mount[]>;
  windows?: string[];
  /** The file is an unrendered Helm template. */
  helm?: true;
}

/** Expected verdicts of the upstream files, one line per file; files not listed here fail the "every file is covered" test. */
export const UPSTREAM_EXPECTED: Record<string, Expectation> = {
  'ceph__ceph-csi__deploy__cephfs__kubernetes__csi-cephfsplugin.yaml': {
    plugins: { 'DaemonSet csi-cephfsplugin': ['csi-cephfsplugin/mountpoint-dir', 'csi-cephfsplugin/plugin-dir'] },
  },
  'ceph__ceph-csi__deploy__rbd__kubernetes__csi-rbdplugin.yaml': {
    plugins: { 'DaemonSet csi-rbdplugin': ['csi-rbdplugin/plugin-dir', 'csi-rbdplugin/mountpoint-dir'] },
  },
  'dell__csi-powerstore__helm__csi-powerstore__templates__node.yaml': { plugins: {}, helm: true },
  'digitalocean__csi-digitalocean__deploy__kubernetes__releases__csi-digitalocean-dev__driver.yaml': {
    plugins: { 'DaemonSet csi-do-node': ['csi-do-plugin/pods-mount-dir', 'csi-do-plugin/kubelet-data-dir'] },
  },
  'hetznercloud__csi-driver__deploy__kubernetes__node__daemonset.yaml': {
    plugins: { 'DaemonSet hcloud-csi-node': ['hcloud-csi-driver/kubelet-dir'] },
  },
  // The controller StatefulSet's Bidirectional mounts are /var/lib/juicefs paths: not kubelet, not a node plugin.
  'juicedata__juicefs-csi-driver__deploy__kubernetes__base__resources.yaml': {
    plugins: { 'DaemonSet juicefs-csi-node': ['juicefs-plugin/kubelet-dir'] },
  },
  'kubernetes-csi__csi-driver-host-path__deploy__kubernetes-1.30__hostpath__csi-hostpath-plugin.yaml': {
    plugins: { 'StatefulSet csi-hostpathplugin': ['hostpath/mountpoint-dir', 'hostpath/plugins-dir'] },
  },
  // A controller Deployment with a Bidirectional pods mount is not a node plugin.
  'kubernetes-csi__csi-driver-nfs__deploy__csi-nfs-controller.yaml': { plugins: {} },
  'kubernetes-csi__csi-driver-nfs__deploy__csi-nfs-driverinfo.yaml': { plugins: {} },
  'kubernetes-csi__csi-driver-nfs__deploy__csi-nfs-node.yaml': {
    plugins: { 'DaemonSet csi-nfs-node': ['nfs/pods-mount-dir'] },
  },
  'kubernetes-csi__csi-driver-smb__deploy__csi-smb-node-windows.yaml': {
    plugins: {},
    windows: ['DaemonSet csi-smb-node-win'],
  },
  'kubernetes-csi__csi-driver-smb__deploy__csi-smb-node.yaml': {
    plugins: { 'DaemonSet csi-smb-node': ['smb/mountpoint-dir'] },
  },
  'kubernetes-sigs__aws-ebs-csi-driver__deploy__kubernetes__base__csidriver.yaml': { plugins: {} },
  'kubernetes-sigs__aws-ebs-csi-driver__deploy__kubernetes__base__node.yaml': {
    plugins: { 'DaemonSet ebs-csi-node': ['ebs-plugin/kubelet-dir'] },
  },
  'kubernetes-sigs__aws-efs-csi-driver__deploy__kubernetes__base__node-daemonset.yaml': {
    plugins: { 'DaemonSet efs-csi-node': ['efs-plugin/kubelet-dir'] },
  },
  'kubernetes-sigs__azuredisk-csi-driver__deploy__csi-azuredisk-node.yaml': {
    plugins: { 'DaemonSet csi-azuredisk-node': ['azuredisk/mountpoint-dir'] },
  },
  'kubernetes-sigs__azurefile-csi-driver__deploy__csi-azurefile-node.yaml': {
    plugins: { 'DaemonSet csi-azurefile-node': ['azurefile/mountpoint-dir'] },
  },
  'kubernetes-sigs__gcp-compute-persistent-disk-csi-driver__deploy__kubernetes__base__node_linux__node.yaml': {
    plugins: { 'DaemonSet csi-gce-pd-node': ['gce-pd-driver/kubelet-dir'] },
  },
  'kubernetes-sigs__gcp-filestore-csi-driver__deploy__kubernetes__base__node_linux__node.yaml': {
    plugins: { 'DaemonSet gcp-filestore-csi-node': ['gcp-filestore-driver/kubelet-dir'] },
  },
  'kubernetes-sigs__ibm-vpc-block-csi-driver__deploy__kubernetes__driver__kubernetes__manifests__node-server.yaml': {
    plugins: { 'DaemonSet ibm-vpc-block-csi-node': ['iks-vpc-block-node-driver/kubelet-data-dir'] },
  },
  'kubernetes-sigs__vsphere-csi-driver__manifests__vanilla__vsphere-csi-driver.yaml': {
    plugins: { 'DaemonSet vsphere-csi-node': ['vsphere-csi-node/pods-mount-dir'] },
    windows: ['DaemonSet vsphere-csi-node-windows'],
  },
  'linode__linode-blockstorage-csi-driver__deploy__kubernetes__base__ds-csi-linode-node.yaml': {
    plugins: { 'DaemonSet csi-linode-node': ['csi-linode-plugin/pods-mount-dir'] },
  },
  'openebs__lvm-localpv__deploy__helm__charts__templates__lvm-node.yaml': { plugins: {}, helm: true },
};

/** A set of manifest files with the verdicts expected of each: the project's own, or the upstream drivers'. */
export interface ManifestSet {
  name: string;
  dir: () => string;
  files: () => string[];
  read: (file: string) => string;
  expected: Record<string, Expectation>;
  /** How many Bidirectional kubelet mounts the set's plugins have (the fail cases must reach each). */
  kubeletMounts: number;
  /** Node plugins, Windows skips and Helm templates a whole-directory check finds. */
  summary: { files: number; plugins: number; skipped: number; errors: number };
}

/** The project's own fixtures (always there). */
export const OWN: ManifestSet = {
  name: 'own fixtures',
  dir: pluginFixtureDir,
  files: () => Object.keys(PLUGIN_FIXTURES).sort(),
  read: (file) => {
    const f = PLUGIN_FIXTURES[file];
    if (!f) throw new Error(`no fixture ${file}`);
    return f.text;
  },
  expected: PLUGIN_FIXTURES,
  kubeletMounts: 10,
  summary: { files: 11, plugins: 7, skipped: 1, errors: 1 },
};

/** The upstream drivers' manifests (only where UPSTREAM_PRESENT). */
export const UPSTREAM: ManifestSet = {
  name: 'upstream manifests',
  dir: () => UPSTREAM_DIR,
  files: () =>
    readdirSync(UPSTREAM_DIR)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort(),
  read: (file) => readFileSync(join(UPSTREAM_DIR, file), 'utf8'),
  expected: UPSTREAM_EXPECTED,
  kubeletMounts: 21,
  summary: { files: 23, plugins: 17, skipped: 2, errors: 2 },
};

/** A manifest's text: one of the project's fixtures by its name, else an upstream file. */
export function readManifest(file: string): string {
  return file in PLUGIN_FIXTURES ? OWN.read(file) : UPSTREAM.read(file);
}

const PROPAGATION_LINE = /^\s*mountPropagation:\s*["']?Bidirectional["']?\s*$/;

/** Every variant of `text` with exactly one `mountPropagation: Bidirectional` line removed, with its 1-based line. */
export function withoutOnePropagationLine(text: string): { line: number; text: string }[] {
  const lines = text.split('\n');
  const out: { line: number; text: string }[] = [];
  lines.forEach((l, i) => {
    if (PROPAGATION_LINE.test(l))
      out.push({ line: i + 1, text: [...lines.slice(0, i), ...lines.slice(i + 1)].join('\n') });
  });
  return out;
}
