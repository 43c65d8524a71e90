// CSI node plugin manifests of every shape the upstream drivers ship, written by the project's own builder: quoted
// and unquoted Bidirectional, subdirectory mounts, a second kubelet root, sidecars that mount kubelet directories
// without propagation, a StatefulSet plugin, a Windows plugin, an unrendered Helm template, and objects that are not
// node plugins. The suite's policy, admission-policy and plugin-finder tests read these; the upstream files are an
// extra conformance test (test/policy/manifests.ts). Each expectation below is written by hand from the shape.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  livenessProbe,
  plugin,
  registrar,
  REGISTRAR_IMAGE,
  workloadYaml,
  type MountShape,
  type Propagation,
} from './plugin-manifests.js';

/** What a fixture file holds, as test/policy/manifests.ts's Expectation: plugins, Windows skips, Helm. */
export interface PluginFixture {
  text: string;
  plugins: Record<string, string[]>;
  windows?: string[];
  helm?: true;
}

const KUBELET = '/var/lib/kubelet';
const docs = (...texts: string[]): string => texts.join('---\n');
const kubeletDir = (p: Propagation = 'Bidirectional'): MountShape => ({
  name: 'kubelet-dir',
  path: KUBELET,
  propagation: p,
});

/** The Amazon EBS node plugin's shape: the whole kubelet root, unquoted; socket path from the registrar's env. */
const EBS = workloadYaml({
  name: 'ebs-csi-node',
  namespace: false,
  containers: [
    plugin('ebs-plugin', 'public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.46.0', [
      kubeletDir(),
      { name: 'device-dir', path: '/dev' },
    ]),
    // the registrar's probe directory is a kubelet subdirectory shared without propagation: not a violation
    registrar(`${KUBELET}/plugins/ebs.csi.aws.com/csi.sock`, 'env', KUBELET, {
      name: 'probe-dir',
      path: `${KUBELET}/plugins/ebs.csi.aws.com/`,
    }),
    livenessProbe(),
  ],
});

