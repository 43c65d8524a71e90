// The proof from the nodes as Slack says it: in the root, the evidence, a change reply and the resolution.
import { describe, expect, it } from 'vitest';
import { buildProof } from '../../src/correlate/proof.js';
import { mergeHistory } from '../../src/domain/history.js';
import type { AgentReport } from '../../src/domain/node-report.js';
import { proofKeys, type IncidentProof, type NodeReportState } from '../../src/domain/proof.js';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { renderResolution } from '../../src/render/slack-resolution.js';
import { renderChangeReply, renderEvidenceReply } from '../../src/render/slack-thread.js';
import { membersOf } from '../../src/domain/members.js';
import { healthyReport, lostReport } from '../agent/report-fixtures.js';
import { FIXTURE_NOW, rolloutIncident } from './incident-fixtures.js';

const text = (m: { blocks: unknown[] }): string => JSON.stringify(m.blocks);
const report = (r: AgentReport): NodeReportState => ({ kind: 'report', report: r, at: 0 });
const proofOf = (states: Record<string, NodeReportState>): IncidentProof =>
  buildProof(Object.keys(states), (n) => states[n]!, {
    driver: 'ebs.csi.aws.com',
    pluginOf: () => ({ uid: 'plugin-uid' }),
  });

describe('the proof in the thread', () => {
  it('states propagation lost in the root and the evidence, as the one wording of the finding', () => {
    const incident = { ...rolloutIncident(), proof: proofOf({ 'node-19': report(lostReport('node-19')) }) };
    const line =
      "node-19: the node plugin's mount namespace holds 3 CSI mounts under /var/lib/kubelet that the host cannot see: propagation lost";
    // The root says what is proven in one line; the thread has each node's finding.
    expect(text(renderIncidentRoot(incident))).toContain('*Proof:* propagation lost on 1 of 1 node checked');
    expect(text(renderIncidentRoot(incident))).not.toContain(line);
    expect(text(renderEvidenceReply(incident))).toContain(line);
  });

  it.each([
    // an agent that did not answer checked nothing: never "checked, nothing found"
    [{ 'node-19': { kind: 'unavailable', reason: 'the agent did not answer within 3000 ms', at: 0 } }, 'unavailable'],
    // a report from before the plugin pod now running started is not about that pod
    [{ 'node-19': { kind: 'report', report: lostReport('node-19'), at: -1 } }, 'unavailable'],
    // a report from an agent that answered, about the plugin pod now running
    [{ 'node-19': report(healthyReport('node-19')) }, 'checked'],
  ] as [Record<string, NodeReportState>, string][])(
    'the root counts only the nodes whose agent answered (%#)',
    (states, says) => {
      const proof = buildProof(Object.keys(states), (n) => states[n]!, {
        pluginOf: () => ({ uid: 'u', startedAt: 0 }),
      });
      const root = text(renderIncidentRoot({ ...rolloutIncident(), proof }));
      if (says === 'unavailable') expect(root).toContain('*Proof:* unavailable (in the thread)');
      else expect(root).not.toContain('unavailable (in the thread)');
    },
  );

  it('says the proof is unavailable where no agent runs, and how to enable it, in one line', () => {
    const incident = { ...rolloutIncident(), proof: proofOf({ 'node-19': { kind: 'no-agent' } }) };
    const root = text(renderIncidentRoot(incident));
    // The root says only that there is no agent; the thread points to how to get one, without the commands.
    expect(root).toContain('*Proof:* no agent on these nodes');
    expect(root).not.toMatch(/kubectl apply|Helm|visible from the host|propagation lost/);
    expect(text(renderEvidenceReply(incident))).toContain(
      'proof unavailable: no rwx agent runs on node-19 (opt-in: docs/agent.md)',
    );
  });

  it('escapes what came from the node in the thread (a process can name itself anything)', () => {
    const r = lostReport('node-19');
    r.propagation.namespaces[0]!.processes = [{ pid: 7, comm: '<!channel>' }];
    const incident = { ...rolloutIncident(), proof: proofOf({ 'node-19': report(r) }) };
    const thread = text(renderEvidenceReply(incident));
    expect(thread).toContain('&lt;!channel&gt;');
    expect(thread).not.toContain('<!channel>');
  });

  it('names in a change reply only the proof the last post did not state', () => {
    const before = { ...rolloutIncident(), proof: proofOf({ 'node-19': { kind: 'pending' } }) };
    const after = { ...rolloutIncident(), proof: proofOf({ 'node-19': report(lostReport('node-19')) }) };
    const reply = renderChangeReply(after, membersOf(before));
    expect(reply && text(reply)).toContain('propagation lost');
    expect(renderChangeReply(after, membersOf(after))).toBeUndefined();
    expect(membersOf(after).proof).toEqual(proofKeys(after.proof));
  });

  it('says in the resolution whether the mounts are visible from the host now, and drops the manual check', () => {
    const incident = rolloutIncident();
    const history = mergeHistory(undefined, incident, FIXTURE_NOW).history;
    const base = { recovered: [], deleted: [], cronJobs: [] };
    const visible = Object.fromEntries(history.nodes.map((n) => [n, report(healthyReport(n))]));
    const ok = text(renderResolution(incident, history, { ...base, proof: proofOf(visible) }));
    expect(ok).toContain('Checked again from the nodes*: the mounts are visible from the host');
    expect(ok).toContain('the propagation is back');
    expect(ok).not.toContain('check the CSI mount of a test volume appears in the host mount namespace');

    const [first] = history.nodes;
    const still = { ...visible, [first!]: report(lostReport(first!)) };
    const lost = text(renderResolution(incident, history, { ...base, proof: proofOf(still) }));
    expect(lost).toContain('still hold CSI mounts the host cannot see');
    expect(lost).toContain('check the CSI mount of a test volume appears in the host mount namespace');

    const none = text(renderResolution(incident, history, base));
    expect(none).not.toContain('Checked again from the nodes');
  });
});
