// One answer about the node agents' proof and the stale-stage check, wherever the bot gives it: the thread (the
// pipeline's sync, each pass), `/rwx drain` (the command handler), `rwx drain-check` (its evaluation options) and
// triage (its node proof) read the same agents' answers, and each states what stageCheck and incidentProof made of
// them inside the one evaluation; no path computes them on its own. A pod stuck creating on node-02, whose agent
// reports the globalmount of shop/db (ReadWriteOnce, its pod on node-01) still staged there with no pod.
// What holds the mount of a pod stuck at unpublish (scenarios/terminal-phase-terminating.yaml: batch/report-builder-0
// on node-2, its RWX claim UNPUBLISH_STUCK) is one answer too: the thread's incident and triage's evidence state the
// lines of terminatingPodHolds (correlate/unmount-holds.ts), with the agent's holder or "not visible from the API".
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { stageCheck, staleStageText } from '../../src/advise/stale-stage.js';
import { evalSettings, evaluateOptions } from '../../src/cli/scan.js';
import { runCommand } from '../../src/commands/handle.js';
import { parseCommand } from '../../src/commands/parse.js';
import { serveServices } from '../../src/commands/serve.js';
import { loadConfig } from '../../src/config/index.js';
import { incidentProof } from '../../src/correlate/proof.js';
import { terminatingPodHolds } from '../../src/correlate/unmount-holds.js';
import type { ClusterIndex } from '../../src/domain/cluster-index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { reportStateOf, type NodeReports, type NodeReportState } from '../../src/domain/proof.js';
import { evaluate } from '../../src/evaluate/evaluate.js';
import { realSync } from '../../src/pipeline/sync.js';
import { triage } from '../../src/triage/triage.js';
import { healthyReport } from '../agent/report-fixtures.js';
import { NOW, pod } from '../triage/fixtures.js';
import { orphan, shopCluster } from '../advise/stale-stage-fixtures.js';
import { REDIS_URL } from '../serve/harness.js';
import { withDemoAgents } from '../support/demo-reports.js';

const NODE = 'node-02';
const STAGED = orphan('pvc-db', 'ab12');
const STATE: NodeReportState = {
  kind: 'report',
  report: healthyReport(NODE, { stagedVolumes: { status: 'orphaned', volumes: [STAGED] } }),
  at: NOW,
};
const index = shopCluster((s) =>
  s.pods.push(pod('shop', 'web-stuck', { claim: 'files', node: NODE, state: 'creating', startedAgo: 1800 })),
);
/** The agents as every path is given them: node-02's answers, no agent elsewhere. */
const agents = { stateOf: (n: string): NodeReportState => (n === NODE ? STATE : { kind: 'no-agent' }) };
const REPORTS: NodeReports = { kind: 'asked', states: new Map([[NODE, STATE]]) };
const config = loadConfig({
  env: { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_CHANNEL: 'C0INCIDENT', SLACK_SIGNING_SECRET: 'secret-0123456789', REDIS_URL },
});
const redis = new Redis(REDIS_URL, { lazyConnect: true });
afterAll(() => redis.disconnect());

/** The thread's incident holding node-19: what the pipeline's sync evaluates on a pass. */
async function threadIncident() {
  const sync = realSync({ stuckAfterMs: 300_000, cronJobGraceMs: 600_000, driverDaemonSets: {}, agents });
  const { findings } = evaluate(index, { now: NOW });
  const incidents = await sync.evaluate(index, findings, NOW, new Set());
  const incident = incidents.find((i) => i.drain.some((d) => d.node === NODE));
  if (!incident) throw new Error(`no incident with drain advice for ${NODE}`);
  return incident;
}

