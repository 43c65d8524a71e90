// Small node reports for the bot-side tests (findings, client, rwx node), built field by field.
import {
  REPORT_KIND,
  REPORT_SCHEMA_VERSION,
  type AgentReport,
  type VolumeOptions,
} from '../../src/domain/node-report.js';

/** A healthy report for `node`: one plugin namespace whose CSI mounts the host sees. */
export function healthyReport(node: string, over: Partial<AgentReport> = {}): AgentReport {
  return {
    kind: REPORT_KIND,
    schemaVersion: REPORT_SCHEMA_VERSION,
    agentVersion: '0.1.0',
    node,
    generatedAt: '2026-11-30T09:15:00.000Z',
    kubeletDir: '/var/lib/kubelet',
    hostPid: 1,
    propagation: {
      status: 'ok',
      hostNamespace: 'mnt:[4026531840]',
      hostCsiMounts: 3,
      processesScanned: 212,
      namespacesScanned: 14,
      unreadableProcesses: [],
      namespaces: [
        {
          id: 'mnt:[4026532500]',
          processCount: 1,
          processes: [{ pid: 4242, comm: 'aws-ebs-csi-dri', podUid: 'plugin-uid' }],
          mountsUnderKubeletDir: 4,
          csiMounts: 3,
          hidden: [],
        },
      ],
    },
    stagedVolumes: { status: 'ok', volumes: [] },
    mountOptions: { status: 'ok', volumes: [] },
    problems: [],
    ...over,
  };
}

/** The propagation-loss report of the incident: the plugin namespace holds 3 CSI mounts the host lacks. */
export function lostReport(node: string): AgentReport {
  const r = healthyReport(node);
  const ns = r.propagation.namespaces[0];
  if (!ns) throw new Error('fixture');
  const k = '/var/lib/kubelet';
  const stagePath = `${k}/plugins/kubernetes.io/csi/ebs.csi.aws.com/3f81/globalmount`;
  ns.hidden = [
    {
      mountPoint: stagePath,
      source: '/dev/nvme2n1',
      fstype: 'ext4',
      csi: { kind: 'stage', layout: 'sha', driver: 'ebs.csi.aws.com', sha: '3f81' },
      driver: 'ebs.csi.aws.com',
      pv: 'pvc-a17c',
    },
    {
      mountPoint: `${k}/pods/u19/volumes/kubernetes.io~csi/pvc-a17c/mount`,
      source: '/dev/nvme2n1',
      fstype: 'ext4',
      csi: { kind: 'publish', podUid: 'u19', pv: 'pvc-a17c' },
      driver: 'ebs.csi.aws.com',
      pv: 'pvc-a17c',
    },
    {
      mountPoint: `${k}/pods/u20/volumes/kubernetes.io~csi/pvc-b2/mount`,
      source: '/dev/nvme3n1',
      fstype: 'ext4',
      csi: { kind: 'publish', podUid: 'u20', pv: 'pvc-b2' },
      pv: 'pvc-b2',
    },
  ];
  r.propagation.status = 'lost';
  r.propagation.hostCsiMounts = 0;
  return r;
}

/** A network volume's options on a node. */
export function nfsVolume(
  volume: string,
  recovery: string,
  over: Partial<VolumeOptions['options']> = {},
): VolumeOptions {
  return {
    volume,
    pv: volume,
    driver: 'nfs.csi.k8s.io',
    fstype: 'nfs4',
    source: `10.0.0.5:/export/${volume}`,
    mountPoint: `/var/lib/kubelet/plugins/kubernetes.io/csi/nfs.csi.k8s.io/x/globalmount`,
    mounts: 2,
    options: { vers: '4.1', recovery, timeo: '600', lock: 'local_lock=none', access: 'rw', ...over },
    raw: `rw,relatime,rw,vers=4.1,${recovery},timeo=600`,
  };
}
