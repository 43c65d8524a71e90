// Staged volumes (NodeStageVolume's globalmount, reference counted across the pods of a node) and the mount
// options of network volumes. Pure. A staged volume still mounted with no pod bind mount is an orphaned stage
// reference: NodeUnstageVolume never ran, the driver keeps retrying it, and the volume stays held on this node.
import { createHash } from 'node:crypto';
import type { MountEntry } from './mountinfo.js';
import { isNetworkFs, keyOptions } from './options.js';
import { csiPathOf, globalmountPath, type CsiPath } from './paths.js';
import type { MountRef, StagedReport, StagedVolume, VolumeOptions } from '../domain/node-report.js';

/** The kubelet's vol_data.json, the fields we read. */
export interface VolData {
  volumeHandle?: string;
  driverName?: string;
  specVolID?: string;
}

type StageCsi = Extract<CsiPath, { kind: 'stage' }>;

/** What the kubelet directory holds on disk. */
export interface DiskScan {
  /** plugins/kubernetes.io/csi/{DRIVER/SHA,pv/NAME} directories that contain a globalmount entry. */
  stages: { csi: StageCsi; volData?: VolData }[];
  /** pods/UID/volumes/kubernetes.io~csi/PV directories. */
  podVolumes: { podUid: string; pv: string; volData?: VolData }[];
  /** False when a directory could not be read (other than not existing): pod references may be missing. */
  complete: boolean;
  problems: string[];
}

/** sha256 of a volume handle, hex: the kubelet's name for its staging directory. */
export function handleSha(volumeHandle: string): string {
  return createHash('sha256').update(volumeHandle).digest('hex');
}

const devRoot = (m: MountEntry) => `${m.dev}|${m.root}`;

/** Which pods reference which volume on disk, and the driver and PV behind each path, built once. */
export class VolumeIndex {
  private readonly bySha = new Map<string, DiskScan['podVolumes']>();
  private readonly byPv = new Map<string, DiskScan['podVolumes']>();
  private readonly byPodPv = new Map<string, VolData>();
  private readonly stageData = new Map<string, VolData>();

  constructor(
    private readonly kubeletDir: string,
    disk: DiskScan,
  ) {
    for (const v of disk.podVolumes) {
      const pv = v.volData?.specVolID || v.pv;
      push(this.byPv, pv, v);
      if (v.volData?.volumeHandle) push(this.bySha, handleSha(v.volData.volumeHandle), v);
      if (v.volData) this.byPodPv.set(`${v.podUid}/${v.pv}`, v.volData);
    }
    for (const s of disk.stages) if (s.volData) this.stageData.set(globalmountPath(kubeletDir, s.csi), s.volData);
  }

  /** The pod volume directories that name the staged volume `c`. */
  podsOf(c: StageCsi): DiskScan['podVolumes'] {
    if (c.layout === 'pv') return this.byPv.get(c.pv) ?? [];
    return (this.bySha.get(c.sha) ?? []).filter((v) => !v.volData?.driverName || v.volData.driverName === c.driver);
  }

  /** The PV and driver of a staged volume, as far as the files tell. */
  identify(c: StageCsi): { pv?: string; driver?: string } {
    const pods = this.podsOf(c);
    const pv = c.layout === 'pv' ? c.pv : pods.map((p) => p.volData?.specVolID || p.pv).sort()[0];
    const driver =
      c.layout === 'sha'
        ? c.driver
        : (this.stageData.get(globalmountPath(this.kubeletDir, c))?.driverName ??
          pods.find((p) => p.volData?.driverName)?.volData?.driverName);
    const out: { pv?: string; driver?: string } = {};
    if (pv) out.pv = pv;
    if (driver) out.driver = driver;
    return out;
  }

  /** A mount reference with its driver and PV filled in from the files. */
  annotate(ref: MountRef): MountRef {
    const c = ref.csi;
    if (c?.kind === 'stage') return { ...ref, ...this.identify(c) };
    if (c?.kind === 'publish') {
      const d = this.byPodPv.get(`${c.podUid}/${c.pv}`);
      const out = { ...ref, pv: d?.specVolID || c.pv };
      return d?.driverName ? { ...out, driver: d.driverName } : out;
    }
    return ref;
  }
}

function push<T>(map: Map<string, T[]>, key: string, v: T): void {
  const list = map.get(key);
  if (list) list.push(v);
  else map.set(key, [v]);
}

