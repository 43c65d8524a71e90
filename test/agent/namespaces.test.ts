// The agent on real mount namespaces: a fake kubelet dir (a shared bind mount), a "plugin" process in a mount
// namespace of its own that stages and publishes a tmpfs volume, once with private propagation (the fault: the
// host cannot see its mounts) and once shared (healthy), plus staged volumes on the host that are in use,
// orphaned, leftover, and in the older pv/NAME layout, and a pod volume mount held busy by a process with its cwd
// on it and one holding a file open through a bind of it in another mount namespace (the busy mounts check). The
// built `rwx agent --once -o json` reads them.
//
// Needs root (unshare, mount). Everything runs inside a fresh PID + mount namespace (ns-fixture.sh), so the
// mounts and processes vanish with it even when a test fails; the temp dir is removed afterwards. Where unshare
// or mount are unavailable the suite is skipped with the reason, except where the tool is required (CI, or
// RWX_REQUIRE_TOOLS naming unshare, as .ci/run does: CI runs as root), where it fails instead.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSchema } from '../../src/agent/report.js';
import type { AgentReport } from '../../src/domain/node-report.js';
import { toolRequired } from '../tools.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURE = join(import.meta.dirname, 'ns-fixture.sh');
const RWX = join(ROOT, 'bin/rwx.js');
const UNSHARE = ['--mount', '--pid', '--kill-child', '--mount-proc', '--propagation', 'private'];

