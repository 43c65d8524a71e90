// The layering of src/, checked on every `npm test` from the imports themselves (type-only ones count):
// - src/domain imports nothing of ours but src/errors.ts;
// - the pure folders import only downward in PURE_LAYERS, and no package that does I/O;
// - nothing imports the simulator, test/ or the in-memory fakes except the demo and the sim CLI;
// - no import cycles, between folders or between files;
// - facts are made once: nothing an incident passes through after the evaluation imports what makes or changes one.
// Every folder under src/ is declared here, so a new one has to say where it sits.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ImportEdge, cycles, importsOf, sourceFiles } from './architecture/import-graph.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The pure folders (no I/O), lowest first: each may import the ones before it, never one after it. */
const PURE_LAYERS = ['domain', 'detect', 'correlate', 'advise', 'evaluate', 'triage', 'render', 'policy'];

/** The folders that do I/O or wire things together; they may import any pure folder and each other, acyclically. */
const OUTER = [
  'kube',
  'watch',
  'store',
  'notify',
  'slack',
  'commands',
  'config',
  'gate',
  'serve',
  'cli',
  'agent',
  'fleet',
  'pipeline',
];

/** The packages a pure folder may use: none of them does I/O. */
const PURE_PACKAGES = new Set(['cron-parser', 'yaml', 'node:crypto']);

/**
 * Folder imports that break the order today and are being removed on another branch. Each entry is exempt from
 * the order and cycle checks only until that branch lands; the list must then be empty. None today.
 */
const PENDING: readonly string[] = [];

/** File cycles exempt while another branch removes them, like PENDING; none today. */
const PENDING_FILE_CYCLES: readonly string[] = [];

/** Test tools: the Kubernetes API simulator (its own package, packages/kube-sim), test/, and the in-memory fakes. */
const isTestTool = (to: string): boolean =>
  to.startsWith('test/') || to.startsWith('packages/') || to.startsWith('@rwx/') || to === 'src/slack/memory-slack.ts';

/**
 * The only files that may use a test tool: the demo (with its terminal Slack), the sim CLI, and the simulator's
 * loader (src/serve/simulator.ts: it imports the package by a name in a variable, which no import scan sees, so
 * test/deploy/dockerfile.test.ts checks that no other file in src/ names it).
 */
const DEMO = new Set([
  'src/cli/demo.ts',
  'src/cli/sim.ts',
  'src/serve/demo.ts',
  'src/serve/demo-fleet.ts',
  'src/serve/demo-route.ts',
  'src/serve/simulator.ts',
  'src/slack/terminal-slack.ts',
]);

/**
 * What makes or changes an incident's facts (verdict, proof, drain advice, steps), by module: the names, or '*' for
 * all. Only the evaluation and its callers use them; prose helpers of the same modules (blindSentence) are free.
 */
const WRITERS: Readonly<Record<string, readonly string[]>> = {
  'src/evaluate/evaluate.ts': ['*'],
  'src/correlate/correlate.ts': ['*'],
  'src/correlate/proof.ts': ['incidentProof', 'buildProof', 'proofNodes'],
  'src/advise/stale-stage.ts': ['stageCheck', 'withStageCheck'],
  'src/advise/drain.ts': ['drainAdvisor', 'adviseDrain', 'staleAttachments'],
  'src/advise/next-steps.ts': ['nextSteps'],
  'src/advise/rollback.ts': ['rollbackFor', 'rollbackOf'],
  'src/advise/blind.ts': ['blindSpots'],
};

/**
 * The files an incident passes through after the evaluation, on its way from the pipeline's sync to Slack: the
 * pipeline's submit side, the notifier, the renderers, the store, the serve wiring and a fleet member's part.
 */
const isDownstream = (f: string): boolean =>
  (f.startsWith('src/pipeline/') && f !== 'src/pipeline/sync.ts') ||
  ['src/notify/', 'src/render/', 'src/store/', 'src/serve/'].some((d) => f.startsWith(d)) ||
  f === 'src/fleet/member.ts';

/** Writer imports downstream that make no incident fact, each with why. */
const WRITER_EXCEPTIONS: readonly string[] = [
  // The resolution reply's proof: what the agents show on a cleared incident's nodes now, not an incident's.
  'src/pipeline/resolution.ts -> src/correlate/proof.ts: buildProof',
];

const files = sourceFiles(ROOT, 'src');
const edges: ImportEdge[] = files.flatMap((f) => importsOf(ROOT, f));
const ours = edges.filter((e) => e.to.startsWith('src/') && e.to !== e.from);

