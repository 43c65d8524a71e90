// The pure parsers behind the agent: mountinfo lines (escapes, optional fields, the separator, super options),
// the kubelet's CSI paths, cgroup paths, and network mount options. Table tests on recorded text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMountinfo, parseMountinfoLine, unescapeOctal, type MountEntry } from '../../src/agent/mountinfo.js';
import { isNetworkFs, keyOptions } from '../../src/agent/options.js';
import { cgroupRef, csiPathOf, under } from '../../src/agent/paths.js';

const fixture = (f: string) => readFileSync(join(import.meta.dirname, 'fixtures', f), 'utf8');

describe('parseMountinfo on a recorded file with the edge cases', () => {
  const { mounts, problems } = parseMountinfo(fixture('edge-cases.mountinfo'));
  const at = (p: string) => mounts.find((m) => m.mountPoint === p) as MountEntry;

  it('parses every well-formed line and reports the malformed one with its line number', () => {
    expect(mounts).toHaveLength(9);
    expect(problems).toEqual([
      { line: 9, text: 'this line is not mountinfo at all', reason: 'fewer fields than mountinfo has' },
    ]);
  });
  it('unescapes \\040 in mount points and sources, \\011 and \\134 in roots and mount points', () => {
    expect(at('/mnt/my disk').source).toBe('/dev/sdb1');
    expect(at('/srv/back\\slash')).toMatchObject({ root: '/data\ttab', source: '/dev/sd c', fstype: 'xfs' });
    expect(at('/nfs').source).toBe('10.0.0.5:/export/a b');
  });
  // Each case: mount point, the propagation tags expected.
  it.each([
    ['/', { shared: 1, unbindable: false, other: [] }], // shared peer group
    ['/srv/back\\slash', { master: 3, unbindable: false, other: [] }], // slave
    ['/var/lib/kubelet/pods/x', { master: 12, propagateFrom: 4, unbindable: false, other: [] }], // slave with propagate_from
    ['/unbound', { unbindable: true, other: [] }], // unbindable
    ['/many', { shared: 9, master: 8, unbindable: false, other: ['future:tag'] }], // shared and slave, an unknown tag kept
    ['/private-no-tags', { unbindable: false, other: [] }], // private: no optional fields at all
  ])('%s has propagation %j', (point, tags) => {
    expect(at(point).propagation).toEqual(tags);
  });
  it('splits per-mount and per-superblock options around the "-" separator', () => {
    expect(at('/proc')).toMatchObject({
      id: 23,
      parentId: 22,
      dev: '0:21',
      mountOptions: ['rw', 'nosuid', 'nodev', 'noexec', 'relatime'],
      fstype: 'proc',
      superOptions: ['rw'],
    });
    expect(at('/nfs').superOptions).toContain('timeo=600');
  });
  // Each case: a malformed line, the reason.
  it.each([
    ['36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw', 'fewer fields than mountinfo has'], // no separator
    ['x 35 98:0 / /m rw - ext3 /dev/root rw', 'mount ID or parent ID is not a number'],
    ['36 35 98 / /m rw - ext3 /dev/root rw', '"98" is not major:minor'],
    ['36 35 98:0 / /m rw -', 'fewer fields than mountinfo has'], // cut short after the separator
  ])('rejects %j', (line, reason) => {
    expect(parseMountinfoLine(line)).toBe(reason);
  });
  it('takes a "-" in the optional fields position only as the separator, not a path named "-"', () => {
    const m = parseMountinfoLine('40 22 0:50 / /- rw shared:2 - tmpfs - rw') as MountEntry;
    expect(m).toMatchObject({ mountPoint: '/-', fstype: 'tmpfs', source: '-', propagation: { shared: 2 } });
  });
  it('leaves a backslash not followed by three octal digits alone', () => {
    expect(unescapeOctal('a\\x\\04b\\101')).toBe('a\\x\\04bA');
  });
});

describe('the kubelet CSI layout', () => {
  const K = '/var/lib/kubelet';
  // Each case: mount point, classification.
  it.each([
    [
      `${K}/plugins/kubernetes.io/csi/ebs.csi.aws.com/3f81/globalmount`,
      { kind: 'stage', layout: 'sha', driver: 'ebs.csi.aws.com', sha: '3f81' },
    ],
    [`${K}/plugins/kubernetes.io/csi/pv/pvc-1/globalmount`, { kind: 'stage', layout: 'pv', pv: 'pvc-1' }], // older kubelets
    [`${K}/pods/uid-1/volumes/kubernetes.io~csi/pvc-1/mount`, { kind: 'publish', podUid: 'uid-1', pv: 'pvc-1' }],
    [`${K}/plugins/kubernetes.io/csi/volumeDevices/staging/pvc-2`, { kind: 'block' }], // raw block staging
    [`${K}/pods/uid-1/volumeDevices/kubernetes.io~csi/pvc-2`, { kind: 'block' }], // raw block publish
    [`${K}/pods/uid-1/volumes/kubernetes.io~projected/token`, undefined], // not CSI
    [`${K}/plugins/ebs.csi.aws.com`, undefined], // the plugin's socket dir
    [`${K}/plugins/kubernetes.io/csi/ebs.csi.aws.com/3f81/globalmount/sub`, undefined], // inside a volume
    [K, undefined], // the kubelet dir itself
    ['/var/lib/kubelet-other/pods/u/volumes/kubernetes.io~csi/p/mount', undefined], // a sibling directory
  ])('%s', (point, want) => {
    expect(csiPathOf(`${K}/`, point)).toEqual(want);
  });
  it('under() takes a trailing slash and "/"', () => {
    expect(under('/var/lib/kubelet/', '/var/lib/kubelet/pods')).toBe('pods');
    expect(under('/', '/x')).toBe('x');
    expect(under('/a', '/a')).toBeUndefined();
  });
});

