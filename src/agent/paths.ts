// What a path under the kubelet directory is, in the kubelet's CSI layout, and what a cgroup path says about the
// container a process runs in. Pure.
//
//   plugins/kubernetes.io/csi/DRIVER/SHA/globalmount     staged volume (SHA = sha256 of the volume handle)
//   plugins/kubernetes.io/csi/pv/NAME/globalmount        staged volume, older kubelets (NAME = the PV)
//   pods/UID/volumes/kubernetes.io~csi/PV/mount          a pod's bind mount of it (NodePublishVolume target)
//   plugins/kubernetes.io/csi/volumeDevices/...          raw block volumes (staging and publish)
//   pods/UID/volumeDevices/kubernetes.io~csi/...

/** A mount point classified by the kubelet's CSI layout. */
export type CsiPath =
  | { kind: 'stage'; layout: 'sha'; driver: string; sha: string }
  | { kind: 'stage'; layout: 'pv'; pv: string }
  | { kind: 'publish'; podUid: string; pv: string }
  | { kind: 'block' };

/** The kubelet directory without trailing slashes ("/" stays "/"). */
export function normalizeDir(dir: string): string {
  const d = dir.replace(/\/+$/, '');
  return d === '' ? '/' : d;
}

/** The part of `path` under `dir` (no leading slash), or undefined when `path` is not strictly under it. */
export function under(dir: string, path: string): string | undefined {
  const d = normalizeDir(dir);
  const prefix = d === '/' ? '/' : `${d}/`;
  if (!path.startsWith(prefix) || path.length === prefix.length) return undefined;
  return path.slice(prefix.length);
}

/** Classifies a mount point under `kubeletDir`; undefined for anything that is not a CSI volume path. */
export function csiPathOf(kubeletDir: string, mountPoint: string): CsiPath | undefined {
  const rel = under(kubeletDir, mountPoint);
  if (rel === undefined) return undefined;
  const p = rel.split('/');
  if (p[0] === 'plugins' && p[1] === 'kubernetes.io' && p[2] === 'csi') {
    if (p[3] === 'volumeDevices') return { kind: 'block' };
    if (p.length === 6 && p[5] === 'globalmount' && p[3] && p[4]) {
      return p[3] === 'pv'
        ? { kind: 'stage', layout: 'pv', pv: p[4] }
        : { kind: 'stage', layout: 'sha', driver: p[3], sha: p[4] };
    }
    return undefined;
  }
  if (p[0] === 'pods' && p[1] && p[3] === 'kubernetes.io~csi') {
    if (p[2] === 'volumeDevices') return { kind: 'block' };
    if (p[2] === 'volumes' && p.length === 6 && p[4] && p[5] === 'mount')
      return { kind: 'publish', podUid: p[1], pv: p[4] };
  }
  return undefined;
}

/** The directory of a staged volume (the parent of globalmount, where the kubelet keeps vol_data.json). */
export function stageDir(kubeletDir: string, c: Extract<CsiPath, { kind: 'stage' }>): string {
  const base = `${normalizeDir(kubeletDir)}/plugins/kubernetes.io/csi`;
  return c.layout === 'pv' ? `${base}/pv/${c.pv}` : `${base}/${c.driver}/${c.sha}`;
}

/** The globalmount path of a staged volume. */
export function globalmountPath(kubeletDir: string, c: Extract<CsiPath, { kind: 'stage' }>): string {
  return `${stageDir(kubeletDir, c)}/globalmount`;
}

/** The container a process runs in, as far as its cgroup path tells. */
export interface CgroupRef {
  podUid?: string;
  containerId?: string;
}

const POD_UID =
  /pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}|[0-9a-f]{32})(?![0-9a-f])/;
const CONTAINER_ID = /(?:^|[/-])([0-9a-f]{64})(?:\.scope)?$/;

/**
 * Reads the pod UID and container ID out of /proc/PID/cgroup, for both cgroup drivers and cgroup v1/v2:
 * `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_with_underscores>.slice/cri-containerd-<id>.scope`
 * and `/kubepods/burstable/pod<uid>/<id>`. Empty when the path names no pod (host services, kernel threads).
 */
export function cgroupRef(text: string): CgroupRef {
  const lines = text.split('\n').filter((l) => l !== '');
  const line = lines.find((l) => l.includes('kubepods')) ?? lines[0] ?? '';
  const path = line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1);
  const ref: CgroupRef = {};
  const pod = POD_UID.exec(path);
  if (pod?.[1]) ref.podUid = pod[1].replace(/_/g, '-');
  const segments = path.split('/').filter((s) => s !== '');
  const last = segments[segments.length - 1] ?? '';
  const c = CONTAINER_ID.exec(last);
  if (c?.[1] && pod) ref.containerId = c[1];
  return ref;
}
