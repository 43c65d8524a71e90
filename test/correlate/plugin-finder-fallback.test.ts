// The fallback pairing of drivers with node plugins that do not name them (elimination, name token), over the
// project's node plugin fixtures (and every upstream DaemonSet where present), and how each pairing is recorded.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { kindKeyOf, type KindKey } from '../../src/domain/kinds.js';
import type { CSIDriver, CSINode, DaemonSet, PersistentVolume, StorageClass } from '../../src/domain/objects.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import { nsKey } from '../../src/domain/refs.js';
import {
  describePluginMatch,
  driversOfTemplate,
  findPluginDaemonSets,
  matchPluginDaemonSets,
  type DriverDaemonSets,
} from '../../src/correlate/plugin-finder.js';
import { driverToken, nameTokens } from '../../src/correlate/plugin-match.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { describeUpstream } from '../policy/manifests.js';
import { escapeSlack } from '../../src/render/escape.js';
import { slackDates } from '../../src/render/slack-blocks.js';
import { renderEvidenceReply } from '../../src/render/slack-thread.js';
import { renderIncident } from '../../src/render/terminal-incidents.js';
import {
  ago,
  claim,
  DAY,
  event,
  failedMount,
  HOUR,
  manifestDocs,
  MANIFESTS,
  MIN,
  node,
  NOW,
  pluginPod,
  pod,
  revision,
  withoutPropagation,
} from '../detect/builders.js';

const NFS_FILE = 'csi-nfs-node.yaml';

/** A DaemonSet of a manifest, placed in a namespace (and renamed) as an install would. */
function daemonSet(file: string, name: string, at: { namespace?: string; name?: string } = {}): DaemonSet {
  const ds = manifestDocs(file).find(
    (d) => d.kind === 'DaemonSet' && (d.metadata as { name?: string })?.name === name,
  ) as DaemonSet | undefined;
  if (!ds) throw new Error(`no DaemonSet ${name} in ${file}`);
  const ns = at.namespace ?? (ds.metadata?.namespace || 'kube-system');
  const n = at.name ?? name;
  return { ...ds, metadata: { ...ds.metadata, name: n, namespace: ns, uid: `uid-ds-${ns}-${n}` } };
}
const nfsDs = (at: { namespace?: string; name?: string } = {}) => daemonSet(NFS_FILE, 'csi-nfs-node', at);
const ebsDs = () => daemonSet('ebs-csi-node.yaml', 'ebs-csi-node');
const efsDs = () => daemonSet('efs-csi-node.yaml', 'efs-csi-node');
const smbDs = () => daemonSet('csi-smb-node.yaml', 'csi-smb-node');
const smbWinDs = () => daemonSet('csi-smb-node-windows.yaml', 'csi-smb-node-win');

/** A node plugin whose registrar reads its socket path from a ConfigMap: a registrar, but no name to read. */
function vendorDs(name = 'storage-node-agent'): DaemonSet {
  const ds = nfsDs({ namespace: 'vendor-storage', name });
  const reg = ds.spec!.template!.spec!.containers!.find((c) => c.name === 'node-driver-registrar')!;
  reg.env = [{ name: 'DRIVER_REG_SOCK_PATH', valueFrom: { configMapKeyRef: { name: 'agent', key: 'socket' } } }];
  return ds;
}

/** The fixtures' CSIDriver objects where there is one, else a minimal storage.k8s.io/v1 CSIDriver. */
function csiDriver(name: string): CSIDriver {
  const real = manifestDocs('csidrivers.yaml').find(
    (d) => d.kind === 'CSIDriver' && (d.metadata as { name?: string } | undefined)?.name === name,
  );
  return (
    (real as CSIDriver | undefined) ?? {
      kind: 'CSIDriver',
      apiVersion: 'storage.k8s.io/v1',
      metadata: { name },
      spec: { attachRequired: false },
    }
  );
}
const pv = (name: string, driver: string): PersistentVolume => ({
  kind: 'PersistentVolume',
  metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': driver } },
  spec: { accessModes: ['ReadWriteMany'], csi: { driver, volumeHandle: `${name}-handle` } },
  status: { phase: 'Bound' },
});
const sc = (name: string, provisioner: string): StorageClass => ({
  kind: 'StorageClass',
  metadata: { name },
  provisioner,
  volumeBindingMode: 'Immediate',
});
const csiNode = (name: string, drivers: string[]): CSINode => ({
  kind: 'CSINode',
  metadata: { name },
  spec: { drivers: drivers.map((d) => ({ name: d, nodeID: name })) },
});

