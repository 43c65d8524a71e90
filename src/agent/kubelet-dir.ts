// Reading the kubelet directory: the CSI staging and pod volume directories, by name, and the kubelet's
// vol_data.json in them. Never a stat or readdir of a mount point (a dead NFS server would block it forever):
// the directories listed here contain mount points, they are not mount points themselves.
import { readdir, readFile } from 'node:fs/promises';
import type { DiskScan, VolData } from './staged.js';

/** Files read at once: enough to keep the thread pool busy, far below a file descriptor limit of 1024. */
export const PARALLEL = 32;

/** Maps with at most `limit` calls in flight, results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The errno code of a failed call (ENOENT, EACCES...), else its message. */
export const errCode = (e: unknown) => (e as { code?: string }).code ?? (e instanceof Error ? e.message : String(e));

/** A small file's text, or undefined when it cannot be read. */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Names in a directory; [] when it does not exist; undefined (and a problem) when it cannot be read. */
async function names(dir: string, problems: string[]): Promise<string[] | undefined> {
  try {
    return (await readdir(dir)).sort();
  } catch (e) {
    const code = errCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    problems.push(`cannot list ${dir}: ${code}`);
    return undefined;
  }
}

const VOL_DATA_MAX = 64 * 1024;

async function volData(path: string): Promise<VolData | undefined> {
  const text = await readText(path);
  if (text === undefined || text.length > VOL_DATA_MAX) return undefined;
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    const d: VolData = {};
    if (typeof o.volumeHandle === 'string') d.volumeHandle = o.volumeHandle;
    if (typeof o.driverName === 'string') d.driverName = o.driverName;
    if (typeof o.specVolID === 'string') d.specVolID = o.specVolID;
    return d;
  } catch {
    return undefined;
  }
}

/** The kubelet directory's staging and pod volume directories, by name and vol_data.json only. */
export async function scanKubeletDir(kubeletDir: string): Promise<DiskScan> {
  const problems: string[] = [];
  const disk: DiskScan = { stages: [], podVolumes: [], complete: true, problems };
  const base = `${kubeletDir}/plugins/kubernetes.io/csi`;
  const drivers = ((await names(base, problems)) ?? []).filter((d) => d !== 'volumeDevices');
  const subs = (
    await mapLimit(drivers, PARALLEL, async (d) =>
      ((await names(`${base}/${d}`, problems)) ?? []).map((s) => [d, s] as const),
    )
  ).flat();
  const stages = await mapLimit(
    subs,
    PARALLEL,
    async ([driver, sub]): Promise<DiskScan['stages'][number] | undefined> => {
      const inside = await names(`${base}/${driver}/${sub}`, problems);
      if (!inside?.includes('globalmount')) return undefined;
      const csi =
        driver === 'pv'
          ? ({ kind: 'stage', layout: 'pv', pv: sub } as const)
          : ({ kind: 'stage', layout: 'sha', driver, sha: sub } as const);
      const data = inside.includes('vol_data.json')
        ? await volData(`${base}/${driver}/${sub}/vol_data.json`)
        : undefined;
      return data ? { csi, volData: data } : { csi };
    },
  );
  disk.stages = stages.filter((s) => s !== undefined);
  const pods = `${kubeletDir}/pods`;
  const uids = (await names(pods, problems)) ?? [];
  const vols = (
    await mapLimit(uids, PARALLEL, async (uid) => {
      const dir = `${pods}/${uid}/volumes/kubernetes.io~csi`;
      return ((await names(dir, problems)) ?? []).map((pv) => [uid, pv] as const);
    })
  ).flat();
  disk.podVolumes = await mapLimit(vols, PARALLEL, async ([uid, pv]) => {
    const data = await volData(`${pods}/${uid}/volumes/kubernetes.io~csi/${pv}/vol_data.json`);
    return data ? { podUid: uid, pv, volData: data } : { podUid: uid, pv };
  });
  if (problems.length) disk.complete = false;
  return disk;
}
