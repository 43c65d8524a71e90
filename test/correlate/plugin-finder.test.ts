// The registration-path finder over the project's node plugin fixtures, and over the upstream drivers' manifests
// where present (test/policy/manifests.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { DaemonSet, PodTemplate } from '../../src/domain/objects.js';
import {
  driverFromRegistrationPath,
  driversOfTemplate,
  expandEnv,
  findPluginDaemonSets,
  registrationPath,
} from '../../src/correlate/plugin-finder.js';
import { manifestDocs, MANIFESTS, snapshotOf } from '../detect/builders.js';
import { describeUpstream } from '../policy/manifests.js';

function daemonSet(file: string, name: string): DaemonSet {
  const ds = manifestDocs(file).find((d) => d.kind === 'DaemonSet' && (d.metadata as { name?: string })?.name === name);
  if (!ds) throw new Error(`no DaemonSet ${name} in ${file}`);
  return ds as DaemonSet;
}

describe("driversOfTemplate over the project's node plugin fixtures", () => {
  it.each([
    // $(DRIVER_REG_SOCK_PATH) expanded from the registrar's env
    ['ebs-csi-node.yaml', 'ebs-csi-node', ['ebs.csi.aws.com']],
    ['efs-csi-node.yaml', 'efs-csi-node', ['efs.csi.aws.com']],
    // literal --kubelet-registration-path=..., and a StatefulSet plugin
    ['quoted-subdirectories.yaml', 'csi-cephfsplugin', ['cephfs.csi.ceph.com']],
    ['csi-smb-node.yaml', 'csi-smb-node', ['smb.csi.k8s.io']],
    // a second kubelet root
    ['second-kubelet-root.yaml', 'csi-custom-node', ['custom.csi.example.com']],
    // Windows path with backslashes
    ['csi-smb-node-windows.yaml', 'csi-smb-node-win', ['smb.csi.k8s.io']],
    // registers under a directory that is not its driver name
    ['csi-nfs-node.yaml', 'csi-nfs-node', ['csi-nfsplugin']],
  ])('%s', (file, name, drivers) => {
    expect(driversOfTemplate(daemonSet(file, name).spec?.template)).toEqual(drivers);
  });

  it('the StatefulSet plugin', () => {
    const sts = manifestDocs('statefulset-plugin.yaml').find((d) => d.kind === 'StatefulSet') as DaemonSet;
    expect(driversOfTemplate(sts.spec?.template)).toEqual(['csi-hostpath']);
  });

  it('a template without a registrar is not a node plugin', () => {
    // the nfs controller is a Deployment without node-driver-registrar
    const t: PodTemplate = { spec: { containers: [{ name: 'nfs', args: ['--drivername=nfs.csi.k8s.io'] }] } };
    expect(driversOfTemplate(t)).toEqual([]);
  });
});

describeUpstream('driversOfTemplate over real node plugin manifests', () => {
  it.each([
    // literal --kubelet-registration-path=... (quoted)
    ['ceph__ceph-csi__deploy__cephfs__kubernetes__csi-cephfsplugin.yaml', 'csi-cephfsplugin', ['cephfs.csi.ceph.com']],
    ['ceph__ceph-csi__deploy__rbd__kubernetes__csi-rbdplugin.yaml', 'csi-rbdplugin', ['rbd.csi.ceph.com']],
    [
      'kubernetes-sigs__gcp-compute-persistent-disk-csi-driver__deploy__kubernetes__base__node_linux__node.yaml',
      'csi-gce-pd-node',
      ['pd.csi.storage.gke.io'],
    ],
    // $(DRIVER_REG_SOCK_PATH) expanded from the registrar's env
    ['kubernetes-sigs__aws-ebs-csi-driver__deploy__kubernetes__base__node.yaml', 'ebs-csi-node', ['ebs.csi.aws.com']],
    [
      'kubernetes-sigs__aws-efs-csi-driver__deploy__kubernetes__base__node-daemonset.yaml',
      'efs-csi-node',
      ['efs.csi.aws.com'],
    ],
    [
      'kubernetes-sigs__azuredisk-csi-driver__deploy__csi-azuredisk-node.yaml',
      'csi-azuredisk-node',
      ['disk.csi.azure.com'],
    ],
    [
      'kubernetes-sigs__azurefile-csi-driver__deploy__csi-azurefile-node.yaml',
      'csi-azurefile-node',
      ['file.csi.azure.com'],
    ],
    [
      'digitalocean__csi-digitalocean__deploy__kubernetes__releases__csi-digitalocean-dev__driver.yaml',
      'csi-do-node',
      ['dobs.csi.digitalocean.com'],
    ],
    [
      'linode__linode-blockstorage-csi-driver__deploy__kubernetes__base__ds-csi-linode-node.yaml',
      'csi-linode-node',
      ['linodebs.csi.linode.com'],
    ],
    [
      'kubernetes-sigs__vsphere-csi-driver__manifests__vanilla__vsphere-csi-driver.yaml',
      'vsphere-csi-node',
      ['csi.vsphere.vmware.com'],
    ],
    // a different env variable name
    [
      'kubernetes-sigs__ibm-vpc-block-csi-driver__deploy__kubernetes__driver__kubernetes__manifests__node-server.yaml',
      'ibm-vpc-block-csi-node',
      ['vpc.block.csi.ibm.io'],
    ],
    // socket not called csi.sock, and a non-standard plugins directory
    ['hetznercloud__csi-driver__deploy__kubernetes__node__daemonset.yaml', 'hcloud-csi-node', ['csi.hetzner.cloud']],
    [
      'juicedata__juicefs-csi-driver__deploy__kubernetes__base__resources.yaml',
      'juicefs-csi-node',
      ['csi.juicefs.com'],
    ],
    // Windows path with backslashes
    ['kubernetes-csi__csi-driver-smb__deploy__csi-smb-node-windows.yaml', 'csi-smb-node-win', ['smb.csi.k8s.io']],
    ['kubernetes-csi__csi-driver-smb__deploy__csi-smb-node.yaml', 'csi-smb-node', ['smb.csi.k8s.io']],
    // csi-driver-nfs registers under "csi-nfsplugin", not its driver name nfs.csi.k8s.io: paired by the fallback
    // (plugin-finder-fallback.test.ts) or the override
    ['kubernetes-csi__csi-driver-nfs__deploy__csi-nfs-node.yaml', 'csi-nfs-node', ['csi-nfsplugin']],
  ])('%s', (file, name, drivers) => {
    expect(driversOfTemplate(daemonSet(file, name).spec?.template)).toEqual(drivers);
  });
});

