// The busy mounts rule on mountinfo text: which pod volume mount a process's path holds in its own namespace, and
// the section built from it. The same rules run on real mount namespaces in namespaces.test.ts.
import { describe, expect, it } from 'vitest';
import { analyzeBusy, BusyIndex, holdersOf, MountView } from '../../src/agent/busy.js';
import { parseMountinfoLine, type MountEntry } from '../../src/agent/mountinfo.js';

const K = '/var/lib/kubelet';
const line = (id: number, dev: string, root: string, point: string): MountEntry => {
  const m = parseMountinfoLine(`${id} 1 ${dev} ${root} ${point} rw shared:1 - ext4 /dev/x rw`);
  if (typeof m === 'string') throw new Error(m);
  return m;
};
const pub = (uid: string, pv: string) => `${K}/pods/${uid}/volumes/kubernetes.io~csi/${pv}/mount`;
const gm = `${K}/plugins/kubernetes.io/csi/d/abc/globalmount`;

// The host: pods a and b share one staged volume (8:1, root /); pod c has its own (8:2); / is 8:0.
const host = [
  line(1, '8:0', '/', '/'),
  line(2, '8:1', '/', gm),
  line(3, '8:1', '/', pub('a', 'pv-shared')),
  line(4, '8:1', '/', pub('b', 'pv-shared')),
  line(5, '8:2', '/', pub('c', 'pv-own')),
];
// A container of pod c: its volume bound at /data. A container of pod a: the shared volume at /data.
const containerC = [line(10, '8:9', '/', '/'), line(11, '8:2', '/', '/data')];
const containerA = [line(20, '8:9', '/', '/'), line(21, '8:1', '/', '/data')];

describe('BusyIndex.held', () => {
  const index = new BusyIndex(K, host);
  const hostView = new MountView(host);
  // Each case: the namespace, the path, the process's pod, the mount point held (undefined: none).
  it.each([
    ['host', hostView, pub('c', 'pv-own'), undefined, pub('c', 'pv-own')], // cwd at the mount point itself
    ['host', hostView, `${pub('a', 'pv-shared')}/dir/f`, undefined, pub('a', 'pv-shared')], // a file under it
    ['host', hostView, `${gm}/f`, undefined, undefined], // the globalmount is the stage, not a pod's mount
    ['host', hostView, '/etc/passwd', undefined, undefined], // another filesystem
    ['container of c', new MountView(containerC), '/data/x', undefined, pub('c', 'pv-own')], // one pod has it
    ['container of a', new MountView(containerA), '/data/x', 'a', pub('a', 'pv-shared')], // shared: told by pod
    ['unknown pod', new MountView(containerA), '/data/x', 'z', undefined], // shared, pod unknown: not guessed
    ['no pod', new MountView(containerA), '/data/x', undefined, undefined], // shared, no pod: not guessed
  ])('%s: %s', (_name, view, path, podUid, want) => {
    expect(index.held(view, path, podUid)?.entry.mountPoint).toBe(want);
  });
});

describe('analyzeBusy', () => {
  const index = new BusyIndex(K, host);
  const views = new Map([
    ['host', new MountView(host)],
    ['c', new MountView(containerC)],
  ]);
  const holders = holdersOf(index, views, [
    { pid: 30, namespace: 'c', paths: [{ via: 'fd', path: '/data/log' }] },
    {
      pid: 7,
      namespace: 'host',
      paths: [
        { via: 'cwd', path: pub('c', 'pv-own') },
        { via: 'fd', path: `${pub('c', 'pv-own')}/f` },
      ],
    },
  ]);

  it('lists every pod volume mount, with its holders once per process, lowest pid first', () => {
    const copy = [line(40, '8:2', '/', pub('c', 'pv-own'))];
    const r = analyzeBusy({
      kubeletDir: K,
      hostMounts: host,
      namespaces: [{ id: 'mnt:[9]', pids: [50, 51], mounts: copy }],
      holders,
      refs: new Map([[7, { pid: 7, comm: 'bash' }]]),
      processesChecked: 2,
      unreadable: [],
    });
    expect(r.status).toBe('ok');
    expect(r.mounts.map((m) => [m.podUid, m.processCount])).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 2],
    ]);
    const c = r.mounts[2];
    expect(c?.processes).toEqual([
      { pid: 7, comm: 'bash', via: 'cwd', path: pub('c', 'pv-own') },
      { pid: 30, comm: '?', via: 'fd', path: '/data/log' },
    ]);
    expect(c?.namespaces).toEqual([{ id: 'mnt:[9]', processCount: 2 }]);
  });

  it('is unknown when a process could not be read, or the host mounts are unknown', () => {
    const base = { kubeletDir: K, namespaces: [], holders: [], refs: new Map(), processesChecked: 0 };
    const unreadable = analyzeBusy({ ...base, hostMounts: host, unreadable: [{ pid: 3, reason: 'fd: EACCES' }] });
    expect([unreadable.status, unreadable.unreadableCount]).toEqual(['unknown', 1]);
    const noHost = analyzeBusy({ ...base, unreadable: [] });
    expect([noHost.status, noHost.mounts]).toEqual(['unknown', []]);
  });
});
