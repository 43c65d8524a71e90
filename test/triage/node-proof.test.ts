// The node agents in a triage: an orphaned staged volume is STALE_ATTACHMENT evidence of the claim bound to it,
// mount options that differ between nodes are a finding of their own, and without agents the report says the
// proof is unavailable and how to enable it. Pure: reports in, a triage out; one comment per case.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { AgentReport, StagedVolume } from '../../src/domain/node-report.js';
import { AGENT_ENABLE_HINT, noAgentText, type NodeReports, type NodeReportState } from '../../src/domain/proof.js';
import { needsAttention, renderTable, triage } from '../../src/triage/index.js';
import { renderTriage } from '../../src/commands/render-triage.js';
import { healthyReport, nfsVolume } from '../agent/report-fixtures.js';
import { DRIVER, NOW, baseCluster, healthyClaim, pod, pv, pvc } from './fixtures.js';

const NS = 'shop';
const GLOBALMOUNT = `/var/lib/kubelet/plugins/kubernetes.io/csi/${DRIVER}/9c1d/globalmount`;

/** A staged volume of `pv` on a node: mounted with no pod bind mount (ORPHANED) unless `state` says otherwise. */
function staged(pvName: string, state: StagedVolume['state'] = 'ORPHANED'): StagedVolume {
  return {
    path: GLOBALMOUNT,
    layout: 'sha',
    driver: DRIVER,
    sha: '9c1d',
    pv: pvName,
    state,
    source: '10.0.0.5:/export/data',
    fstype: 'nfs4',
    podMounts: state === 'IN_USE' ? 1 : 0,
    podUids: [],
  };
}

function withStaged(node: string, ...volumes: StagedVolume[]): AgentReport {
  return healthyReport(node, { stagedVolumes: { status: 'ok', volumes } });
}

const asked = (states: Record<string, NodeReportState>): NodeReports => ({
  kind: 'asked',
  states: new Map(Object.entries(states)),
});
const report = (r: AgentReport): NodeReportState => ({ kind: 'report', report: r, at: NOW });

/** The cluster: claim shop/data bound to pvc-data, its one pod running on node-01. */
function cluster(): ClusterIndex {
  const s = baseCluster();
  healthyClaim(s, NS, 'data');
  return ClusterIndex.fromSnapshot(s);
}

