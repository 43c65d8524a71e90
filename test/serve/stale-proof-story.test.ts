// A node agent's report read before the node's current plugin pod was created is no proof about that pod
// (src/correlate/proof.ts staleReportReason), played as a story: scenarios/rollback-under-way.yaml through the whole
// `rwx serve` pipeline (the simulator over HTTP on a manual clock, real Redis, the fake Slack), its agents the
// demo's simulated ones (src/serve/demo-agents.ts demoReport: the made-up rule `rwx demo` serves) over HTTP.
//
// The window is the kubelet's: a failed mount is retried after an exponential backoff that doubles up to 2m2s
// (kubernetes/kubernetes pkg/util/goroutinemap/exponentialbackoff/exponential_backoff.go maxDurationBeforeRetry,
// used by pkg/volume/util/nestedpendingoperations/nestedpendingoperations.go), so features-0 stays stuck on node-2
// from +2m, when the rollback puts node-2's plugin pod back on the good revision, to its next retry at +3m14s. The
// agent's report from before +2m holds features-0's volume in the old plugin's mount namespace: shown as proof, it
// would say "propagation lost" on a node back on the good revision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '@rwx/kube-sim';
import { startSimulatedAgents, type SimulatedAgents } from '../../src/agent/simulated.js';
import { findingText } from '../../src/detect/node-findings.js';
import type { Incident } from '../../src/domain/incident.js';
import { demoReport } from '../../src/serve/demo-agents.js';
import { harness, type Harness } from './harness.js';
import { until } from '../support/until.js';

const SCENARIO = 'scenarios/rollback-under-way.yaml';
/** Its bad revision, and when node-2's plugin pod is replaced and when features-0 mounts (offsets, ms). */
const BAD_REVISION = 2;
const NODE2_BACK = 120_000;
const FEATURES_MOUNTS = 194_000;
const STALE = 'proof unavailable: its last report is from before the node plugin pod now running started';
const STEP = 10_000;

/** One evaluation the pipeline recorded: at which offset, and its incidents. */
interface Evaluation {
  at: number;
  incidents: Incident[];
}

let h: Harness;
let agents: SimulatedAgents;
let start = 0;
const evaluations: Evaluation[] = [];
/** Each report the agents served: its node, its offset, and how many evaluations were recorded before it. */
const served: { node: string; at: number; after: number }[] = [];

beforeAll(async () => {
  const scenario = await loadScenario(SCENARIO);
  h = await harness(SCENARIO);
  start = h.clock.now();
  agents = await startSimulatedAgents({
    reportFor: (node) => {
      const index = h.serve?.watcher.index;
      if (index) served.push({ node, at: h.clock.now() - start, after: evaluations.length });
      return index ? demoReport(index, scenario.kubelet ?? {}, node, h.clock.now()) : undefined;
    },
  });
  await h.start({
    // A cache longer than the story: node-2 is asked again because its report is stale, not because the TTL ran out.
    proof: { locate: (node) => ({ kind: 'agent', url: agents.urlFor(node) }), ttlMs: 3_600_000 },
    observe: (incidents) => {
      evaluations.push({ at: h.clock.now() - start, incidents: structuredClone([...incidents]) });
      return Promise.resolve();
    },
  });
  // Played in steps, each answer from the agents evaluated before the next step.
  for (let at = 1_000; at <= FEATURES_MOUNTS + 2 * STEP; at += STEP) {
    await h.advance(at === 1_000 ? at : STEP);
    const asked = served.at(-1);
    if (asked) await until(() => evaluations.length > asked.after, `the answer of ${asked.node} evaluated`);
  }
}, 60_000);

afterAll(async () => {
  await h?.close();
  await agents?.stop();
});

/** node-2's row and proof findings in one evaluation, when one of its incidents has node-2. */
function node2(e: Evaluation) {
  for (const i of e.incidents) {
    const row = i.nodes.find((n) => n.node === 'node-2');
    if (row) return { row, findings: (i.proof?.findings ?? []).filter((f) => 'node' in f && f.node === 'node-2') };
  }
  return undefined;
}

