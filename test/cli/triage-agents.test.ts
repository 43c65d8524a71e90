// `rwx triage` and `rwx drain-check` with node agents, end to end: the simulator over HTTP lists the agent pod (by
// label), its report is fetched from the pod IP and port (a simulated agent server on 127.0.0.1, as `rwx node`
// does), and the orphaned globalmount it reports becomes the claim's STALE_ATTACHMENT evidence and a note in the
// node's drain advice. Without an agent, and from a snapshot, each says the check was not possible and why.
// A claim UNPUBLISH_STUCK (scenarios/terminal-phase-terminating.yaml) has what holds its pod's mount as evidence:
// the agent's holder, or "not visible from the API" (the kubelet logs a failed TearDown only: operation_generator.go
// GenerateUnmountVolumeFunc records no event on error), in the table and in the JSON.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_LABELS } from '../../src/agent/locate.js';
import { startSimulatedAgents, type SimulatedAgents } from '../../src/agent/simulated.js';
import { main } from '../../src/cli/main.js';
import { SNAPSHOT_NOT_ASKED } from '../../src/cli/node-reports.js';
import type { CliIo } from '../../src/cli/io.js';
import { ManualClock } from '../../src/domain/clock.js';
import { KIND_KEYS } from '../../src/domain/kinds.js';
import { AGENT_ENABLE_HINT } from '../../src/domain/proof.js';
import type { TriageReport } from '../../src/triage/types.js';
import { parseScenario, startSimulator, type Simulator } from '@rwx/kube-sim';
import { healthyReport } from '../agent/report-fixtures.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { demoReport } from '../../src/serve/demo-agents.js';
import { scenarioPath, simSnapshot, testSim } from '../support/sim.js';
import { DRIVER, NOW, baseCluster, healthyClaim } from '../triage/fixtures.js';
import type { DrainAdvice } from '../../src/domain/incident.js';
import { staleStageSteps, stagesNotCheckedText } from '../../src/advise/stale-stage.js';

const NOW_ISO = new Date(NOW).toISOString();

const GLOBALMOUNT = `/var/lib/kubelet/plugins/kubernetes.io/csi/${DRIVER}/9c1d/globalmount`;

let sim: Simulator | undefined;
let agent: SimulatedAgents | undefined;
afterEach(async () => {
  await sim?.stop();
  await agent?.stop();
  sim = agent = undefined;
});

async function rwx(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([]),
    env: { HOME: tmpdir() },
    clock: new ManualClock(NOW),
  };
  return { code: await main(argv, io), stdout, stderr };
}

