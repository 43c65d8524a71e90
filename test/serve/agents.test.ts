// The node agents as `rwx serve` meets them: agent pods in their own namespace (rwx-agent, apart from every
// workload), found among the pods the bot watches by their labels, their reports fetched over real HTTP from the
// pod IP and port, and the answers in /rwx triage, /rwx node, /rwx drain (sent signed, answered on the fake Slack's
// response_url) and the incident thread alike. One agent answers with a stale stage of an RWO volume still attached
// to its node, one with the propagation-loss proof and a stale RWX stage, one never answers, one answers garbage,
// and one node has no agent. The simulator plays the propagation-loss scenario; Redis is real.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_LABELS } from '../../src/agent/locate.js';
import { startSimulatedAgents, type SimulatedAgents } from '../../src/agent/simulated.js';
import type { StagedVolume } from '../../src/domain/node-report.js';
import type { AgentReport } from '../../src/domain/node-report.js';
import { loadScenario, type KubeObject } from '@rwx/kube-sim';
import { healthyReport, lostReport } from '../agent/report-fixtures.js';
import { blockKitProblems } from '../support/block-kit.js';
import { harness, type Harness } from './harness.js';
import { until } from '../support/until.js';

const START = Date.parse('2026-11-30T09:15:00Z');
const DAY_AGO = new Date(START - 86_400_000).toISOString();
const EBS = 'ebs.csi.aws.com';
const EFS = 'efs.csi.aws.com';
const gm = (driver: string, sha: string) => `/var/lib/kubelet/plugins/kubernetes.io/csi/${driver}/${sha}/globalmount`;
/** The agent's answers time out after this (the bot's default is 5 s). */
const TIMEOUT_MS = 1000;

const servers: { stop(): Promise<void> }[] = [];
let h: Harness;
let hangUrl = '';

/** An ORPHANED staged volume: its globalmount still mounted, no pod bind mount. */
function orphan(pv: string, driver: string, sha: string): StagedVolume {
  return { path: gm(driver, sha), layout: 'sha', driver, sha, pv, state: 'ORPHANED', podMounts: 0, podUids: [] };
}
const withStaged = (r: AgentReport, ...volumes: StagedVolume[]): AgentReport => ({
  ...r,
  stagedVolumes: { status: 'orphaned', volumes },
});

/** The one agent of `node`, serving `report` at /report (as `rwx agent` does), on a port of its own. */
async function agentServing(node: string, report: AgentReport): Promise<SimulatedAgents> {
  const a = await startSimulatedAgents({ node, reportFor: (n) => (n === node ? report : undefined) });
  servers.push(a);
  return a;
}

/** An HTTP server answering every request with `answer`, or never (`hang`). */
async function plainServer(answer: 'hang' | string): Promise<number> {
  const server: Server = createServer((_req, res) => {
    if (answer !== 'hang') res.writeHead(200, { 'Content-Type': 'application/json' }).end(answer);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  servers.push({
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return (server.address() as AddressInfo).port;
}

/** The agent pod of `node` as the DaemonSet makes it: labelled, in rwx-agent, its port named "agent". */
function agentPod(node: string, port: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `rwx-agent-${node}`,
      namespace: 'rwx-agent',
      uid: `uid-rwx-agent-${node}`,
      creationTimestamp: DAY_AGO,
      labels: { ...AGENT_LABELS },
      annotations: { 'sim.rwx.dev/kubelet': 'ignore' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'rwx-agent', uid: 'uid-ds-rwx-agent', controller: true },
      ],
    },
    spec: {
      nodeName: node,
      containers: [{ name: 'agent', image: 'rwx', ports: [{ name: 'agent', containerPort: port }] }],
    },
    status: { phase: 'Running', podIP: '127.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** A bound claim, its PV (`modes`) and one pod using it, running on node-08. */
function claimOn(name: string, driver: string, modes: string[]): KubeObject[] {
  const pv = `pvc-${name}`;
  return [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'shop', uid: `uid-pvc-${name}`, creationTimestamp: DAY_AGO },
      spec: { accessModes: modes, storageClassName: 'gp3', volumeName: pv, volumeMode: 'Filesystem' },
      status: { phase: 'Bound', accessModes: modes },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pv, uid: `uid-${pv}`, creationTimestamp: DAY_AGO },
      spec: {
        accessModes: modes,
        storageClassName: 'gp3',
        claimRef: { namespace: 'shop', name, uid: `uid-pvc-${name}` },
        csi: { driver, volumeHandle: `vol-${name}` },
      },
      status: { phase: 'Bound' },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${name}-0`,
        namespace: 'shop',
        uid: `uid-pod-${name}-0`,
        creationTimestamp: DAY_AGO,
        annotations: { 'sim.rwx.dev/kubelet': 'ignore' },
      },
      spec: {
        nodeName: 'node-08',
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }],
        containers: [{ name: 'app', image: 'app', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      },
      status: {
        phase: 'Running',
        startTime: DAY_AGO,
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: { running: { startedAt: DAY_AGO } } }],
      },
    },
  ];
}

beforeAll(async () => {
  // node-02 still stages shop/db's RWO volume and holds its VolumeAttachment; node-19 has the propagation-loss
  // proof and still stages shop/files' RWX volume; node-03's agent never answers, node-04's answers garbage.
  const node02 = await agentServing('node-02', withStaged(healthyReport('node-02'), orphan('pvc-db', EBS, '3f81')));
  const node19 = await agentServing('node-19', withStaged(lostReport('node-19'), orphan('pvc-files', EFS, '9c1d')));
  const hang = await plainServer('hang');
  hangUrl = `http://127.0.0.1:${hang}/report`;
  const garbage = await plainServer('<html>502 Bad Gateway</html>');
  const scenario = await loadScenario('scenarios/propagation-loss.yaml');
  scenario.objects.push(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'rwx-agent' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
    ...claimOn('db', EBS, ['ReadWriteOnce']),
    ...claimOn('files', EFS, ['ReadWriteMany']),
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'csi-db-02', uid: 'uid-csi-db-02', creationTimestamp: DAY_AGO },
      spec: { attacher: EBS, nodeName: 'node-02', source: { persistentVolumeName: 'pvc-db' } },
      status: { attached: true },
    },
    agentPod('node-02', node02.port),
    agentPod('node-19', node19.port),
    agentPod('node-03', hang),
    agentPod('node-04', garbage),
  );
  h = await harness(scenario, undefined, { RWX_ALLOWED_CHANNELS: 'C0INCIDENT' });
  await h.start({ proof: { timeoutMs: TIMEOUT_MS } }, { slash: true });
  // The rollout incident asks node-19's agent (the only incident node with one); the evaluation after its answer
  // carries the proof and the stage check before the root is due.
  await until(() => h.serve!.proofs?.stateOf('node-19').kind === 'report', "node-19's report");
  await h.serve!.tick();
  await h.advance(1_000);
  await until(() => /propagation lost/.test(JSON.stringify(h.slack.roots()[0]?.blocks)), 'the proof in the root');
}, 60_000);