/** What a message shows, as text. */
const shown = (blocks: unknown) => JSON.stringify(blocks ?? []);
const lostOnNode2 = /node-2: [^"]*propagation lost/;

describe('rollback-under-way: node-2 back on the good revision while features-0 waits for its mount retry', () => {
  it('every evaluation shows propagation lost only on nodes whose plugin pod runs the bad revision', () => {
    let lost = 0;
    for (const e of evaluations)
      for (const i of e.incidents)
        for (const f of i.proof?.findings ?? []) {
          if (f.kind !== 'PROPAGATION_LOST') continue;
          const row = i.nodes.find((n) => n.node === f.node);
          expect(row?.plugin?.revision, `+${e.at / 1000}s ${findingText(f)}`).toBe(BAD_REVISION);
          lost++;
        }
    // Before the rollback reaches them, node-1 and node-2 are rightly shown propagation lost.
    expect(lost).toBeGreaterThan(0);
  });

  it("node-2 on the good revision with features-0 stuck: the old report is no proof, then the new one's answer", () => {
    // The evaluations between node-2's plugin pod replacement and features-0's mount: node-2's proof in each.
    const window = evaluations
      .filter((e) => e.at < FEATURES_MOUNTS && node2(e)?.row.plugin?.revision === 3)
      .map((e) => ({ at: e.at, said: node2(e)!.findings.map(findingText), stuck: node2(e)!.row.stuckPods }));
    expect(window.length).toBeGreaterThan(0);
    expect(window[0]!.at).toBeGreaterThanOrEqual(NODE2_BACK);
    for (const w of window) expect(w.stuck).toEqual(['ml/features-0']);
    // The scenario's kubelet retry: features-0 runs from +3m14s.
    const features = h.sim.objects('Pod').find((p) => p.metadata?.name === 'features-0');
    expect((features?.status as { phase?: string } | undefined)?.phase).toBe('Running');
    const stale = window.filter((w) => w.said.some((t) => t.includes(STALE)));
    const fresh = window.filter((w) => w.said.some((t) => t.includes('is visible from the host')));
    const why = JSON.stringify(window, null, 1);
    // Asked again: first the stale report's "proof unavailable", then only what the fresh report says.
    expect(stale.length, why).toBeGreaterThan(0);
    expect(fresh.length, why).toBeGreaterThan(0);
    expect(stale.length + fresh.length, why).toBe(window.length);
    expect(stale.at(-1)!.at, why).toBeLessThanOrEqual(fresh[0]!.at);
    expect(window.indexOf(stale.at(-1)!), why).toBeLessThan(window.indexOf(fresh[0]!));
    expect(
      window.flatMap((w) => w.said).filter((t) => t.includes('propagation lost')),
      why,
    ).toEqual([]);
    // And node-2 was asked again as soon as its report was seen stale (within the step), not when a cache expired.
    const seen = stale[0]!.at;
    expect(served.some((s) => s.node === 'node-2' && s.at >= seen && s.at <= seen + STEP)).toBe(true);
  });

  it('the thread says the report is from before the plugin pod, then the fresh answer, never propagation lost', () => {
    const root = h.slack.roots()[0]!;
    const replies = h.slack.replies(root.ts).map((r) => shown(r.blocks));
    const stale = replies.findIndex((r) => r.includes(`node-2: ${STALE}: asked again`));
    expect(stale, replies.join('\n')).toBeGreaterThan(0);
    // Before it, node-2 on revision 2 was rightly shown propagation lost; from it on, never again.
    expect(replies.slice(0, stale).some((r) => lostOnNode2.test(r))).toBe(true);
    for (const r of replies.slice(stale)) expect(r).not.toMatch(lostOnNode2);
    expect(replies.slice(stale + 1).some((r) => /node-2: every CSI mount [^"]* is visible from the host/.test(r))).toBe(
      true,
    );
    expect(shown(root.blocks)).not.toMatch(lostOnNode2);
  });
});