/** An index of these objects; `unreadable` kinds are marked as not readable. */
function indexOf(objects: readonly { kind?: string }[], unreadable: KindKey[] = []): ClusterIndex {
  const s = emptySnapshot();
  for (const o of objects) {
    const k = kindKeyOf(o.kind);
    if (!k) throw new Error(`no snapshot field for ${o.kind}`);
    (s[k] as unknown[]).push(o);
  }
  s.unreadable = unreadable.map((kind) => ({ kind, reason: 'forbidden' }));
  return ClusterIndex.fromSnapshot(s);
}

/** driver -> "method namespace/name", the whole result. */
function matches(index: ClusterIndex, overrides: DriverDaemonSets = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [d, m] of matchPluginDaemonSets(index, overrides))
    out[d] = `${m.method} ${m.daemonSet.metadata?.namespace}/${m.daemonSet.metadata?.name}`;
  return out;
}
const NFS_DIR = { 'csi-nfsplugin': 'registration-path kube-system/csi-nfs-node' };
const EBS = { 'ebs.csi.aws.com': 'registration-path kube-system/ebs-csi-node' };

describe('elimination: the one node plugin naming no known driver serves the one known driver without a plugin', () => {
  it.each<[string, { kind?: string }[], Record<string, string>]>([
    // the brief's case: deploy/csi-nfs-node.yaml and deploy/csi-nfs-driverinfo.yaml, nothing else
    [
      'nfs with its CSIDriver',
      [nfsDs(), csiDriver('nfs.csi.k8s.io')],
      { ...NFS_DIR, 'nfs.csi.k8s.io': 'elimination kube-system/csi-nfs-node' },
    ],
    // ebs in use (CSIDriver, StorageClass, PV, CSINode) is matched by path and claims its own DaemonSet
    [
      'ebs in use beside nfs',
      [
        ebsDs(),
        nfsDs(),
        csiDriver('ebs.csi.aws.com'),
        csiDriver('nfs.csi.k8s.io'),
        sc('gp3', 'ebs.csi.aws.com'),
        pv('pvc-0a1b', 'ebs.csi.aws.com'),
        csiNode('node-01', ['ebs.csi.aws.com', 'nfs.csi.k8s.io']),
      ],
      { ...EBS, ...NFS_DIR, 'nfs.csi.k8s.io': 'elimination kube-system/csi-nfs-node' },
    ],
    // no CSIDriver object (it is optional): a PV in use names the driver
    [
      'nfs known from a PV',
      [nfsDs(), pv('pvc-7f3e', 'nfs.csi.k8s.io')],
      { ...NFS_DIR, 'nfs.csi.k8s.io': 'elimination kube-system/csi-nfs-node' },
    ],
    // ... or the kubelet's registrations
    [
      'nfs known from CSINodes',
      [nfsDs(), csiNode('node-01', ['nfs.csi.k8s.io'])],
      { ...NFS_DIR, 'nfs.csi.k8s.io': 'elimination kube-system/csi-nfs-node' },
    ],
    // `domain/name` provisioners cannot be CSI drivers: they neither block nor get paired
    [
      'nfs beside local-path and no-provisioner StorageClasses',
      [
        nfsDs(),
        csiDriver('nfs.csi.k8s.io'),
        sc('local-path', 'rancher.io/local-path'),
        sc('local-storage', 'kubernetes.io/no-provisioner'),
      ],
      { ...NFS_DIR, 'nfs.csi.k8s.io': 'elimination kube-system/csi-nfs-node' },
    ],
    // the Linux and Windows plugins of smb both name smb.csi.k8s.io, so neither is a candidate
    [
      'nfs beside smb on Linux and Windows',
      [smbDs(), smbWinDs(), nfsDs(), csiDriver('smb.csi.k8s.io'), csiDriver('nfs.csi.k8s.io')],
      {
        'smb.csi.k8s.io': 'registration-path kube-system/csi-smb-node',
        ...NFS_DIR,
        'nfs.csi.k8s.io': 'elimination kube-system/csi-nfs-node',
      },
    ],
  ])('%s', (_name, objects, want) => {
    expect(matches(indexOf(objects))).toEqual(want);
  });

  it('findPluginDaemonSets, as group.ts and correlate.ts call it, returns the DaemonSet found by elimination', () => {
    expect(
      findPluginDaemonSets(indexOf([nfsDs(), csiDriver('nfs.csi.k8s.io')])).get('nfs.csi.k8s.io')?.metadata?.name,
    ).toBe('csi-nfs-node');
  });
});

