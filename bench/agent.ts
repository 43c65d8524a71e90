// `npm run bench:agent`: the node agent's scan on synthetic nodes that double in size, to show it is linear in
// processes and mounts. Each node is a proc tree and a kubelet dir on disk (tmpdir), read through --proc exactly as
// on a node: P processes, half in the host namespace and the rest spread over P/5 namespaces (two of them node
// plugins holding a copy of every CSI mount, the others containers with 20 mounts each), V staged volumes each
// with 2 pod bind mounts on the host. Sizes double P and V together.
// Per size: one warm-up scan, then ROUNDS scans; the median wall time is reported with the growth per doubling
// (1.0 = flat, 2.0 = linear, 4.0 = quadratic). Wall time on a shared machine: read the growth, not the figures.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { scanNode } from '../src/agent/scan.js';
import { systemClock } from '../src/domain/clock.js';

const ROUNDS = 5;
const SIZES = [
  { processes: 500, volumes: 100 },
  { processes: 1000, volumes: 200 },
  { processes: 2000, volumes: 400 },
  { processes: 4000, volumes: 800 },
];
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function makeNode(root: string, processes: number, volumes: number): { proc: string; kubelet: string } {
  const proc = join(root, 'proc');
  const kubelet = join(root, 'kubelet');
  const csi: string[] = [];
  let id = 100;
  for (let v = 0; v < volumes; v++) {
    const dev = `0:${1000 + v}`;
    const stage = `${kubelet}/plugins/kubernetes.io/csi/nfs.csi.k8s.io/${sha(`h${v}`)}`;
    mkdirSync(`${stage}/globalmount`, { recursive: true });
    writeFileSync(`${stage}/vol_data.json`, JSON.stringify({ driverName: 'nfs.csi.k8s.io', volumeHandle: `h${v}` }));
    const opts = 'rw,vers=4.1,hard,proto=tcp,timeo=600,retrans=2,sec=sys,local_lock=none,addr=10.0.0.5';
    csi.push(`${id++} 22 ${dev} / ${stage}/globalmount rw,relatime shared:${v} - nfs4 10.0.0.5:/e/${v} ${opts}`);
    for (const p of [0, 1]) {
      const dir = `${kubelet}/pods/pod-${v}-${p}/volumes/kubernetes.io~csi/pv-${v}`;
      mkdirSync(`${dir}/mount`, { recursive: true });
      writeFileSync(
        `${dir}/vol_data.json`,
        JSON.stringify({ driverName: 'nfs.csi.k8s.io', volumeHandle: `h${v}`, specVolID: `pv-${v}` }),
      );
      csi.push(`${id++} 22 ${dev} / ${dir}/mount rw,relatime shared:${v} - nfs4 10.0.0.5:/e/${v} ${opts}`);
    }
  }
  const base = ['22 1 259:1 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p1 rw', '23 22 0:21 / /proc rw - proc proc rw'];
  const host = [...base, ...csi].join('\n');
  const container = Array.from({ length: 20 }, (_, i) => `${900 + i} 1 0:${5000 + i} / /c${i} rw - tmpfs t rw`).join(
    '\n',
  );
  const namespaces = Math.max(3, Math.floor(processes / 5));
  for (let pid = 1; pid <= processes; pid++) {
    const ns = pid <= processes / 2 ? 0 : 1 + (pid % (namespaces - 1));
    const d = join(proc, String(pid));
    mkdirSync(join(d, 'ns'), { recursive: true });
    symlinkSync(`mnt:[${4026531840 + ns}]`, join(d, 'ns', 'mnt'));
    writeFileSync(join(d, 'comm'), `p${pid}\n`);
    writeFileSync(join(d, 'cgroup'), '0::/system.slice/x.service\n');
    writeFileSync(join(d, 'mountinfo'), ns === 0 || ns <= 2 ? host : container);
  }
  return { proc, kubelet };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

console.log('node agent scan (wall time, median of 5; growth per doubling: 2.0 = linear)');
console.log('processes  namespaces  staged  host mounts  scan ms  per doubling');
let previous: number | undefined;
for (const s of SIZES) {
  const root = mkdtempSync(join(tmpdir(), 'rwx-bench-agent-'));
  try {
    const { proc, kubelet } = makeNode(root, s.processes, s.volumes);
    const opts = {
      procDir: proc,
      kubeletDir: kubelet,
      hostPid: 1,
      node: 'bench',
      agentVersion: 'bench',
      clock: systemClock,
    };
    const first = await scanNode(opts);
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now();
      await scanNode(opts);
      times.push(performance.now() - t);
    }
    const ms = median(times);
    const growth = previous === undefined ? '' : (ms / previous).toFixed(2);
    const row = [
      String(s.processes).padStart(9),
      String(first.propagation.namespacesScanned).padStart(10),
      String(first.stagedVolumes.volumes.length).padStart(6),
      String(first.propagation.hostCsiMounts).padStart(11),
      ms.toFixed(1).padStart(7),
      growth.padStart(12),
    ];
    console.log(row.join('  '));
    previous = ms;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
