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
      pluginOf: () => ({ uid: 'plugin-uid' }),
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

  it.each([
    // read before the plugin pod now running started (replaced since, e.g. by a rollback): the old pod's namespaces
    [1_000, 2_000, 'PROOF_UNAVAILABLE'],
    // read after it started: proof about the pod running now
    [3_000, 2_000, 'PROPAGATION_LOST'],
    // the pod's start unknown: the report stands, as before
    [1_000, undefined, 'PROPAGATION_LOST'],
  ] as const)('a report read at %d, the plugin pod started at %s: %s', (at, startedAt, kind) => {
    const state: NodeReportState = { kind: 'report', report: lostReport('node-19'), at };
    const p = buildProof(['node-19'], () => state, {
      pluginOf: () => ({ uid: 'plugin-uid', ...(startedAt !== undefined ? { startedAt } : {}) }),
    });
    expect(p.findings.map((f) => f.kind)).toEqual([kind]);
    if (kind === 'PROOF_UNAVAILABLE') expect(JSON.stringify(p.findings)).toContain('from before the node plugin pod');
    // The stale node is asked again at once (the pipeline reads askAgain), the others wait for the cache's TTL.
    expect(p.askAgain).toEqual(kind === 'PROOF_UNAVAILABLE' ? ['node-19'] : undefined);
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