describe('registration path parsing', () => {
  it.each([
    // "=" form
    [
      ['--kubelet-registration-path=/var/lib/kubelet/plugins/a.b/csi.sock'],
      {},
      '/var/lib/kubelet/plugins/a.b/csi.sock',
    ],
    // space-separated form with an env reference
    [
      ['--kubelet-registration-path', '$(DRIVER_REG_SOCK_PATH)'],
      { DRIVER_REG_SOCK_PATH: '/var/lib/kubelet/plugins/x.y/csi.sock' },
      '/var/lib/kubelet/plugins/x.y/csi.sock',
    ],
    // unknown variable left as written
    [['--kubelet-registration-path=$(NOPE)'], {}, '$(NOPE)'],
  ])('%j', (args, env, want) => {
    const t: PodTemplate = {
      spec: {
        containers: [{ name: 'registrar', args, env: Object.entries(env).map(([name, value]) => ({ name, value })) }],
      },
    };
    expect(registrationPath(t)).toBe(want);
  });

  it.each([
    ['/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock', 'ebs.csi.aws.com'],
    ['C:\\\\var\\\\lib\\\\kubelet\\\\plugins\\\\smb.csi.k8s.io\\\\csi.sock', 'smb.csi.k8s.io'],
    ['csi.sock', undefined],
  ])('driver of %s', (path, want) => {
    expect(driverFromRegistrationPath(path)).toBe(want);
  });

  it('expands only $(VAR) references', () => {
    expect(
      expandEnv(
        '$(A)/$B/$(C)',
        new Map([
          ['A', 'x'],
          ['C', 'z'],
        ]),
      ),
    ).toBe('x/$B/z');
  });
});

describe('findPluginDaemonSets', () => {
  const ebs = {
    ...daemonSet('ebs-csi-node.yaml', 'ebs-csi-node'),
    metadata: { name: 'ebs-csi-node', namespace: 'kube-system', uid: 'u1' },
  };
  const nfs = {
    ...daemonSet('csi-nfs-node.yaml', 'csi-nfs-node'),
    metadata: { name: 'csi-nfs-node', namespace: 'kube-system', uid: 'u2' },
  };
  const index = ClusterIndex.fromSnapshot(snapshotOf([ebs, nfs]));

  it('finds drivers by registration path', () => {
    const m = findPluginDaemonSets(index);
    expect(m.get('ebs.csi.aws.com')?.metadata?.name).toBe('ebs-csi-node');
    // no driver is known here (no CSIDriver, PV, StorageClass or CSINode), so the fallback pairs nothing
    expect(m.get('nfs.csi.k8s.io')).toBeUndefined();
  });

  it('the override maps a driver whose directory does not name it', () => {
    const m = findPluginDaemonSets(index, { 'nfs.csi.k8s.io': { namespace: 'kube-system', name: 'csi-nfs-node' } });
    expect(m.get('nfs.csi.k8s.io')?.metadata?.name).toBe('csi-nfs-node');
  });

  it('an override naming a missing DaemonSet is ignored', () => {
    const m = findPluginDaemonSets(index, { 'ebs.csi.aws.com': { namespace: 'kube-system', name: 'gone' } });
    expect(m.get('ebs.csi.aws.com')?.metadata?.name).toBe('ebs-csi-node');
  });
});