describe('what pairs nothing', () => {
  it.each<[string, { kind?: string }[], KindKey[], Record<string, string>]>([
    // two unmatched drivers, two unclaimed plugins (nfs installed twice, smb's plugin missing): ambiguous
    [
      'two drivers, two plugins',
      [nfsDs(), nfsDs({ namespace: 'nfs-legacy' }), csiDriver('nfs.csi.k8s.io'), csiDriver('smb.csi.k8s.io')],
      [],
      { 'csi-nfsplugin': 'registration-path kube-system/csi-nfs-node' },
    ],
    // one driver, two plugins that both look like nfs: ambiguous, and the name token matches both
    [
      'one driver, two nfs plugins',
      [nfsDs(), nfsDs({ namespace: 'nfs-legacy' }), csiDriver('nfs.csi.k8s.io')],
      [],
      { 'csi-nfsplugin': 'registration-path kube-system/csi-nfs-node' },
    ],
    // two nfs drivers, one plugin: "nfs" names it for both
    [
      'two nfs drivers, one plugin',
      [nfsDs(), csiDriver('nfs.csi.k8s.io'), csiDriver('nfs.csi.example.com')],
      [],
      NFS_DIR,
    ],
    // a provisioner name alone does not prove a CSI driver
    ['nfs known only from a StorageClass', [nfsDs(), sc('nfs-csi', 'nfs.csi.k8s.io')], [], NFS_DIR],
    // ebs's plugin names ebs.csi.aws.com, which nothing else mentions: it is still ebs's, not nfs's
    ['a plugin naming a dotted driver is never taken for another', [ebsDs(), csiDriver('nfs.csi.k8s.io')], [], EBS],
    // absence proves nothing when a kind could not be read (a second driver may be hiding there)
    ['CSINodes unreadable', [nfsDs(), csiDriver('nfs.csi.k8s.io')], ['csiNodes'], NFS_DIR],
    ['PersistentVolumes unreadable', [nfsDs(), csiDriver('nfs.csi.k8s.io')], ['pvs'], NFS_DIR],
    // no known driver at all: nothing to pair
    ['no driver known', [ebsDs(), nfsDs()], [], { ...EBS, ...NFS_DIR }],
  ])('%s', (_name, objects, unreadable, want) => {
    expect(matches(indexOf(objects, unreadable))).toEqual(want);
  });
});

describe('name token: used only when elimination pairs nothing', () => {
  it.each<[string, { kind?: string }[], Record<string, string>]>([
    // two unmatched drivers (smb's plugin is missing), one plugin: "nfs" is a token of csi-nfs-node / csi-nfsplugin
    [
      'two drivers, one plugin',
      [nfsDs(), csiDriver('nfs.csi.k8s.io'), csiDriver('smb.csi.k8s.io')],
      { ...NFS_DIR, 'nfs.csi.k8s.io': 'name-token kube-system/csi-nfs-node' },
    ],
    // one driver, two plugins: only one of them says nfs
    [
      'one driver, two plugins',
      [nfsDs(), vendorDs(), csiDriver('nfs.csi.k8s.io')],
      { ...NFS_DIR, 'nfs.csi.k8s.io': 'name-token kube-system/csi-nfs-node' },
    ],
    // ... unless both do
    ['one driver, two plugins saying nfs', [nfsDs(), vendorDs('nfs-node-agent'), csiDriver('nfs.csi.k8s.io')], NFS_DIR],
    // a registration directory alone carries the token ("csi-nfsplugin" -> csi, nfs)
    [
      'the registration directory',
      [nfsDs({ name: 'storage-node' }), vendorDs(), csiDriver('nfs.csi.k8s.io')],
      {
        'csi-nfsplugin': 'registration-path kube-system/storage-node',
        'nfs.csi.k8s.io': 'name-token kube-system/storage-node',
      },
    ],
  ])('%s', (_name, objects, want) => {
    expect(matches(indexOf(objects))).toEqual(want);
  });

  it.each<[string, string | undefined]>([
    ['nfs.csi.k8s.io', 'nfs'],
    ['cephfs.csi.ceph.com', 'cephfs'],
    // generic first labels and labels under 3 characters never match
    ['csi.vsphere.vmware.com', undefined],
    ['file.csi.azure.com', undefined],
    ['disk.csi.azure.com', undefined],
    ['pd.csi.storage.gke.io', undefined],
    ['x.example.com', undefined],
  ])('token of %s', (driver, want) => {
    expect(driverToken(driver)).toBe(want);
  });

  it.each<[string, string[]]>([
    ['csi-nfsplugin', ['csi', 'nfs']],
    ['csi-cephfsplugin', ['csi', 'cephfs']],
    ['csi-nfs-node', ['csi', 'nfs', 'node']],
    // "plugin" alone stays a (generic) token
    ['plugin', ['plugin']],
  ])('tokens of %s', (name, want) => {
    expect([...nameTokens(name)]).toEqual(want);
  });
});

