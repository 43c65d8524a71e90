// diffTemplates: storage and security changes first, with the exact one-line texts the incident shows.
import { describe, expect, it } from 'vitest';
import type { PodTemplate } from '../../src/domain/objects.js';
import { diffTemplates } from '../../src/correlate/revision-diff.js';
import { ebsDaemonSet, withoutPropagation } from '../detect/builders.js';

const base = (): PodTemplate => ({
  spec: {
    containers: [
      {
        name: 'plugin',
        image: 'driver:v1.30.0',
        args: ['--endpoint=unix:/csi/csi.sock'],
        securityContext: { privileged: true },
        volumeMounts: [
          { name: 'kubelet-dir', mountPath: '/var/lib/kubelet', mountPropagation: 'Bidirectional' },
          { name: 'plugin-dir', mountPath: '/csi' },
        ],
      },
    ],
    volumes: [
      { name: 'kubelet-dir', hostPath: { path: '/var/lib/kubelet', type: 'Directory' } },
      { name: 'plugin-dir', hostPath: { path: '/var/lib/kubelet/plugins/x/' } },
    ],
  },
});

/** base() changed by `f`. */
const changed = (f: (t: PodTemplate) => void): PodTemplate => {
  const t = base();
  f(t);
  return t;
};
const c0 = (t: PodTemplate) => t.spec!.containers![0]!;

describe('diffTemplates', () => {
  it.each<[string, PodTemplate, string[]]>([
    // the propagation-loss change: Bidirectional removed, absent means None, printed "none"
    [
      'propagation removed',
      changed((t) => {
        delete c0(t).volumeMounts![0]!.mountPropagation;
      }),
      ['kubelet-dir: mountPropagation Bidirectional -> none'],
    ],
    // absent propagation (None) to HostToContainer reads from "none"
    [
      'None to HostToContainer',
      changed((t) => {
        c0(t).volumeMounts![1]!.mountPropagation = 'HostToContainer';
      }),
      ['plugin-dir: mountPropagation none -> HostToContainer'],
    ],
    // image bump only
    [
      'image',
      changed((t) => {
        c0(t).image = 'driver:v1.31.0';
      }),
      ['plugin: image driver:v1.30.0 -> driver:v1.31.0'],
    ],
    // privileged dropped
    [
      'privileged',
      changed((t) => {
        c0(t).securityContext = { privileged: false };
      }),
      ['plugin: privileged true -> false'],
    ],
    // capability added
    [
      'capabilities',
      changed((t) => {
        c0(t).securityContext = { privileged: true, capabilities: { add: ['SYS_ADMIN'] } };
      }),
      ['plugin: capabilities.add [] -> [SYS_ADMIN]'],
    ],
    // hostPath moved to another kubelet root
    [
      'hostPath',
      changed((t) => {
        t.spec!.volumes![0]!.hostPath!.path = '/var/data/kubelet';
      }),
      ['volume kubelet-dir: hostPath /var/lib/kubelet -> /var/data/kubelet'],
    ],
    // a mount removed entirely
    [
      'mount removed',
      changed((t) => {
        c0(t).volumeMounts!.splice(1, 1);
      }),
      ['plugin-dir: volumeMount /csi (none) -> absent'],
    ],
    // args are "other"
    [
      'args',
      changed((t) => {
        c0(t).args = ['--endpoint=unix:/csi/csi.sock', '--v=5'];
      }),
      ['plugin: args ["--endpoint=unix:/csi/csi.sock"] -> ["--endpoint=unix:/csi/csi.sock","--v=5"]'],
    ],
    // identical templates
    ['identical', base(), []],
  ])('%s', (_name, to, texts) => {
    expect(diffTemplates(base(), to).map((c) => c.text)).toEqual(texts);
  });

  it('explicit None and absent propagation are equal', () => {
    const to = changed((t) => {
      c0(t).volumeMounts![1]!.mountPropagation = 'None';
    });
    expect(diffTemplates(base(), to)).toEqual([]);
  });

  it('orders storage, security, image, other regardless of where they occur', () => {
    const to = changed((t) => {
      c0(t).args = [];
      c0(t).image = 'driver:v2';
      c0(t).securityContext = { privileged: false };
      delete c0(t).volumeMounts![0]!.mountPropagation;
    });
    expect(diffTemplates(base(), to).map((c) => c.category)).toEqual(['storage', 'security', 'image', 'other']);
  });

  it('names the container and the field path of the propagation-loss change on the real ebs manifest', () => {
    const t1 = ebsDaemonSet().spec!.template!;
    const changes = diffTemplates(t1, withoutPropagation(t1, 'kubelet-dir'));
    expect(changes).toEqual([
      {
        category: 'storage',
        container: 'ebs-plugin',
        field: 'volumeMount kubelet-dir mountPropagation',
        from: 'Bidirectional',
        to: 'none',
        text: 'kubelet-dir: mountPropagation Bidirectional -> none',
      },
    ]);
  });

  it('copes with missing templates', () => {
    expect(diffTemplates(undefined, undefined)).toEqual([]);
    expect(diffTemplates(undefined, base()).length).toBeGreaterThan(0);
  });
});
