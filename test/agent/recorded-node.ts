// A recorded node for the agent tests: a proc tree (ns/mnt links, mountinfo, comm, cgroup as a node shows them)
// and a kubelet dir, built from test/agent/fixtures in a temp dir. `rwx agent --proc PROC --kubelet-dir K` reads it.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** sha256 hex, as the kubelet names staging directories. */
export const sha = (s: string) => createHash('sha256').update(s).digest('hex');
/** The host's and the plugin's mount namespace ids in the recorded proc tree. */
export const HOST_NS = 'mnt:[4026531840]';
export const PLUGIN_NS = 'mnt:[4026532500]';

/** Builds the recorded node in a fresh temp dir; `remove()` deletes it. */
export function recordedNode(opts: { hostRoot?: boolean } = {}): {
  root: string;
  K: string;
  PROC: string;
  /** Where the kubelet dir's files are: K, or HOST_ROOT/K with `hostRoot`. */
  files: string;
  remove: () => void;
} {
  const root = mkdtempSync(join(tmpdir(), 'rwx-recorded-'));
  const K = join(root, 'kubelet');
  const files = opts.hostRoot ? join(root, 'host', K) : K;
  const PROC = join(root, 'proc');
  const VARS: Record<string, string> = {
    '@K@': K,
    '@SHA_X@': sha('vol-x'),
    '@SHA_ORPHAN@': sha('vol-orphan'),
    '@SHA_PG@': sha('vol-pg'),
  };
  const fixture = (f: string) =>
    readFileSync(join(import.meta.dirname, 'fixtures', f), 'utf8').replace(/@[A-Z_]+@/g, (v) => VARS[v] ?? v);

  function file(path: string, text: string): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  function proc(pid: number, p: { ns?: string; mountinfo?: string; comm?: string; cgroup?: string }): void {
    mkdirSync(join(PROC, String(pid), 'ns'), { recursive: true });
    if (p.ns) symlinkSync(p.ns, join(PROC, String(pid), 'ns', 'mnt'));
    if (p.mountinfo !== undefined) file(join(PROC, String(pid), 'mountinfo'), p.mountinfo);
    if (p.comm) file(join(PROC, String(pid), 'comm'), `${p.comm}\n`);
    if (p.cgroup) file(join(PROC, String(pid), 'cgroup'), p.cgroup);
  }
  proc(1, { ns: HOST_NS, mountinfo: fixture('host.mountinfo'), comm: 'systemd', cgroup: '0::/init.scope\n' });
  proc(77, { ns: HOST_NS, comm: 'kubelet', cgroup: '0::/system.slice/kubelet.service\n' });
  proc(4242, {
    ns: PLUGIN_NS,
    mountinfo: fixture('plugin.mountinfo'),
    comm: 'aws-ebs-csi-dri',
    cgroup: fixture('plugin.cgroup'),
  });
  proc(4250, { ns: PLUGIN_NS, comm: 'livenessprobe', cgroup: fixture('plugin.cgroup') });
  // Its mountinfo is a directory: reading it would fail the scan. One mountinfo per namespace means it is never read.
  mkdirSync(join(PROC, '4250', 'mountinfo'));
  proc(5000, { ns: 'mnt:[4026532600]', mountinfo: '900 1 0:90 / / rw - overlay overlay rw\n', comm: 'postgres' });
  proc(6000, {}); // exited between listing /proc and reading it: no ns/mnt
  mkdirSync(join(PROC, 'self'));

  const CSI = join(files, 'plugins/kubernetes.io/csi');
  const volData = (o: Record<string, string>) => `${JSON.stringify(o)}\n`;
  const stage = (driver: string, handle: string) => {
    mkdirSync(join(CSI, driver, sha(handle), 'globalmount'), { recursive: true });
    file(join(CSI, driver, sha(handle), 'vol_data.json'), volData({ driverName: driver, volumeHandle: handle }));
  };
  const podVolume = (uid: string, pv: string, driver: string, handle: string) => {
    const d = join(files, 'pods', uid, 'volumes/kubernetes.io~csi', pv);
    mkdirSync(join(d, 'mount'), { recursive: true });
    file(join(d, 'vol_data.json'), volData({ driverName: driver, volumeHandle: handle, specVolID: pv }));
  };
  stage('nfs.csi.k8s.io', 'vol-x');
  stage('ebs.csi.aws.com', 'vol-orphan');
  stage('ebs.csi.aws.com', 'vol-pg');
  mkdirSync(join(CSI, 'ebs.csi.aws.com/not-a-stage'), { recursive: true }); // no globalmount: not a staged volume
  podVolume('66666666-7777-4888-8999-000000000001', 'vol-x', 'nfs.csi.k8s.io', 'vol-x');
  podVolume('66666666-7777-4888-8999-000000000002', 'pv-soft', 'nfs.csi.k8s.io', 'soft-handle');
  podVolume('99999999-0000-4000-8000-000000000019', 'pvc-a17c5b2e', 'ebs.csi.aws.com', 'vol-pg');
  mkdirSync(join(files, 'pods/11111111-2222-4333-8444-555555555555/volumes/kubernetes.io~projected'), {
    recursive: true,
  });
  return { root, K, PROC, files, remove: () => rmSync(root, { recursive: true, force: true }) };
}