describe('overrides still win', () => {
  it.each<[string, { kind?: string }[], DriverDaemonSets, Record<string, string>]>([
    // the override names the same DaemonSet elimination would find: recorded as the override
    [
      'same DaemonSet',
      [nfsDs(), csiDriver('nfs.csi.k8s.io')],
      { 'nfs.csi.k8s.io': { namespace: 'kube-system', name: 'csi-nfs-node' } },
      { ...NFS_DIR, 'nfs.csi.k8s.io': 'override kube-system/csi-nfs-node' },
    ],
    // the override names another DaemonSet than elimination would
    [
      'another DaemonSet',
      [nfsDs(), ebsDs(), csiDriver('nfs.csi.k8s.io')],
      { 'nfs.csi.k8s.io': { namespace: 'kube-system', name: 'ebs-csi-node' } },
      { ...EBS, ...NFS_DIR, 'nfs.csi.k8s.io': 'override kube-system/ebs-csi-node' },
    ],
    // an override settles one driver and its plugin, which leaves one of each for elimination
    [
      'one by override, one by elimination',
      [nfsDs(), vendorDs(), csiDriver('nfs.csi.k8s.io'), csiDriver('block.vendor.example.com')],
      { 'block.vendor.example.com': { namespace: 'vendor-storage', name: 'storage-node-agent' } },
      {
        ...NFS_DIR,
        'nfs.csi.k8s.io': 'elimination kube-system/csi-nfs-node',
        'block.vendor.example.com': 'override vendor-storage/storage-node-agent',
      },
    ],
    // an override naming a missing DaemonSet takes no part
    [
      'missing DaemonSet',
      [nfsDs(), csiDriver('nfs.csi.k8s.io')],
      { 'nfs.csi.k8s.io': { namespace: 'kube-system', name: 'gone' } },
      { ...NFS_DIR, 'nfs.csi.k8s.io': 'elimination kube-system/csi-nfs-node' },
    ],
  ])('%s', (_name, objects, overrides, want) => {
    expect(matches(indexOf(objects), overrides)).toEqual(want);
  });
});