/** The staged volumes section. `hidden` are mounts only other namespaces have (from the propagation check). */
export function analyzeStaged(
  kubeletDir: string,
  hostMounts: readonly MountEntry[] | undefined,
  disk: DiskScan,
  index: VolumeIndex,
  hidden: readonly MountRef[],
): StagedReport {
  const stages = new Map<string, { csi: StageCsi; host?: MountEntry; hidden?: MountRef }>();
  const slot = (csi: StageCsi) => {
    const path = globalmountPath(kubeletDir, csi);
    let s = stages.get(path);
    if (!s) stages.set(path, (s = { csi }));
    return s;
  };
  const publishBySource = new Map<string, number>();
  for (const m of hostMounts ?? []) {
    const c = csiPathOf(kubeletDir, m.mountPoint);
    if (c?.kind === 'stage') slot(c).host = m;
    if (c?.kind === 'publish') publishBySource.set(devRoot(m), (publishBySource.get(devRoot(m)) ?? 0) + 1);
  }
  for (const h of hidden) if (h.csi?.kind === 'stage') slot(h.csi).hidden ??= h;
  for (const s of disk.stages) slot(s.csi);

  const volumes: StagedVolume[] = [];
  for (const [path, s] of stages) {
    const podMounts = s.host ? (publishBySource.get(devRoot(s.host)) ?? 0) : 0;
    const state = s.host ? (podMounts > 0 ? 'IN_USE' : 'ORPHANED') : s.hidden ? 'HIDDEN' : 'LEFTOVER_DIR';
    const v: StagedVolume = {
      path,
      layout: s.csi.layout,
      ...index.identify(s.csi),
      state,
      podMounts,
      podUids: [...new Set(index.podsOf(s.csi).map((p) => p.podUid))].sort(),
    };
    if (s.csi.layout === 'sha') v.sha = s.csi.sha;
    const seen = s.host ?? s.hidden;
    if (seen) {
      v.source = seen.source;
      v.fstype = seen.fstype;
    }
    volumes.push(v);
  }
  volumes.sort((a, b) => (a.path < b.path ? -1 : 1));
  const status =
    !hostMounts || !disk.complete ? 'unknown' : volumes.some((v) => v.state === 'ORPHANED') ? 'orphaned' : 'ok';
  return { status, volumes };
}

/** Mount options of every network filesystem at a CSI path on the host, one entry per filesystem and root. */
export function analyzeOptions(
  kubeletDir: string,
  hostMounts: readonly MountEntry[],
  index: VolumeIndex,
): VolumeOptions[] {
  const groups = new Map<string, { first: MountEntry; stage?: MountEntry; refs: MountRef[] }>();
  for (const m of hostMounts) {
    const c = csiPathOf(kubeletDir, m.mountPoint);
    if (!c || c.kind === 'block' || !isNetworkFs(m.fstype)) continue;
    let g = groups.get(devRoot(m));
    if (!g) groups.set(devRoot(m), (g = { first: m, refs: [] }));
    if (c.kind === 'stage') g.stage ??= m;
    g.refs.push(index.annotate({ mountPoint: m.mountPoint, source: m.source, fstype: m.fstype, csi: c }));
  }
  const out: VolumeOptions[] = [];
  for (const g of groups.values()) {
    const m = g.stage ?? g.first;
    const pv = g.refs.map((r) => r.pv).find((p) => p !== undefined);
    const driver = g.refs.map((r) => r.driver).find((d) => d !== undefined);
    const sha = g.refs
      .map((r) => (r.csi?.kind === 'stage' && r.csi.layout === 'sha' ? r.csi.sha : undefined))
      .find(Boolean);
    const v: VolumeOptions = {
      volume: pv ?? `${driver ?? 'unknown-driver'}/${sha ?? m.mountPoint}`,
      fstype: m.fstype,
      source: m.source,
      mountPoint: m.mountPoint,
      mounts: g.refs.length,
      options: keyOptions(m.fstype, m.mountOptions, m.superOptions),
      raw: [...m.mountOptions, ...m.superOptions].join(','),
    };
    if (pv) v.pv = pv;
    if (driver) v.driver = driver;
    out.push(v);
  }
  return out.sort((a, b) => (a.volume < b.volume ? -1 : a.volume > b.volume ? 1 : 0));
}