describe('one proof and stale-stage answer', () => {
  it('the thread states the check and the proof the one evaluation made of the agents’ answers', async () => {
    const incident = await threadIncident();
    const check = stageCheck(index, NODE, REPORTS);
    expect(check.checked && check.stale.map((s) => s.path)).toEqual([STAGED.path]);
    expect(incident.drain.find((d) => d.node === NODE)?.stages).toEqual(check);
    const proof = incidentProof(index, incident, (n) => reportStateOf(REPORTS, n));
    expect(incident.proof).toEqual(proof);
    expect(incident.proof?.findings).toContainEqual(expect.objectContaining({ kind: 'ORPHANED_STAGE', node: NODE }));
  });

  it('/rwx drain and rwx drain-check give the thread’s drain advice for the node, word for word', async () => {
    const thread = (await threadIncident()).drain.find((d) => d.node === NODE)!;
    const svc = serveServices({
      config,
      index: () => index,
      redis,
      clock: new ManualClock(NOW),
      nodeReport: async () => STATE,
    });
    const reply = await runCommand(parseCommand(`drain ${NODE}`), svc);
    const said = JSON.stringify(reply.response);
    const stale = thread.stages?.checked ? thread.stages.stale : [];
    expect(stale).toHaveLength(1);
    expect(said).toContain(JSON.stringify(staleStageText(stale[0]!)).slice(1, 40));
    // drain-check: the evaluation options its flags give, with the node's agent asked.
    const s = evalSettings({ now: new Date(NOW).toISOString() }, ['text']);
    const cli = evaluate(index, { ...evaluateOptions(s), incidents: 'read', nodeReports: REPORTS }).drain(NODE);
    expect(cli).toEqual(thread);
  });

  it('triage names the same stage (volume, claim, node) from the same answers', async () => {
    const thread = (await threadIncident()).drain.find((d) => d.node === NODE)!;
    const stale = thread.stages?.checked ? thread.stages.stale : [];
    const report = triage(index, { now: NOW, nodeReports: REPORTS });
    const found = report.nodeProof?.findings.filter((f) => f.kind === 'ORPHANED_STAGE') ?? [];
    expect(found.map((f) => [f.volume, f.claim, f.nodes])).toEqual(stale.map((x) => [x.volume, x.claim, [x.node]]));
  });
});

/** The thread's pods of a pass over `index` with the agents' answers `reports`, as the pipeline's sync makes them. */
async function threadPods(index: ClusterIndex, now: number, reports: NodeReports) {
  const states = reports.kind === 'asked' ? reports.states : new Map<string, NodeReportState>();
  const stateOf = (n: string): NodeReportState => states.get(n) ?? { kind: 'no-agent' };
  const sync = realSync({ stuckAfterMs: 300_000, cronJobGraceMs: 600_000, driverDaemonSets: {}, agents: { stateOf } });
  const { findings } = evaluate(index, { now });
  const incidents = await sync.evaluate(index, findings, now, new Set());
  return { incidents, pod: incidents.flatMap((i) => i.pods).find((p) => p.pod.name === 'report-builder-0') };
}

describe('one answer about what holds a mount stuck at unpublish', () => {
  const cases: { name: string; nodes: string[]; want: RegExp }[] = [
    // The agent on node-2 answers: the process holding the mount, named.
    {
      name: 'with the node agent',
      nodes: ['node-2'],
      want: /^\(simulated agent\) tar \(pid 31337, on the host\) holds /,
    },
    // No agent on node-2: not visible from the API, with what to run there.
    { name: 'without an agent', nodes: [], want: /is not visible from the API \(no rwx agent runs on node-2\)/ },
  ];
  for (const c of cases)
    it(`the thread and triage state the same lines for the pod, ${c.name}`, async () => {
      const { index, now, reports } = await withDemoAgents('terminal-phase-terminating', c.nodes);
      const { incidents, pod } = await threadPods(index, now, reports);
      const holds = terminatingPodHolds(index, index.get('pods', 'batch/report-builder-0')!, now, reports);
      expect(holds?.map((h) => h.text)).toEqual([expect.stringMatching(c.want)]);
      expect(pod?.location?.unmountHolds).toEqual(holds);
      const line = holds![0]!.text;
      expect(incidents.flatMap((i) => i.explanations ?? [])).toContain(`${line}.`);
      const claim = triage(index, { now, nodeReports: reports }).claims.find((x) => x.name === 'reports');
      expect(claim?.phase).toBe('UNPUBLISH_STUCK');
      expect(claim?.evidence.holds).toEqual(holds);
    });
});