describe('clusters whose plugins name their drivers are unchanged', () => {
  /** The rule before the fallback: the first DaemonSet by namespace/name declaring each name. */
  function byPathOnly(all: DaemonSet[]): Record<string, string> {
    const out: Record<string, string> = {};
    const sorted = [...all].sort((a, b) =>
      nsKey(a.metadata?.namespace, a.metadata?.name).localeCompare(nsKey(b.metadata?.namespace, b.metadata?.name)),
    );
    for (const ds of sorted)
      for (const d of driversOfTemplate(ds.spec?.template)) out[d] ??= `${ds.metadata?.namespace}/${ds.metadata?.name}`;
    return out;
  }
  const strip = (m: Record<string, string>) =>
    Object.fromEntries(Object.entries(m).map(([d, v]) => [d, v.split(' ')[1]]));

  it('ebs, efs and smb in use: every driver by registration path', () => {
    const dss = [ebsDs(), efsDs(), smbDs(), smbWinDs()];
    const drivers = ['ebs.csi.aws.com', 'efs.csi.aws.com', 'smb.csi.k8s.io'];
    const m = matches(
      indexOf([
        ...dss,
        ...drivers.map(csiDriver),
        sc('gp3', 'ebs.csi.aws.com'),
        sc('efs-sc', 'efs.csi.aws.com'),
        pv('pvc-1', 'ebs.csi.aws.com'),
        pv('pvc-2', 'efs.csi.aws.com'),
        csiNode('node-01', drivers),
      ]),
    );
    expect(m).toEqual({
      ...EBS,
      'efs.csi.aws.com': 'registration-path kube-system/efs-csi-node',
      'smb.csi.k8s.io': 'registration-path kube-system/csi-smb-node',
    });
    expect(strip(m)).toEqual(byPathOnly(dss));
  });

  it('a plugin that names its driver by flag is recorded as such', () => {
    const ds = nfsDs();
    ds.spec!.template!.spec!.containers!.find((c) => c.name === 'nfs')!.args!.push('--drivername=nfs.csi.k8s.io');
    expect(matches(indexOf([ds, csiDriver('nfs.csi.k8s.io')]))).toEqual({
      ...NFS_DIR,
      'nfs.csi.k8s.io': 'driver-flag kube-system/csi-nfs-node',
    });
  });

  describeUpstream('clusters of every upstream node plugin', () => {
    it('every rendered DaemonSet of the real manifests (INDEX.tsv) but nfs, with a CSIDriver per driver: same as by path', () => {
      const files = readFileSync(`${MANIFESTS}/INDEX.tsv`, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split('\t')[0] ?? '');
      const dss: DaemonSet[] = [];
      for (const f of files)
        for (const d of manifestDocs(f)) {
          const name = (d.metadata as { name?: unknown } | undefined)?.name;
          // unrendered Helm templates (no string name) cannot exist in a cluster; nfs is the case the fallback is for
          if (d.kind === 'DaemonSet' && typeof name === 'string' && name !== 'csi-nfs-node')
            dss.push(daemonSet(f, name));
        }
      const drivers = [...new Set(dss.flatMap((ds) => driversOfTemplate(ds.spec?.template)))];
      const m = matches(indexOf([...dss, ...drivers.map(csiDriver), csiNode('node-01', drivers)]));
      expect(new Set(Object.values(m).map((v) => v.split(' ')[0]))).toEqual(new Set(['registration-path']));
      expect(strip(m)).toEqual(byPathOnly(dss));
    });
  });
});

describe('describePluginMatch', () => {
  it.each<[string, DriverDaemonSets, RegExp]>([
    [
      'elimination',
      {},
      /^node plugin kube-system\/csi-nfs-node of nfs\.csi\.k8s\.io found by elimination: .*RWX_DRIVER_DAEMONSETS=nfs\.csi\.k8s\.io=namespace\/name$/,
    ],
    [
      'override',
      { 'nfs.csi.k8s.io': { namespace: 'kube-system', name: 'csi-nfs-node' } },
      /found by the RWX_DRIVER_DAEMONSETS override$/,
    ],
  ])('%s', (_name, overrides, want) => {
    const m = matchPluginDaemonSets(indexOf([nfsDs(), csiDriver('nfs.csi.k8s.io')]), overrides).get('nfs.csi.k8s.io')!;
    expect(describePluginMatch('nfs.csi.k8s.io', m)).toMatch(want);
  });

  it('name token', () => {
    const m = matchPluginDaemonSets(indexOf([nfsDs(), csiDriver('nfs.csi.k8s.io'), csiDriver('smb.csi.k8s.io')])).get(
      'nfs.csi.k8s.io',
    )!;
    expect(describePluginMatch('nfs.csi.k8s.io', m)).toContain(
      'found by name: "nfs" of nfs.csi.k8s.io names kube-system/csi-nfs-node',
    );
  });
});

