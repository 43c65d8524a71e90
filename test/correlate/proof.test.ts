// From node reports to an incident's proof. Pure table tests over the agent report fixtures.
import { describe, expect, it } from 'vitest';
import { buildProof } from '../../src/correlate/proof.js';
import type { AgentReport } from '../../src/domain/node-report.js';
import { MAX_PROOF_NODES, proofKeys, type NodeReportState } from '../../src/domain/proof.js';
import { healthyReport, lostReport, nfsVolume } from '../agent/report-fixtures.js';

const report = (r: AgentReport): NodeReportState => ({ kind: 'report', report: r, at: 0 });

describe('buildProof', () => {
  it('states propagation lost on the node whose plugin namespace hides mounts, and names the plugin', () => {
    const states: Record<string, NodeReportState> = { 'node-19': report(lostReport('node-19')) };
    const p = buildProof(['node-19'], (n) => states[n]!, {
      driver: 'ebs.csi.aws.com',
      pluginUidOf: () => 'plugin-uid',
    });
    expect(p.findings).toHaveLength(1);
    const f = p.findings[0]!;
    expect(f.kind).toBe('PROPAGATION_LOST');
    if (f.kind === 'PROPAGATION_LOST') {
      expect(f.mounts).toBe(3);
      expect(f.namespaces[0]?.plugin).toBe(true);
    }
    expect(p.noAgent).toEqual([]);
  });

  it('keeps nodes without an agent, pending and unreachable apart, claiming nothing about them', () => {
    const states: Record<string, NodeReportState> = {
      a: { kind: 'no-agent' },
      b: { kind: 'pending' },
      c: { kind: 'unavailable', reason: 'cannot reach the agent at http://10.0.0.3:9743/report (ECONNREFUSED)', at: 1 },
      d: report(healthyReport('d')),
    };
    const p = buildProof(['a', 'b', 'c', 'd'], (n) => states[n]!);
    expect(p.noAgent).toEqual(['a']);
    expect(p.pending).toEqual(['b']);
    expect(p.findings.map((f) => `${f.kind}:${'node' in f ? f.node : ''}`)).toEqual([
      'PROOF_UNAVAILABLE:c',
      'PROPAGATION_VISIBLE:d',
    ]);
    // Pending is not news; the rest is, without the failure's wording (which changes from try to try).
    expect(proofKeys(p)).toEqual(['no-agent:a', 'unavailable:c:report', 'visible:d']);
  });

  it('finds mount options that differ between the nodes asked', () => {
    const hard = (n: string) =>
      healthyReport(n, { mountOptions: { status: 'ok', volumes: [nfsVolume('vol-x', 'hard')] } });
    const nodes = ['n1', 'n2', 'n3'];
    const states: Record<string, NodeReportState> = {
      n1: report(hard('n1')),
      n2: report(hard('n2')),
      n3: report(healthyReport('n3', { mountOptions: { status: 'ok', volumes: [nfsVolume('vol-x', 'soft')] } })),
    };
    const p = buildProof(nodes, (n) => states[n]!);
    const diff = p.findings.find((f) => f.kind === 'MOUNT_OPTIONS_DIFFER');
    expect(diff).toMatchObject({ value: 'soft', nodes: ['n3'], otherValue: 'hard', otherNodes: 2 });
  });

  it('marks a proof made from a simulated report', () => {
    const p = buildProof(['x'], () => report(healthyReport('x', { simulated: true })));
    expect(p.simulated).toBe(true);
    expect(MAX_PROOF_NODES).toBeGreaterThan(0);
  });
});
