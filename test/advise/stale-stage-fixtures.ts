// The stale-stage tests' cluster and staged volumes, shared by the drain advice's table test and the test that the
// thread, /rwx drain, drain-check and triage give one answer (test/pipeline/one-answer.test.ts).
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { StagedVolume } from '../../src/domain/node-report.js';
import type { Snapshot } from '../../src/domain/snapshot.js';
import { DRIVER, baseCluster, healthyClaim, pod, pv, pvc } from '../triage/fixtures.js';

/** The globalmount path of a staged volume of DRIVER. */
export const gm = (sha: string) => `/var/lib/kubelet/plugins/kubernetes.io/csi/${DRIVER}/${sha}/globalmount`;

/** A globalmount of `pvName` still mounted with no pod bind mount (the agent's ORPHANED). */
export function orphan(pvName: string | undefined, sha: string, podUids: string[] = []): StagedVolume {
  return {
    path: gm(sha),
    layout: 'sha',
    driver: DRIVER,
    sha,
    ...(pvName ? { pv: pvName } : {}),
    state: 'ORPHANED',
    source: '/dev/nvme1n1',
    fstype: 'ext4',
    podMounts: 0,
    podUids,
  };
}

/** shop/files (ReadWriteMany) runs on node-01; shop/db (ReadWriteOnce) too, unless `extra` moves things. */
export function shopCluster(extra: (s: Snapshot) => void = () => undefined): ClusterIndex {
  const s = baseCluster();
  healthyClaim(s, 'shop', 'files');
  s.pvcs.push(pvc('shop', 'db', { modes: ['ReadWriteOnce'] }));
  const dbPv = pv('pvc-db', { ns: 'shop', name: 'db' });
  dbPv.spec!.accessModes = ['ReadWriteOnce'];
  s.pvs.push(dbPv);
  s.pods.push(pod('shop', 'db-0', { claim: 'db' }));
  extra(s);
  return ClusterIndex.fromSnapshot(s);
}