describe('the correlator sees an nfs rollout without an override', () => {
  // csi-nfs-node rolling from revision 1 to 2 without Bidirectional propagation on pods-mount-dir, on 4 of 10
  // nodes; 3 pods with nfs claims stuck there.
  function nfsRollout(extra: { kind?: string }[]): ClusterIndex {
    const ds = nfsDs();
    const t1 = ds.spec!.template!;
    const nodes = Array.from({ length: 10 }, (_, i) => `n-${String(i + 1).padStart(2, '0')}`);
    const on2 = new Set(nodes.slice(0, 4));
    const out: { kind?: string }[] = [
      ds,
      ...extra,
      ...nodes.map((n) => node(n)),
      revision(ds, 'h1', 1, t1, ago(300 * DAY)),
      revision(ds, 'h2', 2, withoutPropagation(t1, 'pods-mount-dir'), ago(2 * HOUR + 5 * MIN)),
    ];
    for (const n of nodes)
      out.push(pluginPod(ds, n, on2.has(n) ? 'h2' : 'h1', on2.has(n) ? ago(2 * HOUR) : ago(30 * DAY)));
    for (const [i, n] of ['n-01', 'n-02', 'n-03'].entries()) {
      const name = `media-${i}`;
      out.push(...claim('web', `c-${name}`, 'nfs.csi.k8s.io', ['ReadWriteMany'], 'nfs-csi'));
      out.push(
        pod(name, {
          ns: 'web',
          node: n,
          scheduled: ago(20 * MIN),
          claims: { data: `c-${name}` },
          owner: { kind: 'StatefulSet', name, uid: `uid-sts-${name}` },
        }),
      );
      out.push(event('web', name, 'FailedMount', failedMount(['data']), ago(MIN), 5));
    }
    return indexOf(out);
  }
  const verdicts = (index: ClusterIndex) => evaluate(index, { now: NOW }).incidents.map((i) => [i.key, i.verdict]);

  it('with the CSIDriver: FOLLOWS_ROLLOUT of csi-nfs-node revision 2', () => {
    expect(verdicts(nfsRollout([csiDriver('nfs.csi.k8s.io')]))).toEqual([
      ['rollout/kube-system/csi-nfs-node@2', 'FOLLOWS_ROLLOUT'],
    ]);
  });

  it('says the plugin was found by elimination, and how to override it', () => {
    const [inc] = evaluate(nfsRollout([csiDriver('nfs.csi.k8s.io')]), { now: NOW }).incidents;
    expect(inc?.explanations?.at(-1)).toBe(
      'Node plugin kube-system/csi-nfs-node of nfs.csi.k8s.io found by elimination: it is the only node plugin ' +
        'DaemonSet that names no known driver, and nfs.csi.k8s.io the only known driver without one; if that is wrong, set ' +
        'RWX_DRIVER_DAEMONSETS=nfs.csi.k8s.io=namespace/name.',
    );
  });

  // One source for "why it looks like something else": every explanation `rwx scan` prints, the guessed-plugin
  // line included, is a line of the thread's evidence reply.
  it('the thread carries the same explanations as the terminal, the guessed plugin included', () => {
    const [inc] = evaluate(nfsRollout([csiDriver('nfs.csi.k8s.io')]), { now: NOW }).incidents;
    const slack = JSON.stringify(renderEvidenceReply(inc!).blocks);
    const terminal = renderIncident(inc!).join('\n');
    expect(inc?.explanations?.length).toBeGreaterThan(3);
    // The first reply holds those its budget has room for, in order, and names the rest (rwx scan prints them).
    const inSlack = (e: string) => slack.includes(JSON.stringify(slackDates(escapeSlack(e))).slice(1, -1));
    const shown = (inc?.explanations ?? []).filter(inSlack).length;
    expect(shown).toBeGreaterThan(3);
    (inc?.explanations ?? []).forEach((e, i) => expect(inSlack(e)).toBe(i < shown)); // times as Slack dates
    for (const e of inc?.explanations ?? []) expect(terminal).toContain(e);
    if (shown < (inc?.explanations?.length ?? 0)) expect(slack).toMatch(/Not shown here: [^"]*more explanations/);
    expect(terminal).toContain('found by elimination');
  });

  it('two unclaimed plugins that both say nfs: no guess, the incident stays unexplained', () => {
    expect(verdicts(nfsRollout([csiDriver('nfs.csi.k8s.io'), vendorDs('nfs-node-agent')]))).toEqual([
      ['unexplained/nfs.csi.k8s.io', 'UNEXPLAINED'],
    ]);
  });
});