/** "domain" for src/domain/clock.ts; the file itself ("errors.ts") for a file directly under src/. */
const folderOf = (file: string): string => file.split('/')[1] ?? file;
const crossing = ours.filter((e) => folderOf(e.from) !== folderOf(e.to));
const pending = (e: ImportEdge): boolean => PENDING.includes(`${folderOf(e.from)} -> ${folderOf(e.to)}`);
const show = (es: readonly ImportEdge[]): string[] =>
  es.map((e) => `${e.from} -> ${e.to}${e.typeOnly ? ' (type)' : ''}`);

describe('architecture', () => {
  it('reads the imports it checks (the parser sees type-only and dynamic imports)', () => {
    expect(files.length).toBeGreaterThan(100);
    const typeOnly = edges.filter((e) => e.from === 'src/render/slack-resolved.ts' && e.typeOnly).map((e) => e.to);
    expect(typeOnly).toContain('src/domain/history.ts');
    expect(edges.some((e) => e.from === 'src/cli/main.ts' && e.to === 'src/cli/scan.ts')).toBe(true);
  });

  it('declares every folder under src/ as a pure layer or an outer folder', () => {
    const folders = [...new Set(files.filter((f) => f.split('/').length > 2).map(folderOf))].sort();
    expect(folders.filter((f) => !PURE_LAYERS.includes(f) && !OUTER.includes(f))).toEqual([]);
  });

  it('src/domain imports nothing of ours but src/errors.ts, and src/errors.ts imports nothing of ours', () => {
    const bad = crossing.filter(
      (e) => (folderOf(e.from) === 'domain' && e.to !== 'src/errors.ts') || e.from === 'src/errors.ts',
    );
    expect(show(bad)).toEqual([]);
  });

  it('pure folders import only the pure folders below them, and no package that does I/O', () => {
    const rank = (f: string): number => PURE_LAYERS.indexOf(f);
    const upward = crossing.filter((e) => {
      const from = rank(folderOf(e.from));
      return (
        from >= 0 &&
        e.to !== 'src/errors.ts' &&
        !pending(e) &&
        !(rank(folderOf(e.to)) >= 0 && rank(folderOf(e.to)) < from)
      );
    });
    expect(show(upward)).toEqual([]);
    const packages = edges.filter(
      (e) => rank(folderOf(e.from)) >= 0 && !e.to.startsWith('src/') && !PURE_PACKAGES.has(e.to),
    );
    expect(show(packages)).toEqual([]);
  });

  it('nothing in src/ uses the simulator, test/ or an in-memory fake except the demo and the sim CLI', () => {
    const bad = edges.filter((e) => isTestTool(e.to) && !isTestTool(e.from) && !DEMO.has(e.from));
    expect(show(bad)).toEqual([]);
    // The demo's own modules are entry points' business only.
    const demo = ours.filter((e) => DEMO.has(e.to) && !DEMO.has(e.from) && e.from !== 'src/cli/main.ts');
    expect(show(demo)).toEqual([]);
  });

  it('nothing after the evaluation imports what makes or changes an incident (facts are made once)', () => {
    const bad = edges.flatMap((e) => {
      const writes = WRITERS[e.to];
      if (!writes || !isDownstream(e.from)) return [];
      return e.names
        .filter((n) => writes.includes('*') || n === '*' || writes.includes(n))
        .map((n) => `${e.from} -> ${e.to}: ${n}`)
        .filter((x) => !WRITER_EXCEPTIONS.includes(x));
    });
    expect(bad).toEqual([]);
    // The check sees the files it guards: the submit step and the notifier are downstream, the sync is not.
    expect(files.filter(isDownstream)).toEqual(
      expect.arrayContaining(['src/pipeline/submit.ts', 'src/notify/notifier.ts']),
    );
    expect(isDownstream('src/pipeline/sync.ts')).toBe(false);
  });

  it('has no import cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of crossing) {
      if (pending(e)) continue;
      const from = folderOf(e.from);
      graph.set(from, (graph.get(from) ?? new Set()).add(folderOf(e.to)));
    }
    expect(cycles(graph)).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(fileCycles().filter((c) => !PENDING_FILE_CYCLES.includes(c))).toEqual([]);
  });

  it('the pending exemptions are still needed (remove an entry once its imports are gone)', () => {
    const used = new Set(crossing.filter(pending).map((e) => `${folderOf(e.from)} -> ${folderOf(e.to)}`));
    expect(PENDING.filter((p) => !used.has(p))).toEqual([]);
    const found = fileCycles();
    expect(PENDING_FILE_CYCLES.filter((c) => !found.includes(c))).toEqual([]);
  });
});

// Every cycle between files, as "a <-> b <-> c" (sorted), leaving out the folder imports PENDING exempts.
function fileCycles(): string[] {
  const graph = new Map<string, Set<string>>();
  for (const e of ours) {
    if (pending(e)) continue;
    graph.set(e.from, (graph.get(e.from) ?? new Set()).add(e.to));
  }
  return cycles(graph).map((c) => c.join(' <-> '));
}
