// What the bot states from node reports, and the one wording of it. Pure table tests.
import { describe, expect, it } from 'vitest';
import type { NodeFinding } from '../../src/domain/node-report.js';
import { mountOptionDifferences } from '../../src/detect/mount-options.js';
import { findingText, nodeFindings, reportNeedsAttention } from '../../src/detect/node-findings.js';
import { buildReport } from '../../src/agent/build.js';
import { parseMountinfo } from '../../src/agent/mountinfo.js';
import { renderReport } from '../../src/render/terminal-node.js';
import { healthyReport, lostReport, nfsVolume } from './report-fixtures.js';

describe('nodeFindings', () => {
  it('states propagation lost in the node plugin namespace when its pod UID is known', () => {
    const f = nodeFindings(lostReport('node-19'), { driver: 'ebs.csi.aws.com', pluginPodUid: 'plugin-uid' });
    expect(f.map(findingText)).toEqual([
      "node-19: the node plugin's mount namespace holds 3 CSI mounts under /var/lib/kubelet that the host cannot see: propagation lost",
    ]);
    expect(f[0]).toMatchObject({ kind: 'PROPAGATION_LOST', mounts: 3, driver: 'ebs.csi.aws.com' });
  });
  it('names the processes when the plugin pod is not known', () => {
    expect(findingText(nodeFindings(lostReport('node-19'))[0] as NodeFinding)).toBe(
      'node-19: the mount namespace of pid 4242 aws-ebs-csi-dri holds 3 CSI mounts under /var/lib/kubelet that the host cannot see: propagation lost',
    );
  });
  it("counts only the incident driver's hidden mounts (and those whose driver the files do not tell)", () => {
    const f = nodeFindings(lostReport('node-19'), { driver: 'other.csi.example.com' });
    expect(f[0]).toMatchObject({ kind: 'PROPAGATION_LOST', mounts: 1 }); // pvc-b2 has no driver on record
  });
  it('states that the mounts are visible from the host when nothing is hidden (the recovery check)', () => {
    expect(nodeFindings(healthyReport('node-19'), { driver: 'ebs.csi.aws.com' }).map(findingText)).toEqual([
      "node-19: every CSI mount of ebs.csi.aws.com under /var/lib/kubelet in the node's 14 mount namespaces is visible from the host (3 on the host)",
    ]);
    expect(reportNeedsAttention(healthyReport('node-19'))).toBe(false);
  });
  it('never says visible when the agent could not read every namespace', () => {
    const r = healthyReport('node-19');
    r.propagation.status = 'unknown';
    r.propagation.unreadableProcesses = [{ pid: 31, reason: 'ns/mnt: EACCES' }];
    const f = nodeFindings(r);
    expect(f.map((x) => x.kind)).toEqual(['PROOF_UNAVAILABLE']);
    expect(findingText(f[0] as NodeFinding)).toBe(
      'node-19: the agent could not check propagation, so nothing is proven either way: 1 process(es) unreadable: 31 (ns/mnt: EACCES)',
    );
    expect(reportNeedsAttention(r)).toBe(true);
  });
  it('states orphaned stage references, and pod directories that still name one', () => {
    const r = healthyReport('node-04');
    const base = {
      layout: 'sha' as const,
      driver: 'ebs.csi.aws.com',
      podMounts: 0,
      path: '/var/lib/kubelet/plugins/x',
    };
    r.stagedVolumes = {
      status: 'orphaned',
      volumes: [
        { ...base, pv: 'pvc-1', state: 'ORPHANED', podUids: [] },
        { ...base, sha: '3f81', state: 'ORPHANED', podUids: ['u1'] },
        { ...base, pv: 'pvc-3', state: 'IN_USE', podMounts: 2, podUids: ['u2', 'u3'] },
        { ...base, pv: 'pvc-4', state: 'LEFTOVER_DIR', podUids: [] },
      ],
    };
    expect(nodeFindings(r).slice(1).map(findingText)).toEqual([
      'node-04: globalmount of pvc-1 (ebs.csi.aws.com) still mounted, 0 pod references',
      'node-04: globalmount of 3f81 (ebs.csi.aws.com) still mounted, 0 pod bind mounts, though the volume directories of pod(s) u1 still name it (a pod starting or stopping?)',
    ]);
    expect(nodeFindings(r, { driver: 'other.example.com' }).filter((f) => f.kind === 'ORPHANED_STAGE')).toEqual([]);
  });
  it('renders for a terminal without the control characters a process can put in its own name', () => {
    const r = lostReport('node-19');
    const p = r.propagation.namespaces[0]?.processes[0];
    if (p) p.comm = '\u001b[2Jevil\u0007';
    const text = renderReport(r);
    expect(text).toContain('pid 4242 [2Jevil holds 3 CSI mounts');
    expect([...text].filter((c) => c !== '\n' && (c < ' ' || (c >= '\u007f' && c <= '\u009f')))).toEqual([]);
  });
  it('labels findings from a simulated agent', () => {
    const r = lostReport('node-19');
    r.simulated = true;
    expect(findingText(nodeFindings(r)[0] as NodeFinding)).toMatch(/^\(simulated agent\) node-19: /);
  });
});