/** Fixture files by name: each shape once, with what the checker must find in it. */
export const PLUGIN_FIXTURES: Record<string, PluginFixture> = {
  'ebs-csi-node.yaml': {
    text: `# A node plugin mounting the whole kubelet root, Bidirectional unquoted.\n---\n${docs(EBS, 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ebs-csi-node-sa\n')}`,
    plugins: { 'DaemonSet ebs-csi-node': ['ebs-plugin/kubelet-dir'] },
  },
  'efs-csi-node.yaml': {
    text: workloadYaml({
      name: 'efs-csi-node',
      containers: [
        plugin('efs-plugin', 'public.ecr.aws/efs-csi-driver/amazon/aws-efs-csi-driver:v2.1.0', [kubeletDir()]),
        registrar(`${KUBELET}/plugins/efs.csi.aws.com/csi.sock`),
        livenessProbe(),
      ],
    }),
    plugins: { 'DaemonSet efs-csi-node': ['efs-plugin/kubelet-dir'] },
  },
  // Subdirectories of the kubelet root (pods, plugins), double- and single-quoted; the registration path literal.
  'quoted-subdirectories.yaml': {
    text: workloadYaml({
      name: 'csi-cephfsplugin',
      containers: [
        registrar(`${KUBELET}/plugins/cephfs.csi.ceph.com/csi.sock`, 'literal'),
        plugin('csi-cephfsplugin', 'quay.io/cephcsi/cephcsi:v3.14.0', [
          { name: 'mountpoint-dir', path: `${KUBELET}/pods`, propagation: '"Bidirectional"' },
          { name: 'plugin-mount-dir', path: `${KUBELET}/plugins`, propagation: "'Bidirectional'" },
          { name: 'host-sys', path: '/sys' },
        ]),
      ],
    }),
    plugins: { 'DaemonSet csi-cephfsplugin': ['csi-cephfsplugin/mountpoint-dir', 'csi-cephfsplugin/plugin-mount-dir'] },
  },
  // A custom kubelet root beside the default one's pods directory, and a Bidirectional mount that is no kubelet
  // directory (a cache): removing its propagation fails nothing.
  'second-kubelet-root.yaml': {
    text: workloadYaml({
      name: 'csi-custom-node',
      containers: [
        plugin('custom-plugin', 'example.com/storage/custom-csi:v0.9.1', [
          { name: 'kubelet-data-dir', path: '/var/data/kubelet', propagation: 'Bidirectional' },
          { name: 'pods-mount-dir', path: `${KUBELET}/pods`, propagation: 'Bidirectional' },
          { name: 'cache-dir', path: '/var/lib/custom-cache', propagation: 'Bidirectional' },
        ]),
        registrar('/var/data/kubelet/plugins/custom.csi.example.com/csi.sock', 'env', '/var/data/kubelet'),
      ],
    }),
    plugins: { 'DaemonSet csi-custom-node': ['custom-plugin/kubelet-data-dir', 'custom-plugin/pods-mount-dir'] },
  },
  // Registers under a directory that is not its driver name; its liveness probe mounts the pods directory without
  // propagation, which a sidecar may.
  'csi-nfs-node.yaml': {
    text: workloadYaml({
      name: 'csi-nfs-node',
      containers: [
        livenessProbe({ name: 'pods-mount-dir', path: `${KUBELET}/pods` }),
        registrar(`${KUBELET}/plugins/csi-nfsplugin/csi.sock`),
        plugin(
          'nfs',
          'registry.k8s.io/sig-storage/nfsplugin:v4.11.0',
          [{ name: 'pods-mount-dir', path: `${KUBELET}/pods`, propagation: 'Bidirectional' }],
          ['-v=5', '--nodeid=$(NODE_ID)', '--endpoint=$(CSI_ENDPOINT)'],
        ),
      ],
    }),
    plugins: { 'DaemonSet csi-nfs-node': ['nfs/pods-mount-dir'] },
  },
  'statefulset-plugin.yaml': {
    text: workloadYaml({
      kind: 'StatefulSet',
      name: 'csi-hostpathplugin',
      namespace: 'default',
      containers: [
        plugin('hostpath', 'registry.k8s.io/sig-storage/hostpathplugin:v1.17.0', [
          { name: 'mountpoint-dir', path: `${KUBELET}/pods`, propagation: 'Bidirectional' },
          { name: 'plugins-dir', path: `${KUBELET}/plugins`, propagation: 'Bidirectional' },
        ]),
        registrar(`${KUBELET}/plugins/csi-hostpath/csi.sock`, 'literal'),
      ],
    }),
    plugins: { 'StatefulSet csi-hostpathplugin': ['hostpath/mountpoint-dir', 'hostpath/plugins-dir'] },
  },
  'csi-smb-node.yaml': {
    text: workloadYaml({
      name: 'csi-smb-node',
      containers: [
        registrar(`${KUBELET}/plugins/smb.csi.k8s.io/csi.sock`, 'literal'),
        plugin('smb', 'registry.k8s.io/sig-storage/smbplugin:v1.18.0', [
          { name: 'mountpoint-dir', path: `${KUBELET}/`, propagation: 'Bidirectional' },
        ]),
      ],
    }),
    plugins: { 'DaemonSet csi-smb-node': ['smb/mountpoint-dir'] },
  },
  // Windows nodes have no mount propagation: skipped, not checked.
  'csi-smb-node-windows.yaml': {
    text: workloadYaml({
      name: 'csi-smb-node-win',
      os: 'windows',
      containers: [
        {
          name: 'node-driver-registrar',
          image: REGISTRAR_IMAGE,
          args: ['--kubelet-registration-path=C:\\var\\lib\\kubelet\\plugins\\smb.csi.k8s.io\\csi.sock'],
          mounts: [
            { name: 'registration-dir', path: 'C:\\registration', host: 'C:\\var\\lib\\kubelet\\plugins_registry\\' },
          ],
        },
        plugin('smb', 'registry.k8s.io/sig-storage/smbplugin:v1.18.0', [
          { name: 'kubelet-dir', path: 'C:\\var\\lib\\kubelet' },
        ]),
      ],
    }),
    plugins: {},
    windows: ['DaemonSet csi-smb-node-win'],
  },
  // A controller with a Bidirectional pods mount is not a node plugin (no registrar, no registration directory).
  'controller.yaml': {
    text: workloadYaml({
      kind: 'Deployment',
      name: 'csi-nfs-controller',
      containers: [
        plugin('nfs', 'registry.k8s.io/sig-storage/nfsplugin:v4.11.0', [
          { name: 'pods-mount-dir', path: `${KUBELET}/pods`, propagation: 'Bidirectional' },
        ]),
      ],
    }),
    plugins: {},
  },
  'csidrivers.yaml': {
    text: docs(
      ...['ebs.csi.aws.com', 'nfs.csi.k8s.io'].map(
        (n) =>
          `apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata:\n  name: ${n}\nspec:\n  attachRequired: ${n.startsWith('ebs')}\n`,
      ),
    ),
    plugins: {},
  },
  // An unrendered Helm template: reported as such, never passed.
  'helm-template-node.yaml': {
    text: `{{- if .Values.node.enabled }}\n${workloadYaml({
      name: 'csi-templated-node',
      containers: [
        registrar(`${KUBELET}/plugins/templated.csi.example.com/csi.sock`),
        plugin('driver', 'example.com/d:v1', [kubeletDir()]),
      ],
    }).replace('name: csi-templated-node\n', 'name: {{ .Release.Name }}-node\n')}{{- end }}\n`,
    plugins: {},
    helm: true,
  },
};

/** The fixtures written to a new temporary directory (for commands that read files), once per process. */
let written: string | undefined;
export function pluginFixtureDir(): string {
  if (written) return written;
  const dir = mkdtempSync(join(tmpdir(), 'rwx-plugin-manifests-'));
  for (const [file, f] of Object.entries(PLUGIN_FIXTURES)) writeFileSync(join(dir, file), f.text);
  written = dir;
  return dir;
}