describe('triage with node agents', () => {
  it('makes a globalmount still mounted with no pod on a node without consumer STALE_ATTACHMENT evidence', () => {
    // node-02 runs no pod of shop/data, and its agent proves the volume still staged there with 0 pod references.
    const r = triage(cluster(), {
      now: NOW,
      nodeReports: asked({
        'node-01': report(healthyReport('node-01')),
        'node-02': report(withStaged('node-02', staged('pvc-data'))),
      }),
    });
    const c = r.claims.find((x) => x.name === 'data')!;
    expect(c.phase).toBe('STALE_ATTACHMENT');
    expect(c.needsAttention).toBe(true);
    expect(c.detail).toBe(`node-02: globalmount of pvc-data (${DRIVER}) still mounted, 0 pod references`);
    expect(c.evidence.stages).toEqual([
      { node: 'node-02', path: GLOBALMOUNT, driver: DRIVER, podUids: [], text: c.detail },
    ]);
    expect(c.advice[1]).toBe('2. Cordon node-02.');
    expect(c.advice[3]).toContain(`unmount that globalmount path (${GLOBALMOUNT})`);
    expect(r.nodeProof).toMatchObject({
      status: 'available',
      nodesAsked: 2,
      reports: 2,
      findings: [],
      unavailable: [],
    });
    expect(renderTable(r)).toContain(`stage  ${GLOBALMOUNT} on node-02, no pod bind mount`);
  });

  it('leaves a staged volume alone on a node where a consumer pod of the claim is (starting or stopping)', () => {
    // The pod on node-01 is the claim's: staged before published is the normal order, not an orphan.
    const r = triage(cluster(), {
      now: NOW,
      nodeReports: asked({ 'node-01': report(withStaged('node-01', staged('pvc-data'))) }),
    });
    expect(r.claims[0]?.phase).toBe('OK');
    expect(r.nodeProof.findings).toEqual([]);
  });

  it('adds STALE_ATTACHMENT to another phase, and states an orphan of a volume no triaged claim names', () => {
    // shop/data fails to mount on node-01 and is orphaned on node-02; pvc-old belongs to no triaged claim.
    const s = baseCluster();
    s.pvcs.push(pvc(NS, 'data'));
    s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
    s.pods.push(pod(NS, 'web-0', { claim: 'data', node: 'node-01', state: 'creating', startedAgo: 3600 }));
    const r = triage(ClusterIndex.fromSnapshot(s), {
      now: NOW,
      nodeReports: asked({ 'node-02': report(withStaged('node-02', staged('pvc-data'), staged('pvc-old'))) }),
    });
    const c = r.claims[0]!;
    expect(c.phase).toBe('MOUNT_FAILED');
    expect(c.alsoPhases).toEqual(['STALE_ATTACHMENT']);
    expect(r.nodeProof.findings).toEqual([
      {
        kind: 'ORPHANED_STAGE',
        volume: 'pvc-old',
        claim: null,
        nodes: ['node-02'],
        text: `node-02: globalmount of pvc-old (${DRIVER}) still mounted, 0 pod references`,
      },
    ]);
    expect(needsAttention(r)).toBe(true);
  });

  it('states mount options that differ between nodes for one volume as a finding of their own', () => {
    // node-02 mounts pvc-data soft, node-01 and node-03 hard: the claim is fine by the API, the finding is not.
    const opts = (node: string, recovery: string) =>
      healthyReport(node, { mountOptions: { status: 'ok', volumes: [nfsVolume('pvc-data', recovery)] } });
    const r = triage(cluster(), {
      now: NOW,
      nodeReports: asked({
        'node-01': report(opts('node-01', 'hard')),
        'node-02': report(opts('node-02', 'soft')),
        'node-03': report(opts('node-03', 'hard')),
      }),
    });
    expect(r.claims[0]?.phase).toBe('OK');
    expect(r.nodeProof.findings).toEqual([
      {
        kind: 'MOUNT_OPTIONS_DIFFER',
        volume: 'pvc-data',
        claim: 'shop/data',
        nodes: ['node-02'],
        text: 'node-02 mounts pvc-data soft, 2 other nodes hard',
      },
    ]);
    expect(r.summary.nodeProofFindings).toBe(1);
    expect(needsAttention(r)).toBe(true);
    expect(renderTable(r)).toContain('    node-02 mounts pvc-data soft, 2 other nodes hard (claim shop/data)');
    const slack = JSON.stringify(renderTriage(r, { kind: 'all' }, false).response);
    expect(slack).toContain('node-02 mounts pvc-data soft, 2 other nodes hard (claim `shop/data`)');
    // Under another namespace the volume is out of scope.
    expect(triage(cluster(), { now: NOW, namespace: 'other', nodeReports: asked({}) }).nodeProof.findings).toEqual([]);
  });

  it('says the proof is unavailable and how to enable it when no agent runs, in the table and in Slack', () => {
    // Agents asked, none found: the one sentence; nothing is claimed about the nodes.
    const r = triage(cluster(), { now: NOW, nodeReports: asked({}) });
    const sentence = noAgentText();
    expect(sentence).toBe(`proof unavailable: no rwx agent runs on any node; ${AGENT_ENABLE_HINT}`);
    expect(r.nodeProof).toEqual({
      status: 'unavailable',
      nodesAsked: 0,
      reports: 0,
      findings: [],
      unavailable: [sentence],
    });
    expect(needsAttention(r)).toBe(false);
    expect(renderTable(r)).toContain(`NODE PROOF\n    ${sentence}`);
    expect(JSON.stringify(renderTriage(r, { kind: 'all' }, false).response)).toContain('no rwx agent runs on any node');
  });

  it('names the nodes of claims needing attention that run no agent, and agents that did not answer', () => {
    // node-02 has an agent that cannot be reached; node-01 (the failing pod's node) has none.
    const s = baseCluster();
    s.pvcs.push(pvc(NS, 'data'));
    s.pvs.push(pv('pvc-data', { ns: NS, name: 'data' }));
    s.pods.push(pod(NS, 'web-0', { claim: 'data', node: 'node-01', state: 'creating', startedAgo: 3600 }));
    const r = triage(ClusterIndex.fromSnapshot(s), {
      now: NOW,
      nodeReports: asked({ 'node-02': { kind: 'unavailable', reason: 'cannot reach the agent', at: NOW } }),
    });
    expect(r.nodeProof.status).toBe('unavailable');
    expect(r.nodeProof.unavailable).toEqual([
      noAgentText(['node-01']),
      'node-02: proof unavailable: cannot reach the agent',
    ]);
  });

  it('says why when the agents were not asked', () => {
    // A snapshot (or a bot without agents): not asked is not "fine".
    const r = triage(cluster(), { now: NOW, nodeReports: { kind: 'not-asked', reason: 'a snapshot was read' } });
    expect(r.nodeProof.unavailable).toEqual(['proof unavailable: a snapshot was read']);
    expect(triage(cluster(), { now: NOW }).nodeProof.unavailable).toEqual([
      'proof unavailable: the node agents were not asked',
    ]);
  });
});
