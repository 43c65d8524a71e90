// `/rwx node NODE` rendered: the report's findings in the one wording, the report itself (escaped), and every
// reason there is no report, each of which claims nothing about the node.
import { describe, expect, it } from 'vitest';
import { simulatedReport } from '../../src/agent/simulated.js';
import { runCommand, type CommandServices } from '../../src/commands/handle.js';
import { renderNode } from '../../src/commands/render-node.js';
import { ManualClock } from '../../src/domain/clock.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { NodeReportState } from '../../src/domain/proof.js';
import { lostReport } from '../agent/report-fixtures.js';

const text = (r: { response: { blocks?: unknown[] } }): string => JSON.stringify(r.response.blocks);

describe('renderNode', () => {
  it('states the findings and shows the report, escaped', () => {
    const r = lostReport('node-19');
    r.propagation.namespaces[0]!.processes = [{ pid: 7, comm: '<!channel>' }];
    const reply = renderNode('node-19', { kind: 'report', report: r, at: 0 }, false);
    const t = text(reply);
    expect(t).toContain('holds 3 CSI mounts under /var/lib/kubelet that the host cannot see: propagation lost');
    expect(t).toContain('PROPAGATION  lost');
    expect(t).toContain('&lt;!channel&gt;');
    expect(t).not.toContain('<!channel>');
    expect(reply.response.response_type).toBe('ephemeral');
    expect(reply.file).toBeUndefined();
  });

  it('attaches the whole report as a file when it does not fit, and labels a simulated one', () => {
    const pvs = Array.from({ length: 60 }, (_, i) => `pvc-${String(i).padStart(3, '0')}-long-volume-name`);
    const r = simulatedReport({ node: 'node-19', now: 0, driver: 'ebs.csi.aws.com', hiddenVolumes: pvs });
    const reply = renderNode('node-19', { kind: 'report', report: r, at: 0 }, true);
    expect(reply.file?.content).toContain('STAGED VOLUMES');
    expect(text(reply)).toContain('SIMULATED');
    expect(reply.response.response_type).toBe('in_channel');
  });

  it('shows the busy mounts: the pod volume mounts something holds, and with what', () => {
    const r = simulatedReport({
      node: 'node-2',
      now: 0,
      driver: 'vmstore.csi.tintri.com',
      terminating: [{ podUid: 'u-1', pv: 'pvc-reports', heldBy: 'process' }],
    });
    const all = text(renderNode('node-2', { kind: 'report', report: r, at: 0 }, false));
    const mount = '/var/lib/kubelet/pods/u-1/volumes/kubernetes.io~csi/pvc-reports/mount';
    expect(all).toContain('BUSY MOUNTS  ok: 1 of 1 pod volume mount(s) held');
    expect(all).toContain(`process 31337 tar: cwd ${mount}`);
  });

  it.each<[NodeReportState, RegExp, boolean]>([
    [
      { kind: 'no-agent' },
      /no rwx agent runs on `node-19`, so nothing is proven either way\. the node agent is opt-in: .*docs\/agent\.md/,
      false,
    ],
    [
      { kind: 'unavailable', reason: 'the agent at http://10.0.0.1:9743/report did not answer within 5000 ms', at: 0 },
      /proof unavailable: the agent at http:\/\/10\.0\.0\.1:9743\/report did not answer within 5000 ms/,
      true,
    ],
  ])('says why there is no report (%j), claiming nothing', (state, says, failed) => {
    const reply = renderNode('node-19', state, false);
    expect(text(reply)).toMatch(says);
    expect(text(reply)).not.toMatch(/visible from the host|propagation lost/);
    expect(reply.failed ?? false).toBe(failed);
  });
});

describe('/rwx node through runCommand', () => {
  const services = (index: ClusterIndex, nodeReport?: CommandServices['nodeReport']): CommandServices => ({
    clock: new ManualClock(0),
    cluster: { index: () => index },
    triage: () => {
      throw new Error('not used');
    },
    evaluate: () => ({ incidents: [], drain: () => ({ node: '', decision: 'OK', reason: '', steps: [] }) }),
    openIncidents: async () => [],
    ...(nodeReport ? { nodeReport } : {}),
  });

  it('asks the agent of a known node; an unknown node is said to be unknown', async () => {
    const index = new ClusterIndex();
    index.upsert('nodes', { metadata: { name: 'node-19' } });
    const asked: string[] = [];
    const svc = services(index, async (n) => {
      asked.push(n);
      return { kind: 'report', report: lostReport(n), at: 0 };
    });
    expect(text(await runCommand({ kind: 'node', node: 'node-19', public: false }, svc))).toContain('propagation lost');
    expect(text(await runCommand({ kind: 'node', node: 'node-99', public: false }, svc))).toMatch(/node-99/);
    expect(asked).toEqual(['node-19']);
  });

  it('without agents at all, says no agent runs there and how to enable it', async () => {
    const index = new ClusterIndex();
    index.upsert('nodes', { metadata: { name: 'node-19' } });
    const reply = await runCommand({ kind: 'node', node: 'node-19', public: false }, services(index));
    expect(text(reply)).toMatch(/no rwx agent runs on `node-19`/);
  });
});