describe('driver-name fallback (registration directory does not name the driver)', () => {
  const nfsTemplate = () => daemonSet('csi-nfs-node.yaml', 'csi-nfs-node').spec!.template!;
  /** The nfs plugin container with extra args / env, as later csi-driver-nfs releases and its Helm chart render it. */
  function nfsWith(args: string[], env: { name: string; value: string }[] = []): PodTemplate {
    const t = nfsTemplate();
    const c = t.spec!.containers!.find((x) => x.name === 'nfs')!;
    c.args = [...(c.args ?? []), ...args];
    c.env = [...((c.env as object[] | undefined) ?? []), ...env];
    return t;
  }
  it.each<[string, PodTemplate, string[]]>([
    // the chart's `--drivername={{ .Values.driver.name }}`, rendered
    ['--drivername=', nfsWith(['--drivername=nfs.csi.k8s.io']), ['csi-nfsplugin', 'nfs.csi.k8s.io']],
    // dashed spelling
    ['--driver-name=', nfsWith(['--driver-name=nfs.csi.k8s.io']), ['csi-nfsplugin', 'nfs.csi.k8s.io']],
    // csi- prefixed flag, value as the next word
    ['--csi-driver-name VALUE', nfsWith(['--csi-driver-name', 'nfs.csi.k8s.io']), ['csi-nfsplugin', 'nfs.csi.k8s.io']],
    // Go's flag package also takes one dash
    ['-drivername=', nfsWith(['-drivername=nfs.csi.k8s.io']), ['csi-nfsplugin', 'nfs.csi.k8s.io']],
    // the flag takes its value from the env
    [
      '--drivername=$(DRIVER_NAME)',
      nfsWith(['--drivername=$(DRIVER_NAME)'], [{ name: 'DRIVER_NAME', value: 'nfs.csi.k8s.io' }]),
      ['csi-nfsplugin', 'nfs.csi.k8s.io'],
    ],
    // env alone
    [
      'env CSI_DRIVER_NAME',
      nfsWith([], [{ name: 'CSI_DRIVER_NAME', value: 'nfs.csi.k8s.io' }]),
      ['csi-nfsplugin', 'nfs.csi.k8s.io'],
    ],
    // an unexpanded reference is not a driver name
    ['unexpanded $(VAR)', nfsWith(['--drivername=$(MISSING)']), ['csi-nfsplugin']],
  ])('%s', (_name, t, want) => {
    expect(driversOfTemplate(t)).toEqual(want);
  });

  it('maps nfs.csi.k8s.io to csi-nfs-node without an override once the plugin names its driver', () => {
    const ds = {
      ...daemonSet('csi-nfs-node.yaml', 'csi-nfs-node'),
      metadata: { name: 'csi-nfs-node', namespace: 'kube-system', uid: 'u2' },
    };
    ds.spec!.template = nfsWith(['--drivername=nfs.csi.k8s.io']);
    expect(
      findPluginDaemonSets(ClusterIndex.fromSnapshot(snapshotOf([ds]))).get('nfs.csi.k8s.io')?.metadata?.name,
    ).toBe('csi-nfs-node');
  });
});

describeUpstream('plugin finder over every upstream DaemonSet', () => {
  it('every DaemonSet of the real manifests (INDEX.tsv): the drivers found', () => {
    const files = readFileSync(`${MANIFESTS}/INDEX.tsv`, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split('\t')[0] ?? '');
    const found: Record<string, string[]> = {};
    for (const f of files)
      for (const d of manifestDocs(f)) {
        if (d.kind !== 'DaemonSet') continue;
        const name = (d.metadata as { name?: unknown } | undefined)?.name;
        found[typeof name === 'string' ? name : `(templated name in ${f.split('__')[0]})`] = driversOfTemplate(
          (d as DaemonSet).spec?.template,
        );
      }
    expect(found).toEqual({
      'ebs-csi-node': ['ebs.csi.aws.com'],
      'efs-csi-node': ['efs.csi.aws.com'],
      // the stored deploy/csi-nfs-node.yaml predates --drivername on the node plugin: the fallback or the override
      'csi-nfs-node': ['csi-nfsplugin'],
      'csi-smb-node': ['smb.csi.k8s.io'],
      'csi-smb-node-win': ['smb.csi.k8s.io'],
      'csi-azuredisk-node': ['disk.csi.azure.com'],
      'csi-azurefile-node': ['file.csi.azure.com'],
      'csi-gce-pd-node': ['pd.csi.storage.gke.io'],
      'gcp-filestore-csi-node': ['filestore.csi.storage.gke.io'],
      'vsphere-csi-node': ['csi.vsphere.vmware.com'],
      'vsphere-csi-node-windows': ['csi.vsphere.vmware.com'],
      'csi-cephfsplugin': ['cephfs.csi.ceph.com'],
      'csi-rbdplugin': ['rbd.csi.ceph.com'],
      'hcloud-csi-node': ['csi.hetzner.cloud'],
      'csi-do-node': ['dobs.csi.digitalocean.com'],
      'juicefs-csi-node': ['csi.juicefs.com'],
      'csi-linode-node': ['linodebs.csi.linode.com'],
      'ibm-vpc-block-csi-node': ['vpc.block.csi.ibm.io'],
      // unrendered Helm templates: `{{ .Values.driverName }}` is no driver name, so nothing (override needed)
      '(templated name in dell)': [],
      '(templated name in openebs)': [],
    });
  });
});
