// Asking the node agents, for real over HTTP: the simulated agent server (its reports are the agent's schema), a
// server that never answers, and a port nothing listens on. Time (the TTL) moves by a ManualClock; the tests wait
// for answers to arrive, never for time to pass.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchReport } from '../../src/agent/client.js';
import { startSimulatedAgents, type SimulatedAgents } from '../../src/agent/simulated.js';
import { ManualClock } from '../../src/domain/clock.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { Incident } from '../../src/domain/incident.js';
import { emptyHistory } from '../../src/domain/history.js';
import type { Pod } from '../../src/domain/objects.js';
import type { AgentTarget } from '../../src/agent/locate.js';
import { NodeProofs, agentsInIndex } from '../../src/serve/proof.js';
import { AskedNodes } from '../../src/pipeline/agents.js';
import { resolutionFacts } from '../../src/pipeline/resolution.js';
import { buildProof } from '../../src/correlate/proof.js';
import { healthyReport, lostReport } from '../agent/report-fixtures.js';
import { rolloutIncident } from '../render/incident-fixtures.js';
import { until } from '../support/until.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

/** Simulated agents answering lostReport for node-19 and healthyReport for the rest, counting requests. */
async function agents(broken = new Set(['node-19'])): Promise<SimulatedAgents & { asked: string[] }> {
  const asked: string[] = [];
  const a = await startSimulatedAgents({
    reportFor: (node) => {
      asked.push(node);
      return broken.has(node) ? lostReport(node) : healthyReport(node);
    },
  });
  stops.push(() => a.stop());
  return Object.assign(a, { asked });
}