/** Why real namespaces cannot be made here, or undefined when they can. */
function unavailable(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'rwx-ns-probe-'));
  try {
    const r = spawnSync('unshare', [...UNSHARE, 'sh', '-c', `mount -t tmpfs probe '${dir}' && umount '${dir}'`], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (r.error) return `unshare not runnable: ${r.error.message}`;
    if (r.status !== 0) return `unshare/mount failed (root needed): ${r.stderr.trim().split('\n')[0]}`;
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const why = unavailable();
const required = toolRequired('unshare');
if (why && !required) console.warn(`test/agent/namespaces.test.ts skipped: ${why}`);

interface Run {
  report: AgentReport;
  exit: number;
  treeBefore: string;
  treeAfter: string;
  root: string;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs the fixture in a fresh PID + mount namespace and reads what the agent reported. */
function runFixture(mode: 'private' | 'shared', caps: 'all' | 'sys_ptrace' | 'none' = 'all'): Run {
  const root = mkdtempSync(join(tmpdir(), `rwx-ns-${mode}-`));
  dirs.push(root);
  execFileSync('unshare', [...UNSHARE, 'bash', FIXTURE, mode, root, RWX, caps], { timeout: 60_000, stdio: 'pipe' });
  const read = (f: string) => readFileSync(join(root, f), 'utf8');
  return {
    report: reportSchema.parse(JSON.parse(read('report.json'))),
    exit: Number(read('exit').trim()),
    treeBefore: read('tree-before'),
    treeAfter: read('tree-after'),
    root,
  };
}

const sha = (s: string) => execFileSync('sha256sum', { input: s, encoding: 'utf8' }).split(' ')[0] ?? '';
const DRV = 'test.csi.rwx.dev';

describe.skipIf(why !== undefined && !required)('rwx agent on real mount namespaces', () => {
  it('can make mount namespaces here (required in CI)', () => {
    expect(why).toBeUndefined();
  });

  describe('private propagation in the plugin (the fault)', () => {
    let run: Run;
    beforeAll(() => {
      run = runFixture('private');
    });

    it('names the plugin namespace, its process and the two CSI mounts the host cannot see', () => {
      const p = run.report.propagation;
      expect(p.status).toBe('lost');
      const lost = p.namespaces.filter((n) => n.hidden.length > 0);
      expect(lost).toHaveLength(1);
      const ns = lost[0];
      expect(ns?.processes.map((x) => x.comm)).toEqual(['csi-plugin']);
      const k = `${run.root}/kubelet`;
      expect(ns?.hidden.map((m) => [m.mountPoint, m.source, m.fstype, m.driver, m.pv])).toEqual([
        [
          `${k}/plugins/kubernetes.io/csi/${DRV}/${sha('vol-plugin')}/globalmount`,
          'plugin-volume',
          'tmpfs',
          DRV,
          'pv-plugin',
        ],
        [
          `${k}/pods/aaaaaaaa-0000-4000-8000-000000000000/volumes/kubernetes.io~csi/pv-plugin/mount`,
          'plugin-volume',
          'tmpfs',
          DRV,
          'pv-plugin',
        ],
      ]);
      // Nine under the kubelet dir: the six host mounts copied when the namespace was made, the plugin's bind of a
      // plain host directory (its socket dir), and its own two. Only its own two are hidden.
      expect(ns?.mountsUnderKubeletDir).toBe(9);
      expect(run.exit).toBe(2);
    });

    it('reports the plugin-staged volume as HIDDEN, not as a leftover directory', () => {
      const v = run.report.stagedVolumes.volumes.find((x) => x.sha === sha('vol-plugin'));
      expect(v).toMatchObject({ state: 'HIDDEN', source: 'plugin-volume', podMounts: 0, pv: 'pv-plugin' });
      expect(v?.podUids).toEqual(['aaaaaaaa-0000-4000-8000-000000000000']);
    });

    it('finds the in-use, orphaned, leftover and pv-layout staged volumes on the host', () => {
      const byName = new Map(run.report.stagedVolumes.volumes.map((v) => [v.pv ?? v.sha, v]));
      expect(byName.get('pv-used')).toMatchObject({ state: 'IN_USE', podMounts: 2, source: 'used' });
      expect(byName.get('pv-used')?.podUids).toEqual([
        'bbbbbbbb-0000-4000-8000-000000000000',
        'cccccccc-0000-4000-8000-000000000000',
      ]);
      expect(byName.get(sha('vol-orphan'))).toMatchObject({ state: 'ORPHANED', podMounts: 0, podUids: [] });
      expect(byName.get(sha('vol-leftover'))).toMatchObject({ state: 'LEFTOVER_DIR', podMounts: 0, podUids: [] });
      expect(byName.get('pv-old')).toMatchObject({ layout: 'pv', state: 'IN_USE', podMounts: 1, driver: DRV });
      expect(run.report.stagedVolumes.status).toBe('orphaned');
    });

    it('wrote nothing under the kubelet dir', () => {
      expect(run.treeAfter).toBe(run.treeBefore);
      expect(run.treeBefore).toContain('globalmount');
    });

    it("names what holds pod e's volume mount busy: its cwd on the host, a file open through a bind elsewhere", () => {
      const busy = run.report.busyMounts;
      expect(busy?.status).toBe('ok');
      const k = `${run.root}/kubelet`;
      const e = busy?.mounts.find((m) => m.podUid === 'eeeeeeee-0000-4000-8000-000000000000');
      expect(e).toMatchObject({
        mountPoint: `${k}/pods/eeeeeeee-0000-4000-8000-000000000000/volumes/kubernetes.io~csi/pv-busy/mount`,
        pv: 'pv-busy',
        driver: DRV,
        processCount: 2,
      });
      expect(e?.processes.map((p) => [p.comm, p.via, p.path])).toEqual([
        ['holder', 'cwd', e?.mountPoint],
        ['reader', 'fd', `${run.root}/data/file`],
      ]);
      // The reader's namespace was made with a copy of the host's mounts: it holds one of this mount too.
      expect(e?.namespaces).toHaveLength(1);
      expect(e?.namespaces[0]?.processCount).toBe(1);
    });

    it('lists every pod volume mount still mounted, held or not, and the plugin namespace copying them', () => {
      const busy = run.report.busyMounts;
      const used = busy?.mounts.filter((m) => m.pv === 'pv-used') ?? [];
      expect(used.map((m) => m.podUid)).toEqual([
        'bbbbbbbb-0000-4000-8000-000000000000',
        'cccccccc-0000-4000-8000-000000000000',
      ]);
      // Nothing has a path on them; the plugin's namespace (and the reader's) still holds copies of both.
      expect(used.map((m) => m.processCount)).toEqual([0, 0]);
      const plugin = run.report.propagation.namespaces.find((n) => n.processes.some((x) => x.comm === 'csi-plugin'));
      expect(used[0]?.namespaces.map((n) => n.id)).toContain(plugin?.id);
      // The plugin's own mount of pod a's volume is not on the host: not a busy mount, a hidden one.
      expect(busy?.mounts.some((m) => m.podUid.startsWith('aaaaaaaa'))).toBe(false);
    });
  });

  describe('shared propagation in the plugin (healthy)', () => {
    let run: Run;
    beforeAll(() => {
      run = runFixture('shared');
    });

    it('sees the plugin mounts from the host: nothing hidden, propagation ok', () => {
      const p = run.report.propagation;
      expect(p.status).toBe('ok');
      expect(p.namespaces.flatMap((n) => n.hidden)).toEqual([]);
      const plugin = p.namespaces.find((n) => n.processes.some((x) => x.comm === 'csi-plugin'));
      expect(plugin?.csiMounts).toBeGreaterThanOrEqual(2);
      expect(p.unreadableProcesses).toEqual([]);
    });

    it('counts the plugin-staged volume as in use by its pod, on the host', () => {
      const v = run.report.stagedVolumes.volumes.find((x) => x.sha === sha('vol-plugin'));
      expect(v).toMatchObject({ state: 'IN_USE', podMounts: 1, source: 'plugin-volume' });
    });

    it('still reports the orphan, and wrote nothing', () => {
      expect(run.report.stagedVolumes.volumes.filter((v) => v.state === 'ORPHANED').map((v) => v.sha)).toEqual([
        sha('vol-orphan'),
      ]);
      expect(run.treeAfter).toBe(run.treeBefore);
      expect(run.exit).toBe(2); // the orphan needs attention
    });
  });

  describe('the privileges the DaemonSet grants', () => {
    it('proves the same with CAP_SYS_PTRACE as its only capability', () => {
      const run = runFixture('private', 'sys_ptrace');
      expect(run.report.propagation.status).toBe('lost');
      expect(run.report.propagation.unreadableProcesses).toEqual([]);
      expect(run.report.propagation.namespaces.flatMap((n) => n.hidden)).toHaveLength(2);
      expect(run.report.stagedVolumes.status).toBe('orphaned');
      const e = run.report.busyMounts?.mounts.find((m) => m.pv === 'pv-busy');
      expect(e?.processes.map((p) => p.comm)).toEqual(['holder', 'reader']);
    });

    it('without CAP_SYS_PTRACE cannot tell mount namespaces apart, and says unknown instead of ok', () => {
      const run = runFixture('shared', 'none');
      const p = run.report.propagation;
      expect(p.status).toBe('unknown');
      expect(p.unreadableProcesses.length).toBeGreaterThan(0);
      expect(p.unreadableProcesses[0]?.reason).toMatch(/^ns\/mnt: (EACCES|EPERM)$/);
      // Whether those processes hold a pod volume mount cannot be told either: never "nothing holds it".
      expect(run.report.busyMounts?.status).toBe('unknown');
      expect(run.report.busyMounts?.unreadableCount).toBeGreaterThan(0);
    });
  });
});