afterAll(async () => {
  await h?.close();
  for (const s of servers.splice(0)) await s.stop();
});

describe('agents found in their own namespace, asked over HTTP', () => {
  it('the thread: proof from node-19 in the root, and the stage a drain does not clear in the evidence', async () => {
    const root = h.slack.roots()[0]!;
    const rootText = JSON.stringify(root.blocks);
    // The root says the proof in one line: node-19's agent, the only one of the incident's nodes.
    expect(rootText).toContain('*Proof:* propagation lost on 1 of 1 node checked');
    await until(() => h.slack.evidenceShown(root.ts), 'the evidence replies');
    const evidence = JSON.stringify(h.slack.replies(root.ts).map((r) => r.blocks));
    expect(evidence).toContain('node-19: staged with no pod using it (a drain does not clear it)');
    expect(evidence).toContain(
      `node-19 still stages volume pvc-files (claim shop/files, ReadWriteMany, ${EFS}) at ${gm(EFS, '9c1d')} with no pod on node-19 using it: draining node-19 does not unstage it. It stops no pod on another node, but it is a leak`,
    );
    expect(evidence).toContain('Check the node again with rwx node node-19: it no longer lists the stage as ORPHANED.');
    const posts = h.slack.calls.filter((c) => c.method === 'chat.postMessage' || c.method === 'chat.update');
    expect(posts.flatMap((c, i) => blockKitProblems(c.args, `${c.method} #${i}`))).toEqual([]);
  });

  it('/rwx triage asks every agent: a stale stage is evidence; a timeout and garbage are said, not guessed', async () => {
    const text = await h.command('triage');
    expect(text).toContain('*Proof from the nodes* (2 of 4 node agents answered)');
    expect(text).toContain(
      `node-03: proof unavailable: the agent at ${hangUrl} did not answer within ${TIMEOUT_MS} ms`,
    );
    expect(text).toMatch(/node-04: proof unavailable: the answer from http:\/\/127\.0\.0\.1:\d+\/report is not JSON/);
    // shop/files (ReadWriteMany) runs on node-08; node-19's agent proves it still staged there.
    expect(text).toContain('*shop/files* — `STALE_ATTACHMENT`');
    expect(text).toContain(`Staged with no pod bind mount (node agents): \`${gm(EFS, '9c1d')}\` on node-19`);
  });

  it('/rwx node finds the agent in rwx-agent and renders its report; a silent agent is "proof unavailable"', async () => {
    const report = await h.command('node node-02');
    expect(report).toContain('Node report: node-02');
    expect(report).toContain(`node-02: globalmount of pvc-db (${EBS}) still mounted, 0 pod references`);
    expect(await h.command('node node-03')).toContain(
      `proof unavailable: the agent at ${hangUrl} did not answer within ${TIMEOUT_MS} ms`,
    );
  });

  it('/rwx drain: CAUTION for the RWO stage that holds the attachment; elsewhere the unchecked stage is said', async () => {
    const db = await h.command('drain node-02');
    expect(db).toContain('*CAUTION*');
    expect(db).toContain(
      `node-02 still stages volume pvc-db (claim shop/db, ReadWriteOnce, ${EBS}) at ${gm(EBS, '3f81')} with no pod on node-02 using it: draining node-02 does not unstage it, and it keeps the volume attached to node-02 (VolumeAttachment csi-db-02): pods of shop/db on other nodes cannot attach it until it is cleared.`,
    );
    expect(db).toContain('Restart the node plugin pod on node-02 first');
    // No agent on node-05: OK from the API, and the stage check was not possible (not "there is none").
    const none = await h.command('drain node-05');
    expect(none).toContain('*OK*');
    expect(none).toContain(
      'Stale stages not checked on node-05: no rwx agent runs on node-05; the node agent is opt-in',
    );
    // node-04's agent answers garbage: the same, with the reason.
    const garbage = await h.command('drain node-04');
    expect(garbage).toContain('*OK*');
    expect(garbage).toMatch(
      /Stale stages not checked on node-04: the rwx agent on node-04 could not be read: the answer/,
    );
  });
});