describe('cgroupRef', () => {
  const id = 'c'.repeat(64);
  // Each case: /proc/PID/cgroup text, the container it names.
  it.each([
    [fixture('plugin.cgroup'), { podUid: 'ab12cd34-5678-4abc-9def-0123456789ab', containerId: id }], // v2, systemd, relative
    [
      `0::/kubepods/burstable/pod0b1d7a6e-2c3f-4d5e-8f90-a1b2c3d4e5f6/${id}\n`,
      { podUid: '0b1d7a6e-2c3f-4d5e-8f90-a1b2c3d4e5f6', containerId: id },
    ], // cgroupfs
    [
      `12:pids:/kubepods/besteffort/pod0b1d7a6e-2c3f-4d5e-8f90-a1b2c3d4e5f6/docker-${id}.scope\n1:name=systemd:/\n`,
      { podUid: '0b1d7a6e-2c3f-4d5e-8f90-a1b2c3d4e5f6', containerId: id },
    ], // v1
    ['0::/kubepods/podd41d8cd98f00b204e9800998ecf8427e\n', { podUid: 'd41d8cd98f00b204e9800998ecf8427e' }], // static pod: config hash, pod-level cgroup
    ['0::/system.slice/kubelet.service\n', {}], // a host service
    ['', {}], // kernel thread or unreadable
  ])('case %#', (text, want) => {
    expect(cgroupRef(text)).toEqual(want);
  });
});

describe('keyOptions', () => {
  const line = (s: string) => parseMountinfoLine(s) as MountEntry;
  const ko = (m: MountEntry) => keyOptions(m.fstype, m.mountOptions, m.superOptions);
  const host = parseMountinfo(fixture('host.mountinfo')).mounts;
  it('NFSv4.1 hard: vers, hard, timeo, retrans, locking through the protocol', () => {
    const m = host.find((x) => x.id === 812) as MountEntry;
    expect(ko(m)).toEqual({
      vers: '4.1',
      recovery: 'hard',
      timeo: '600',
      retrans: '2',
      proto: 'tcp',
      lock: 'local_lock=none',
      access: 'rw',
    });
  });
  it('NFSv3 soft nolock with attribute caching shown as the ac* options', () => {
    const m = host.find((x) => x.id === 814) as MountEntry;
    expect(ko(m)).toEqual({
      vers: '3',
      recovery: 'soft',
      timeo: '30',
      retrans: '2',
      proto: 'tcp',
      actimeo: 'acregmin=1,acregmax=1,acdirmin=1,acdirmax=1',
      lock: 'nolock,local_lock=all',
      access: 'rw',
    });
  });
  // Each case: a line, the key options expected.
  it.each([
    [
      '1 0 0:9 / /a ro - nfs s:/e ro,vers=3,hard,noac,proto=udp',
      { vers: '3', recovery: 'hard', actimeo: 'noac', lock: 'lock', proto: 'udp', access: 'ro' },
    ], // v3 locks by default
    [
      '1 0 0:9 / /a rw - cifs //s/share rw,vers=3.1.1,soft,actimeo=1,nobrl',
      { vers: '3.1.1', recovery: 'soft', actimeo: 'actimeo=1', access: 'rw' },
    ], // SMB
    [
      '1 0 0:9 / /a rw - nfs4 s:/e rw,vers=4.2,softerr,timeo=100',
      { vers: '4.2', recovery: 'softerr', timeo: '100', access: 'rw' },
    ], // softerr
  ])('%s', (l, want) => {
    expect(ko(line(l))).toEqual(want);
  });
  it('knows network filesystems, FUSE clients included, and not local ones', () => {
    expect(['nfs', 'nfs4', 'cifs', 'ceph', 'fuse.juicefs'].map(isNetworkFs)).toEqual([true, true, true, true, true]);
    expect(['ext4', 'xfs', 'tmpfs', 'overlay'].map(isNetworkFs)).toEqual([false, false, false, false]);
  });
});
