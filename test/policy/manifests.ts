// Test data: the real upstream CSI manifests in /work/shared/csi-manifests (read in place, never copied), and the
// expected verdict for each, written by hand from reading the files (not from the checker's output).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the shared manifests live; RWX_CSI_MANIFESTS overrides it. */
export const MANIFEST_DIR = process.env.RWX_CSI_MANIFESTS ?? join(import.meta.dirname, '../../../shared/csi-manifests');

/** A plugin container's kubelet-directory mount that upstream sets to Bidirectional: "container/volumeMount". */
type Mount = string;

/** What a file holds: node plugins by "Kind name" with their Bidirectional kubelet mounts, skipped Windows plugins. */
export interface Expectation {
  plugins: Record<string, Mount[]>;
  windows?: string[];
  /** The file is an unrendered Helm template. */
  helm?: true;
}

/** Expected verdicts, one line per file; files not listed here fail the "every file is covered" test. */
export const EXPECTED: Record<string, Expectation> = {
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

/** The manifest file names in the shared directory. */
export function manifestFiles(): string[] {
  return readdirSync(MANIFEST_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
}

/** A manifest's text. */
export function readManifest(file: string): string {
  return readFileSync(join(MANIFEST_DIR, file), 'utf8');
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