/** A server that accepts requests and never answers, recording how many are open at once. */
async function silent(): Promise<{ url: string; open: () => number; most: () => number }> {
  let open = 0;
  let most = 0;
  const held: ServerResponse[] = [];
  const server: Server = createServer((_req, res) => {
    open++;
    most = Math.max(most, open);
    held.push(res);
    res.on('close', () => open--);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  stops.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/report`, open: () => open, most: () => most };
}

describe('NodeProofs', () => {
  it('is pending until the answer arrives, then holds the report and asks for a new evaluation', async () => {
    const a = await agents();
    let updates = 0;
    const proofs = new NodeProofs({ locate: (n) => ({ kind: 'agent', url: a.urlFor(n) }), onUpdate: () => updates++ });
    expect(proofs.stateOf('node-19').kind).toBe('pending');
    proofs.want(['node-19']);
    await until(() => proofs.stateOf('node-19').kind === 'report', 'the report');
    const s = proofs.stateOf('node-19');
    expect(s.kind === 'report' && s.report.propagation.status).toBe('lost');
    expect(updates).toBe(1);
  });

  it('asks again only once the TTL has passed, and refresh() asks now whatever the cache holds', async () => {
    const a = await agents();
    const clock = new ManualClock(0);
    const proofs = new NodeProofs({ locate: (n) => ({ kind: 'agent', url: a.urlFor(n) }), clock, ttlMs: 60_000 });
    proofs.want(['node-02']);
    await until(() => proofs.stateOf('node-02').kind === 'report', 'the first report');
    proofs.want(['node-02']);
    clock.advance(59_000);
    proofs.want(['node-02']);
    expect(a.asked).toEqual(['node-02']);
    clock.advance(1_000);
    proofs.want(['node-02']);
    await until(() => a.asked.length === 2, 'the second request');
    await proofs.refresh(['node-02']);
    expect(a.asked).toHaveLength(3);
  });

  it('asks a node whose report is stale (IncidentProof.askAgain) again at once, within the TTL', async () => {
    const a = await agents();
    const clock = new ManualClock(0);
    const proofs = new NodeProofs({ locate: (n) => ({ kind: 'agent', url: a.urlFor(n) }), clock, ttlMs: 60_000 });
    proofs.want(['node-02']);
    await until(() => proofs.stateOf('node-02').kind === 'report', 'the first report');
    clock.advance(5_000);
    proofs.want(['node-02'], ['node-02']);
    await until(() => a.asked.length === 2, 'the request for the stale node');
    expect(a.asked).toEqual(['node-02', 'node-02']);
  });

  it('keeps at most `concurrency` requests in flight, and a request that times out is "unavailable", not a claim', async () => {
    const s = await silent();
    const nodes = Array.from({ length: 6 }, (_, i) => `node-${i}`);
    let inFlight = 0;
    let most = 0;
    const counted: typeof fetchReport = async (url, o) => {
      most = Math.max(most, ++inFlight);
      try {
        return await fetchReport(url, o);
      } finally {
        inFlight--;
      }
    };
    const proofs = new NodeProofs({
      locate: () => ({ kind: 'agent', url: s.url }),
      fetch: counted,
      concurrency: 2,
      timeoutMs: 200,
    });
    proofs.want(nodes);
    await until(() => nodes.every((n) => proofs.stateOf(n).kind === 'unavailable'), 'every request to time out');
    expect(most).toBe(2);
    expect(s.most()).toBeGreaterThanOrEqual(2);
    const st = proofs.stateOf('node-0');
    expect(st.kind === 'unavailable' && st.reason).toMatch(/did not answer within 200 ms/);
  });

  it('says why when nothing listens, when the agent names another node, and when there is no agent', async () => {
    const a = await agents();
    const targets: Record<string, AgentTarget> = {
      refused: { kind: 'agent', url: 'http://127.0.0.1:1/report' },
      wrong: { kind: 'agent', url: a.urlFor('node-07') },
      none: { kind: 'no-agent' },
    };
    const proofs = new NodeProofs({ locate: (n) => targets[n]! });
    await proofs.refresh(['refused', 'wrong', 'none']);
    const reason = (n: string) => {
      const st = proofs.stateOf(n);
      return st.kind === 'unavailable' ? st.reason : st.kind;
    };
    expect(reason('refused')).toMatch(/cannot reach the agent at http:\/\/127\.0\.0\.1:1\/report/);
    expect(reason('wrong')).toMatch(/reports node node-07/);
    expect(reason('none')).toBe('no-agent');
  });
});

describe('agentsInIndex', () => {
  const agentPod = (over: Partial<Pod['status']> = {}): Pod => ({
    metadata: {
      namespace: 'rwx-agent',
      name: 'rwx-agent-x1',
      uid: 'a1',
      labels: { 'app.kubernetes.io/name': 'rwx', 'app.kubernetes.io/component': 'agent' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'rwx-agent', uid: 'ds', controller: true }],
    },
    spec: { nodeName: 'node-19', containers: [{ name: 'agent', ports: [{ name: 'agent', containerPort: 9743 }] }] },
    status: { phase: 'Running', podIP: '10.1.2.3', conditions: [{ type: 'Ready', status: 'True' }], ...over },
  });

  it('finds the agent among the watched pods by its labels, and its port by name', () => {
    const index = new ClusterIndex();
    index.upsert('pods', agentPod());
    index.upsert('pods', { metadata: { namespace: 'x', name: 'other', labels: {} }, spec: { nodeName: 'node-19' } });
    const locate = agentsInIndex(() => index);
    expect(locate('node-19')).toEqual({
      kind: 'agent',
      url: 'http://10.1.2.3:9743/report',
      pod: 'rwx-agent/rwx-agent-x1',
    });
    expect(locate('node-20')).toEqual({ kind: 'no-agent' });
  });

  it('does not ask an agent pod that is not serving, and says so', () => {
    const index = new ClusterIndex();
    index.upsert('pods', agentPod({ phase: 'Pending', podIP: null }));
    const t = agentsInIndex(() => index)('node-19');
    expect(t).toEqual({
      kind: 'not-serving',
      reason:
        'the rwx agent pod rwx-agent/rwx-agent-x1 on node node-19 is Pending with no pod IP: not serving a report yet',
    });
  });
});

describe('AskedNodes (the agents the pipeline keeps asking)', () => {
  it("after a restart, asks again the nodes of the records' open incidents when they are not reported any more", async () => {
    const a = await agents(new Set());
    const proofs = new NodeProofs({ locate: (n) => ({ kind: 'agent', url: a.urlFor(n) }) });
    let reads = 0;
    const openNodes = async () => {
      reads++;
      return new Map([['rollout/kube-system/ebs-csi-node@2', ['node-19', 'node-23']]]);
    };
    const asked = new AskedNodes(proofs, openNodes);
    await asked.before([]); // the first evaluation of the new process: the incident cleared while it was down
    asked.after([]);
    expect([...a.asked].sort()).toEqual(['node-19', 'node-23']);
    expect(proofs.stateOf('node-19').kind).toBe('report');
    await asked.before([]); // asked once: the records are read at the first submission only
    asked.after([]);
    expect(reads).toBe(1);
    expect(a.asked).toHaveLength(2);
  });

  it("asks an incident's proof nodes, and when it clears asks them again before the resolution reads them", async () => {
    const broken = new Set(['node-19']);
    const a = await agents(broken);
    const proofs = new NodeProofs({ locate: (n) => ({ kind: 'agent', url: a.urlFor(n) }) });
    const asked = new AskedNodes(proofs);
    const nodes = ['node-19', 'node-23'];
    const incident: Incident = { ...rolloutIncident(), proof: buildProof(nodes, (n) => proofs.stateOf(n)) };
    await asked.before([incident]);
    asked.after([]);
    await until(() => nodes.every((x) => proofs.stateOf(x).kind === 'report'), 'every report');
    const lost = buildProof(nodes, (n) => proofs.stateOf(n)).findings.filter((f) => f.kind === 'PROPAGATION_LOST');
    expect(lost.map((f) => f.kind === 'PROPAGATION_LOST' && f.node)).toEqual(['node-19']);

    broken.clear(); // the rollback: the mounts are visible again
    const before = a.asked.length;
    await asked.before([]);
    asked.after([]);
    expect(a.asked.length - before).toBe(nodes.length);
    const facts = resolutionFacts(new ClusterIndex(), proofs)({ ...emptyHistory(), nodes }, 3);
    expect(facts?.proof?.findings.every((f) => f.kind === 'PROPAGATION_VISIBLE')).toBe(true);
  });
});
