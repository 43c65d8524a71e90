// The claim -> CSI driver rule that triage, `rwx triage --driver` and the detectors share.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { PersistentVolumeClaim } from '../../src/domain/objects.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import { claimDriver } from '../../src/detect/storage-path.js';
import { claim } from './builders.js';

function indexWith(build: (s: ReturnType<typeof emptySnapshot>) => void): ClusterIndex {
  const s = emptySnapshot();
  s.storageClasses.push({ kind: 'StorageClass', metadata: { name: 'gp3' }, provisioner: 'ebs.csi.aws.com' });
  build(s);
  return ClusterIndex.fromSnapshot(s);
}

const unbound = (sc?: string): PersistentVolumeClaim => ({
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns' },
  spec: { accessModes: ['ReadWriteMany'], ...(sc !== undefined ? { storageClassName: sc } : {}) },
  status: { phase: 'Pending' },
});

describe('claimDriver', () => {
  it.each<[string, () => [ClusterIndex, PersistentVolumeClaim], string | undefined]>([
    // a bound claim: its PV's CSI driver, even when the class names another provisioner
    [
      'bound CSI',
      () => {
        const [pvc, pv] = claim('ns', 'c', 'nfs.csi.k8s.io');
        return [indexWith((s) => (s.pvcs.push(pvc), s.pvs.push(pv))), pvc];
      },
      'nfs.csi.k8s.io',
    ],
    // a bound in-tree PV has no CSI driver: not the class's provisioner
    [
      'bound in-tree',
      () => {
        const [pvc, pv] = claim('ns', 'c', 'x');
        delete pv.spec!.csi;
        pv.spec!.nfs = { server: 'filer', path: '/export' };
        return [indexWith((s) => (s.pvcs.push(pvc), s.pvs.push(pv))), pvc];
      },
      undefined,
    ],
    // no PV yet: the class's provisioner will serve it
    ['unbound', () => [indexWith(() => {}), unbound('gp3')], 'ebs.csi.aws.com'],
    // bound to a PV the index does not hold (pvs not readable): the class still says which driver
    [
      'PV not in the index',
      () => {
        const [pvc] = claim('ns', 'c', 'other');
        return [indexWith(() => {}), pvc];
      },
      'ebs.csi.aws.com',
    ],
    // no class, or a class that does not exist: unknown
    ['no class', () => [indexWith(() => {}), unbound()], undefined],
    ['missing class', () => [indexWith(() => {}), unbound('gone')], undefined],
  ])('%s', (_name, build, want) => {
    const [index, pvc] = build();
    expect(claimDriver(index, pvc)).toBe(want);
  });
});
