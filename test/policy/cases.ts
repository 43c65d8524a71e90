// Synthetic objects, each isolating one clause of the rule in docs/policy.md; shared by the checker's table test
// and the admission-policy agreement test.
import type { Container, KubeObject, Volume } from '../../src/domain/objects.js';

const REGISTRAR: Container = {
  name: 'node-driver-registrar',
  image: 'registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.11.1',
};

function ds(
  containers: Container[],
  volumes: Volume[],
  extra: { kind?: string; nodeSelector?: Record<string, string> } = {},
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: extra.kind ?? 'DaemonSet',
    metadata: { name: 'plugin', namespace: 'kube-system' },
    spec: {
      template: { spec: { containers, volumes, ...(extra.nodeSelector ? { nodeSelector: extra.nodeSelector } : {}) } },
    },
  };
}
const hp = (name: string, path: string): Volume => ({ name, hostPath: { path } });
const plugin = (...mounts: { name: string; p?: string }[]): Container => ({
  name: 'plugin',
  image: 'example.com/driver:v1',
  volumeMounts: mounts.map((m) => ({ name: m.name, mountPath: '/x', ...(m.p ? { mountPropagation: m.p } : {}) })),
});
const B = 'Bidirectional';

/** [name, object, expected verdict]: 'pass', 'ignored', 'skipped', or "RULE container/volumeMount"s. */
export const CASES: [string, KubeObject, string][] = [
  // the whole kubelet root, Bidirectional: the canonical plugin
  ['root Bidirectional', ds([REGISTRAR, plugin({ name: 'k', p: B })], [hp('k', '/var/lib/kubelet')]), 'pass'],
  // the propagation-loss incident: the line is gone, the default is None
  [
    'root without propagation',
    ds([REGISTRAR, plugin({ name: 'k' })], [hp('k', '/var/lib/kubelet')]),
    'NOT_BIDIRECTIONAL plugin/k',
  ],
  // HostToContainer is not enough: mounts must travel outward
  [
    'root HostToContainer',
    ds([REGISTRAR, plugin({ name: 'k', p: 'HostToContainer' })], [hp('k', '/var/lib/kubelet')]),
    'NOT_BIDIRECTIONAL plugin/k',
  ],
  // trailing slashes are the same directory
  [
    'trailing slash',
    ds([REGISTRAR, plugin({ name: 'k' })], [hp('k', '/var/lib/kubelet//')]),
    'NOT_BIDIRECTIONAL plugin/k',
  ],
  // a custom kubelet root counts
  ['custom root', ds([REGISTRAR, plugin({ name: 'k' })], [hp('k', '/var/data/kubelet')]), 'NOT_BIDIRECTIONAL plugin/k'],
  // the pods subtree (and deeper) counts
  [
    'pods dir',
    ds([REGISTRAR, plugin({ name: 'p' })], [hp('p', '/var/lib/kubelet/pods/')]),
    'NOT_BIDIRECTIONAL plugin/p',
  ],
  // the plugins dir and the kubernetes.io/csi staging subtree count
  [
    'plugins staging dir',
    ds(
      [REGISTRAR, plugin({ name: 'p', p: B }, { name: 's' })],
      [hp('p', '/var/lib/kubelet/pods'), hp('s', '/var/lib/kubelet/plugins/kubernetes.io/csi')],
    ),
    'NOT_BIDIRECTIONAL plugin/s',
  ],
  // a driver socket dir under plugins/ and the registration dir do not
  [
    'socket and registration dirs',
    ds(
      [REGISTRAR, plugin({ name: 'p', p: B }, { name: 'sock' }, { name: 'reg' })],
      [
        hp('p', '/var/lib/kubelet'),
        hp('sock', '/var/lib/kubelet/plugins/x.csi.io'),
        hp('reg', '/var/lib/kubelet/plugins_registry'),
      ],
    ),
    'pass',
  ],
  // the volume's name does not matter, only its hostPath
  [
    'any volume name',
    ds([REGISTRAR, plugin({ name: 'whatever', p: B })], [hp('whatever', '/var/lib/kubelet')]),
    'pass',
  ],
  // a sidecar mounting the kubelet dir without propagation is fine
  [
    'sidecar mounts root',
    ds(
      [{ ...REGISTRAR, volumeMounts: [{ name: 'k', mountPath: '/var/lib/kubelet' }] }, plugin({ name: 'k', p: B })],
      [hp('k', '/var/lib/kubelet')],
    ),
    'pass',
  ],
  // a livenessprobe from a private registry is recognised by name
  [
    'sidecar by name',
    ds(
      [
        REGISTRAR,
        { name: 'liveness-probe', image: 'corp/probe:1', volumeMounts: [{ name: 'k', mountPath: '/k' }] },
        plugin({ name: 'k', p: B }),
      ],
      [hp('k', '/var/lib/kubelet')],
    ),
    'pass',
  ],
  // an unused duplicate volume on the same hostPath is fine
  [
    'unused duplicate',
    ds([REGISTRAR, plugin({ name: 'a', p: B })], [hp('a', '/var/lib/kubelet'), hp('b', '/var/lib/kubelet')]),
    'pass',
  ],
  // the kubelet volumeMount removed entirely: nothing reaches the pods dir
  ['no kubelet mount at all', ds([REGISTRAR, plugin()], [hp('k', '/var/lib/kubelet')]), 'NO_PODS_MOUNT /'],
  // only plugins/ is Bidirectional: publish targets under pods/ stay private
  [
    'plugins only',
    ds([REGISTRAR, plugin({ name: 'p', p: B })], [hp('p', '/var/lib/kubelet/plugins')]),
    'NO_PODS_MOUNT /',
  ],
  // StatefulSet node plugins (hostpath) are checked too
  [
    'statefulset',
    ds([REGISTRAR, plugin({ name: 'k' })], [hp('k', '/var/lib/kubelet')], { kind: 'StatefulSet' }),
    'NOT_BIDIRECTIONAL plugin/k',
  ],
  // Deployments are controllers, not node plugins
  [
    'deployment ignored',
    ds([REGISTRAR, plugin({ name: 'k' })], [hp('k', '/var/lib/kubelet')], { kind: 'Deployment' }),
    'ignored',
  ],
  // no registrar and no registration dir: not a node plugin
  ['not a plugin', ds([plugin({ name: 'k' })], [hp('k', '/var/lib/kubelet')]), 'ignored'],
  // the registration dir alone marks a plugin (registrar image renamed)
  [
    'registration dir marks plugin',
    ds([plugin({ name: 'k' })], [hp('k', '/var/lib/kubelet'), hp('r', '/var/lib/kubelet/plugins_registry/')]),
    'NOT_BIDIRECTIONAL plugin/k',
  ],
  // Windows has no propagation
  [
    'windows skipped',
    ds([REGISTRAR, plugin({ name: 'k' })], [hp('k', 'C:\\var\\lib\\kubelet')], {
      nodeSelector: { 'kubernetes.io/os': 'windows' },
    }),
    'skipped',
  ],
  // a Linux selector is not a Windows one
  [
    'linux selector checked',
    ds([REGISTRAR, plugin({ name: 'k' })], [hp('k', '/var/lib/kubelet')], {
      nodeSelector: { 'kubernetes.io/os': 'linux' },
    }),
    'NOT_BIDIRECTIONAL plugin/k',
  ],
  // null fields everywhere do not crash
  [
    'nulls',
    {
      kind: 'DaemonSet',
      spec: {
        template: {
          spec: { containers: [null, { name: 'x', image: REGISTRAR.image, volumeMounts: null }], volumes: null },
        },
      },
    } as unknown as KubeObject,
    'NO_PODS_MOUNT /',
  ],
  // no template at all
  ['no template', { kind: 'DaemonSet', metadata: { name: 'x' } }, 'ignored'],
];
