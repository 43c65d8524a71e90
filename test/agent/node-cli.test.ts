// `rwx node NODE` end to end: the agent pod found through the simulated API by its label and node, its report
// fetched from the pod IP and port (the simulated agent server on 127.0.0.1), rendered; and every way it can fail
// to get one, each said plainly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_LABELS, agentPodOf } from '../../src/agent/locate.js';
import { reportSchema } from '../../src/agent/report.js';
import { simulatedReport, startSimulatedAgents, type SimulatedAgents } from '../../src/agent/simulated.js';
import { rwx } from '../correlate/cli-run.js';
import { inline, testSim } from '../support/sim.js';

const NOW = Date.parse('2026-11-30T09:15:00Z');
const reports: Record<string, ReturnType<typeof simulatedReport>> = {
  'node-19': simulatedReport({
    node: 'node-19',
    now: NOW,
    driver: 'ebs.csi.aws.com',
    hiddenVolumes: ['pvc-a', 'pvc-b'],
    pluginPodUid: 'p19',
  }),
  'node-02': simulatedReport({ node: 'node-02', now: NOW, driver: 'ebs.csi.aws.com', visibleVolumes: ['pvc-c'] }),
};
let agents: SimulatedAgents;
let node19: SimulatedAgents;
beforeAll(async () => {
  agents = await startSimulatedAgents({ reportFor: (n) => reports[n] });
  node19 = await startSimulatedAgents({ reportFor: (n) => reports[n], node: 'node-19' });
});
afterAll(async () => {
  await agents.stop();
  await node19.stop();
});

const agentPod = (name: string, node: string, status: Record<string, unknown>, port?: number) => ({
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'rwx-agent',
    labels: { ...AGENT_LABELS },
    annotations: { 'sim.rwx.dev/kubelet': 'ignore' },
  },
  spec: {
    nodeName: node,
    containers: [{ name: 'agent', image: 'rwx', ports: [{ name: 'agent', containerPort: port ?? 9743 }] }],
  },
  status,
});
const running = { phase: 'Running', podIP: '127.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] };

async function cluster() {
  const { sim } = await testSim(
    inline({
      name: 'agents',
      objects: [
        ...['node-19', 'node-02', 'node-03', 'node-04'].map((name) => ({ kind: 'Node', metadata: { name } })),
        agentPod('rwx-agent-x19', 'node-19', running, node19.port),
        agentPod('rwx-agent-x03', 'node-03', { phase: 'Pending', conditions: [] }),
        // another app on node-04, with a port named agent but not the label: not an agent
        { ...agentPod('lookalike', 'node-04', running), metadata: { name: 'lookalike', namespace: 'default' } },
      ],
    }),
  );
  return sim.kubeconfigPath;
}

describe('rwx node', () => {
  it('finds the agent pod on the node and renders its report (exit 2: propagation lost)', async () => {
    const r = await rwx('node', 'node-19', '--kubeconfig', await cluster());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('SIMULATED: this report was made up by the demo, not read from a node.');
    expect(lines[1]).toMatch(
      /^node node-19: agent \S+ report at 2026-11-30T09:15:00.000Z from pod rwx-agent\/rwx-agent-x19 \(http:\/\/127\.0\.0\.1:\d+\/report\)$/,
    );
    expect(lines).toContain(
      '    (simulated agent) node-19: the mount namespace of pid 4242 csi-node-plugin holds 4 CSI mounts under /var/lib/kubelet that the host cannot see: propagation lost',
    );
  });

  it('prints the validated report with -o json', async () => {
    const r = await rwx('node', 'node-19', '--kubeconfig', await cluster(), '-o', 'json');
    expect(reportSchema.parse(JSON.parse(r.stdout))).toEqual(reports['node-19']);
  });

  // Each case: node, exit code, what stderr says.
  it.each([
    [
      'node-02',
      /^rwx node: no rwx agent runs on node node-02 \(no pod labelled app\.kubernetes\.io\/name=rwx,app\.kubernetes\.io\/component=agent there\), so there is no report from it: the node agent is opt-in: kubectl apply -k deploy\/overlays\/socket-mode-agent, add deploy\/components\/agent to your overlay, or set agent\.enabled=true in the Helm chart \(docs\/agent\.md\)\n$/,
    ],
    ['node-04', /no rwx agent runs on node node-04/], // a pod without the label is not an agent
    [
      'node-03',
      /^rwx node: the rwx agent pod rwx-agent\/rwx-agent-x03 on node node-03 is Pending with no pod IP: not serving a report yet\n$/,
    ],
    ['node-99', /^rwx node: node "node-99" not found\n$/],
    ['Node_19', /"Node_19" is not a valid node name/],
  ])('%s -> exit 1', async (node, stderr) => {
    const r = await rwx('node', node, '--kubeconfig', await cluster());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(stderr);
  });

  it('reads --agent-url without the API; a bare base URL gets /report', async () => {
    const r = await rwx('node', 'node-02', '--agent-url', agents.urlFor('node-02'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "node-02: every CSI mount under /var/lib/kubelet in the node's 12 mount namespaces is visible from the host (2 on the host)",
    );
    expect((await rwx('node', 'node-19', '--agent-url', node19.url)).code).toBe(2);
  });

  // Each case: arguments, what stderr says.
  it.each([
    [
      ['node-02', '--agent-url', 'URL'],
      /the agent at http:\S+ reports node node-19, not node-02: is --agent-url pointing at the right pod\?/,
    ],
    [['node-02', '--agent-url', 'ftp://x'], /--agent-url: ftp:\/\/x is not an http\(s\) URL/],
    [
      ['node-02', '--agent-url', 'URL', '--kubeconfig', 'k'],
      /--agent-url reads the agent directly; it cannot be combined with --kubeconfig/,
    ],
    [['node-02', '--timeout', '0s', '--agent-url', 'URL'], /--timeout: 0s is not a positive duration/],
    [['node-02', 'node-03'], /expected exactly one NODE/],
  ])('%j -> exit 1', async (args, stderr) => {
    const r = await rwx('node', ...args.map((a) => (a === 'URL' ? agents.urlFor('node-19') : a)));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(stderr);
  });
});

describe('agentPodOf', () => {
  const pod = (containers: unknown[]) => agentPodOf({ metadata: { name: 'a', namespace: 'n' }, spec: { containers } });
  // Each case: the pod's containers, the port the bot reads the report on.
  it.each([
    [[{ name: 'agent', ports: [{ name: 'agent', containerPort: 9743 }] }], 9743], // deploy/components/agent
    [[{ name: 'agent', ports: [{ name: 'http', containerPort: 9102 }] }], 9102], // a port named otherwise: the agent container's first
    [
      [
        { name: 'sidecar', ports: [{ name: 'x', containerPort: 1 }] },
        { name: 'agent', ports: [{ name: 'agent', containerPort: 9800 }] },
      ],
      9800,
    ],
    [[{ name: 'agent' }], 9743], // no port declared: the default
  ])('case %#', (containers, port) => {
    expect(pod(containers).port).toBe(port);
  });
});