describe('mountOptionDifferences', () => {
  const reportWith = (node: string, ...vols: ReturnType<typeof nfsVolume>[]) =>
    healthyReport(node, { mountOptions: { status: 'ok', volumes: vols } });
  const nodes = (n: number) => Array.from({ length: n }, (_, i) => `node-${String(i + 1).padStart(2, '0')}`);

  it('finds the one node mounting soft while 11 others mount hard', () => {
    const reports = nodes(12).map((n) => reportWith(n, nfsVolume('vol-x', n === 'node-07' ? 'soft' : 'hard')));
    const f = mountOptionDifferences(reports);
    expect(f.map(findingText)).toEqual(['node-07 mounts vol-x soft, 11 other nodes hard']);
    expect(f[0]).toMatchObject({
      option: 'recovery',
      value: 'soft',
      nodes: ['node-07'],
      otherValue: 'hard',
      otherNodes: 11,
    });
  });
  // Each case: what differs on node-02 and node-03, the sentence.
  it.each([
    [{ vers: '3' }, 'node-02, node-03 mount vol-x with vers=3, 4 other nodes with vers=4.1'],
    [{ timeo: undefined }, 'node-02, node-03 mount vol-x without timeo (client default), 4 other nodes with timeo=600'],
    [{ actimeo: 'noac' }, 'node-02, node-03 mount vol-x with noac, 4 other nodes without actimeo (client default)'],
    [{ lock: 'nolock' }, 'node-02, node-03 mount vol-x with nolock, 4 other nodes with local_lock=none'],
  ])('%j', (diff, text) => {
    const reports = nodes(6).map((n) =>
      reportWith(n, nfsVolume('vol-x', 'hard', ['node-02', 'node-03'].includes(n) ? diff : {})),
    );
    expect(mountOptionDifferences(reports).map(findingText)).toEqual([text]);
  });
  it('compares a volume only across the nodes that mount it, and ignores the access mode', () => {
    const reports = [
      reportWith('node-01', nfsVolume('vol-x', 'hard'), nfsVolume('vol-y', 'soft')),
      reportWith('node-02', nfsVolume('vol-x', 'hard', { access: 'ro' })),
      reportWith('node-03'),
    ];
    expect(mountOptionDifferences(reports)).toEqual([]);
  });
  it('keeps to the driver asked about', () => {
    const other = { ...nfsVolume('vol-x', 'soft'), driver: 'other.example.com' };
    const reports = [reportWith('node-01', nfsVolume('vol-x', 'hard')), reportWith('node-02', other)];
    expect(mountOptionDifferences(reports, { driver: 'nfs.csi.k8s.io' })).toEqual([]);
    expect(mountOptionDifferences(reports)).toHaveLength(1);
  });
});

describe('buildReport (pure) on edge cases of propagation', () => {
  const input = (host: string, plugin: string, unreadable: { pid: number; reason: string }[] = []) =>
    buildReport({
      node: 'n',
      agentVersion: 'test',
      now: 0,
      kubeletDir: '/k',
      hostPid: 1,
      host: { namespace: 'mnt:[1]', mounts: parseMountinfo(host).mounts },
      namespaces: [
        { id: 'mnt:[2]', pids: [9], processes: [{ pid: 9, comm: 'plugin' }], mounts: parseMountinfo(plugin).mounts },
      ],
      processesScanned: 2,
      unreadableProcesses: unreadable,
      disk: { stages: [], podVolumes: [], complete: true, problems: [] },
      problems: [],
    });
  const ROOT = '1 0 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n';
  const G = '/k/plugins/kubernetes.io/csi/d/s/globalmount';
  // Each case: host lines, plugin-namespace lines, the status expected.
  it.each([
    [ROOT, `5 1 0:50 / ${G} rw - tmpfs t rw\n`, 'lost'], // only the plugin has it
    [ROOT + `6 1 0:50 / ${G} rw - tmpfs t rw\n`, `5 1 0:50 / ${G} rw - tmpfs t rw\n`, 'ok'], // propagated
    [ROOT + `6 1 0:51 / ${G} rw - tmpfs t rw\n`, `5 1 0:50 / ${G} rw - tmpfs t rw\n`, 'lost'], // host has another fs there
    [ROOT + `6 1 0:50 /sub ${G} rw - tmpfs t rw\n`, `5 1 0:50 / ${G} rw - tmpfs t rw\n`, 'lost'], // same fs, other directory
    [ROOT, '5 1 8:1 /k/plugins/d /k/plugins/d rw - ext4 /dev/sda1 rw\n', 'ok'], // a hostPath bind of a host dir
    [ROOT, '5 1 8:1 /elsewhere /k/plugins/d rw - ext4 /dev/sda1 rw\n', 'ok'], // hidden, but not a CSI path
    [ROOT, `5 1 8:1 /k /k rw - ext4 /dev/sda1 rw\n`, 'ok'], // the kubelet dir itself
  ])('case %#', (host, plugin, status) => {
    expect(input(host, plugin).propagation.status).toBe(status);
  });
  it('is unknown, not ok, when some process could not be read and nothing is hidden', () => {
    expect(input(ROOT, '', [{ pid: 3, reason: 'ns/mnt: EACCES' }]).propagation.status).toBe('unknown');
    expect(input(ROOT, `5 1 0:50 / ${G} rw - tmpfs t rw\n`, [{ pid: 3, reason: 'x' }]).propagation.status).toBe('lost');
  });
});