/** shop/data runs on node-01; with `agentPort`, an agent pod on node-02 answers there. */
async function cluster(agentPort?: number): Promise<string> {
  const s = baseCluster();
  healthyClaim(s, 'shop', 'data');
  const agentPod = {
    kind: 'Pod',
    metadata: {
      name: 'rwx-agent-x02',
      namespace: 'rwx-agent',
      labels: { ...AGENT_LABELS },
      annotations: { 'sim.rwx.dev/kubelet': 'ignore' },
    },
    spec: {
      nodeName: 'node-02',
      containers: [{ name: 'agent', image: 'rwx', ports: [{ name: 'agent', containerPort: agentPort }] }],
    },
    status: { phase: 'Running', podIP: '127.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] },
  };
  const objects = [
    { kind: 'Namespace', metadata: { name: 'shop' } },
    { kind: 'Namespace', metadata: { name: 'rwx-agent' } },
    ...KIND_KEYS.flatMap((k) => s[k] as object[]),
    ...(agentPort ? [agentPod] : []),
  ];
  sim = await startSimulator({
    scenario: parseScenario({ name: 'triage-agents', objects }),
    clock: new ManualClock(NOW),
  });
  return sim.kubeconfigPath;
}

/** The agent on node-02: shop/data's globalmount still mounted there, with no pod bind mount. */
async function orphanAgent(): Promise<SimulatedAgents> {
  return startSimulatedAgents({
    node: 'node-02',
    reportFor: (node) =>
      healthyReport(node, {
        stagedVolumes: {
          status: 'ok',
          volumes: [
            {
              path: GLOBALMOUNT,
              layout: 'sha',
              driver: DRIVER,
              sha: '9c1d',
              pv: 'pvc-data',
              state: 'ORPHANED',
              podMounts: 0,
              podUids: [],
            },
          ],
        },
      }),
  });
}

describe('rwx triage with node agents', () => {
  it("asks the agent on node-02, whose orphaned globalmount of the claim's volume is STALE_ATTACHMENT evidence", async () => {
    agent = await orphanAgent();
    const kubeconfig = await cluster(agent.port);
    const table = await rwx(['triage', '--kubeconfig', kubeconfig]);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(2);
    expect(table.stdout).toContain('NODE PROOF (1 of 1 node agents answered)');
    expect(table.stdout).toMatch(
      new RegExp(
        `\\[STALE_ATTACHMENT\\]\\n    shop/data +node-02: globalmount of pvc-data \\(${DRIVER}\\) still mounted, 0 pod references`,
      ),
    );
    const json = JSON.parse((await rwx(['triage', '--kubeconfig', kubeconfig, '-o', 'json'])).stdout) as TriageReport;
    expect(json.claims[0]?.evidence.stages.map((s) => `${s.node} ${s.path}`)).toEqual([`node-02 ${GLOBALMOUNT}`]);
  });

  it('says the proof is unavailable and how to enable it when no agent runs, and why from a snapshot', async () => {
    const live = await rwx(['triage', '--kubeconfig', await cluster()]);
    expect(live.code).toBe(0);
    expect(live.stdout).toContain(
      `NODE PROOF\n    proof unavailable: no rwx agent runs on any node; ${AGENT_ENABLE_HINT}\n`,
    );
    expect(live.stdout).toContain('[OK]\n    shop/data');
    const dir = await mkdtemp(join(tmpdir(), 'rwx-triage-agents-'));
    try {
      await writeFile(join(dir, 'snap.json'), JSON.stringify({ kind: 'PodList', items: [] }));
      const offline = await rwx(['triage', '--snapshot', join(dir, 'snap.json')]);
      expect(offline.stdout).toContain(`NODE PROOF\n    proof unavailable: ${SNAPSHOT_NOT_ASKED}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** The agent pod of `node` answering at 127.0.0.1:`port` (the simulated kubelet leaves it as it is). */
const agentPod = (node: string, port: number) => ({
  kind: 'Pod',
  metadata: {
    name: `rwx-agent-${node}`,
    namespace: 'rwx-agent',
    labels: { ...AGENT_LABELS },
    annotations: { 'sim.rwx.dev/kubelet': 'ignore' },
  },
  spec: {
    nodeName: node,
    containers: [{ name: 'agent', image: 'rwx', ports: [{ name: 'agent', containerPort: port }] }],
  },
  status: { phase: 'Running', podIP: '127.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] },
});

describe('rwx triage: what holds the mount of an UNPUBLISH_STUCK pod', () => {
  /** terminal-phase-terminating (batch/reports, its pod report-builder-0 on node-2); with its demo agent on node-2. */
  async function stuck(withAgent: boolean) {
    const { sim: s } = await testSim(scenarioPath('terminal-phase-terminating'));
    const index = ClusterIndex.fromSnapshot(simSnapshot(s));
    const now = s.now();
    if (withAgent) {
      agent = await startSimulatedAgents({ node: 'node-2', reportFor: (n) => demoReport(index, {}, n, now) });
      s.apply({ add: [{ kind: 'Namespace', metadata: { name: 'rwx-agent' } }, agentPod('node-2', agent.port)] });
    }
    const uid = index.get('pods', 'batch/report-builder-0')?.metadata?.uid ?? '?';
    const run = async (more: string[] = []) => {
      let out = '';
      let err = '';
      const io: CliIo = {
        stdout: { write: (x: string) => (out += x) },
        stderr: { write: (x: string) => (err += x) },
        stdin: Readable.from([]),
        env: { HOME: tmpdir() },
        clock: new ManualClock(now),
      };
      const code = await main(['triage', '--kubeconfig', s.kubeconfigPath, '-n', 'batch', ...more], io);
      return { code, stdout: out, stderr: err };
    };
    return { uid, run };
  }
  const mount = (uid: string) => `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~csi/pvc-reports-7d1e/mount`;

  it("names the agent's holder under the claim, and in evidence.holds", async () => {
    const { uid, run } = await stuck(true);
    const line = `(simulated agent) tar (pid 31337, on the host) holds ${mount(uid)}`;
    const table = await run();
    expect(table.stderr).toBe('');
    expect(table.code).toBe(2);
    expect(table.stdout).toMatch(/\[UNPUBLISH_STUCK\]\n {4}batch\/reports /);
    expect(table.stdout).toContain(`\n        mount  ${line}\n`);
    const json = JSON.parse((await run(['-o', 'json'])).stdout) as TriageReport;
    expect(json.claims[0]?.evidence.holds).toEqual([
      { pod: 'batch/report-builder-0', node: 'node-2', text: line, held: true },
    ]);
  });

  it('without an agent: not visible from the API, with the read-only commands for node-2', async () => {
    const { uid, run } = await stuck(false);
    const table = await run();
    expect(table.stdout).toContain(
      `\n        mount  What holds the volume mount of batch/report-builder-0 on node-2 is not visible from the API (no rwx agent runs on node-2)`,
    );
    expect(table.stdout).toContain(`journalctl -u kubelet | grep ${uid}`);
    const json = JSON.parse((await run(['-o', 'json'])).stdout) as TriageReport;
    expect(json.claims[0]?.evidence.holds.map((h) => h.held)).toEqual([false]);
  });
});

describe('rwx drain-check with node agents', () => {
  it("asks the node's own agent: the stale RWX stage is a note under OK with its recovery steps", async () => {
    agent = await orphanAgent();
    const kubeconfig = await cluster(agent.port);
    const r = await rwx(['drain-check', 'node-02', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const advice = JSON.parse(r.stdout) as DrainAdvice;
    expect(advice.decision).toBe('OK');
    expect(advice.stages).toMatchObject({
      checked: true,
      stale: [{ node: 'node-02', volume: 'pvc-data', holds: 'leak' }],
    });
    expect(advice.steps).toContain(staleStageSteps('node-02', [GLOBALMOUNT])[3]);
  });

  it('says the stage check was not possible on a node without an agent, and from a snapshot', async () => {
    agent = await orphanAgent();
    const kubeconfig = await cluster(agent.port);
    const live = await rwx(['drain-check', 'node-01', '--kubeconfig', kubeconfig]);
    expect(live.code).toBe(0);
    expect(live.stdout).toContain(
      stagesNotCheckedText('node-01', `no rwx agent runs on node-01; ${AGENT_ENABLE_HINT}`),
    );
    const dir = await mkdtemp(join(tmpdir(), 'rwx-drain-agents-'));
    try {
      const s = baseCluster();
      healthyClaim(s, 'shop', 'data');
      await writeFile(
        join(dir, 'snap.json'),
        JSON.stringify({ kind: 'List', items: KIND_KEYS.flatMap((k) => s[k] as object[]) }),
      );
      const offline = await rwx(['drain-check', 'node-02', '--snapshot', join(dir, 'snap.json'), '--now', NOW_ISO]);
      // UNKNOWN: the file holds no DaemonSets or VolumeAttachments; not BLOCK, so it says what was not checked too.
      expect(offline.code).toBe(5);
      expect(offline.stdout).toContain(stagesNotCheckedText('node-02', SNAPSHOT_NOT_ASKED));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
