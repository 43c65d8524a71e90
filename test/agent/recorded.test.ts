// `rwx agent --once` on a recorded node (recorded-node.ts), read through --proc. Covers what real namespaces here
// cannot: NFS mounts and their options, containers named by their cgroup path, a process that exits mid-scan.
import { afterAll, describe, expect, it } from 'vitest';
import { findingText, nodeFindings } from '../../src/detect/node-findings.js';
import { reportSchema } from '../../src/agent/report.js';
import type { AgentReport } from '../../src/domain/node-report.js';
import { rwx } from '../correlate/cli-run.js';
import { HOST_NS, PLUGIN_NS, recordedNode, sha } from './recorded-node.js';

const { K, PROC, remove } = recordedNode();
afterAll(remove);

async function scan(...extra: string[]): Promise<{ code: number; report: AgentReport }> {
  const r = await rwx(
    'agent',
    '--once',
    '-o',
    'json',
    '--proc',
    PROC,
    '--kubelet-dir',
    `${K}/`,
    '--node',
    'node-19',
    ...extra,
  );
  expect(r.stderr).toBe('');
  return { code: r.code, report: reportSchema.parse(JSON.parse(r.stdout)) };
}

describe('rwx agent --once on a recorded node', () => {
  it('proves propagation lost: the plugin namespace holds 3 CSI mounts the host lacks, named by its cgroup', async () => {
    const { code, report } = await scan();
    expect(code).toBe(2);
    const p = report.propagation;
    expect(p).toMatchObject({ status: 'lost', hostNamespace: HOST_NS, hostCsiMounts: 4, processesScanned: 5 });
    expect(p.namespacesScanned).toBe(3);
    expect(p.unreadableProcesses).toEqual([]);
    expect(p.namespaces.map((n) => n.id)).toEqual([PLUGIN_NS]); // postgres has nothing under the kubelet dir
    const ns = p.namespaces[0];
    expect(ns?.processes).toEqual([
      {
        pid: 4242,
        comm: 'aws-ebs-csi-dri',
        podUid: 'ab12cd34-5678-4abc-9def-0123456789ab',
        containerId: 'c'.repeat(64),
      },
      { pid: 4250, comm: 'livenessprobe', podUid: 'ab12cd34-5678-4abc-9def-0123456789ab', containerId: 'c'.repeat(64) },
    ]);
    // The projected token and the socket-dir bind are the host's own directories: not hidden.
    expect(ns).toMatchObject({ processCount: 2, mountsUnderKubeletDir: 5, csiMounts: 3 });
    expect(ns?.hidden.map((m) => [m.mountPoint.slice(K.length), m.driver, m.pv])).toEqual([
      [`/plugins/kubernetes.io/csi/ebs.csi.aws.com/${sha('vol-pg')}/globalmount`, 'ebs.csi.aws.com', 'pvc-a17c5b2e'],
      [
        '/pods/99999999-0000-4000-8000-000000000019/volumes/kubernetes.io~csi/pvc-a17c5b2e/mount',
        'ebs.csi.aws.com',
        'pvc-a17c5b2e',
      ],
      ['/pods/99999999-0000-4000-8000-000000000020/volumes/kubernetes.io~csi/pvc-b2/mount', undefined, 'pvc-b2'],
    ]);
    const text = nodeFindings(report, { pluginPodUid: 'ab12cd34-5678-4abc-9def-0123456789ab' }).map(findingText);
    expect(text[0]).toBe(
      `node-19: the node plugin's mount namespace holds 3 CSI mounts under ${K} that the host cannot see: propagation lost`,
    );
  });

  it('reports staged volumes: in use, orphaned, hidden in the plugin namespace; a directory without globalmount is none', async () => {
    const { report } = await scan();
    const v = report.stagedVolumes.volumes.map((x) => [x.driver, x.pv ?? x.sha, x.state, x.podMounts, x.podUids]);
    expect(v).toEqual([
      ['ebs.csi.aws.com', 'pvc-a17c5b2e', 'HIDDEN', 0, ['99999999-0000-4000-8000-000000000019']],
      ['ebs.csi.aws.com', sha('vol-orphan'), 'ORPHANED', 0, []],
      ['nfs.csi.k8s.io', 'vol-x', 'IN_USE', 1, ['66666666-7777-4888-8999-000000000001']],
    ]);
    expect(report.stagedVolumes.status).toBe('orphaned');
  });

  it('reports the NFS mount options per volume, the globalmount and its bind mount as one', async () => {
    const { report } = await scan();
    expect(report.mountOptions.volumes.map((v) => [v.volume, v.driver, v.fstype, v.mounts, v.options])).toEqual([
      [
        'pv-soft',
        'nfs.csi.k8s.io',
        'nfs',
        1,
        expect.objectContaining({ vers: '3', recovery: 'soft', lock: 'nolock,local_lock=all' }),
      ],
      ['vol-x', 'nfs.csi.k8s.io', 'nfs4', 2, expect.objectContaining({ vers: '4.1', recovery: 'hard', timeo: '600' })],
    ]);
    expect(report.mountOptions.volumes[1]?.raw).toContain('rw,relatime,rw,vers=4.1,rsize=1048576');
  });

  it('says it cannot know when the host mount namespace is unreadable, and never reports ok', async () => {
    const { code, report } = await scan('--host-pid', '77'); // the kubelet's entry has no mountinfo
    expect(code).toBe(2);
    expect(report.propagation.status).toBe('unknown');
    expect(report.stagedVolumes.status).toBe('unknown');
    expect(report.mountOptions.status).toBe('unknown');
    expect(report.problems[0]).toMatch(/^cannot read the host mount namespace \(.*\/77\/mountinfo\): ENOENT$/);
    expect(nodeFindings(report).map(findingText)[0]).toMatch(
      /^node-19: the agent could not check propagation, so nothing is proven/,
    );
  });

  it('prints the same report as text with the findings first', async () => {
    const r = await rwx('agent', '--once', '--proc', PROC, '--kubelet-dir', K, '--node', 'node-19');
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /^node node-19: agent \S+ report at \S+\n\nFINDINGS\n {4}node-19: the mount namespace of pid 4242 aws-ebs-csi-dri, pid 4250 livenessprobe holds 3 CSI mounts/,
    );
    expect(r.stdout).toContain('\nSTAGED VOLUMES  orphaned\n');
    expect(r.stdout).toMatch(/\n {4}pv-soft +nfs +3 +soft +30 /);
  });

  it('reads the kubelet dir under --host-root while matching mountinfo paths as the host names them', async () => {
    const debug = recordedNode({ hostRoot: true });
    try {
      const args = [
        '--proc',
        debug.PROC,
        '--kubelet-dir',
        debug.K,
        '--node',
        'node-19',
        '--host-root',
        `${debug.root}/host/`,
      ];
      const r = await rwx('agent', '--once', '-o', 'json', ...args);
      const report = reportSchema.parse(JSON.parse(r.stdout));
      expect(report.stagedVolumes.volumes.map((v) => [v.state, v.podUids.length])).toEqual([
        ['HIDDEN', 1],
        ['ORPHANED', 0],
        ['IN_USE', 1],
      ]);
      // Without it the kubelet dir is not found, and the report says so instead of proving anything.
      const without = await rwx('agent', '--once', '-o', 'json', ...args.slice(0, 6));
      const w = reportSchema.parse(JSON.parse(without.stdout));
      expect(w.stagedVolumes.status).toBe('unknown');
      expect(w.problems[0]).toMatch(/^cannot read the kubelet dir .*: ENOENT/);
    } finally {
      debug.remove();
    }
  });

  // Each case: extra flags, the problem that makes every check unknown instead of ok.
  it.each([
    [
      ['--kubelet-dir', '/nonexistent/kubelet'],
      /^cannot read the kubelet dir \/nonexistent\/kubelet: ENOENT \(is --kubelet-dir the path the host uses\?\)$/,
    ],
    [
      ['--host-pid', String(process.pid)],
      /^the host pid \d+ is this agent itself: it does not run in the host's PID namespace \(hostPID\)$/,
    ],
  ])('%j: unknown, never ok', async (flags, problem) => {
    const args = ['agent', '--once', '-o', 'json', '--proc', PROC, '--kubelet-dir', K, '--node', 'node-19', ...flags];
    const r = await rwx(...args);
    const report = reportSchema.parse(JSON.parse(r.stdout));
    expect(r.code).toBe(2);
    expect(report.problems).toContainEqual(expect.stringMatching(problem));
    expect([report.propagation.status, report.stagedVolumes.status, report.mountOptions.status]).toEqual([
      'unknown',
      'unknown',
      'unknown',
    ]);
  });
});
