// deploy/components/agent and the overlay that includes it: the node agent as a DaemonSet with hostPID, the
// kubelet dir read-only (HostToContainer), SYS_PTRACE as its one capability, no token and no RBAC, reachable only
// from the bot's pods; the label and port the bot's code looks for. Plain files everywhere, rendered where a
// recent kubectl is installed (always in CI).
import { describe, expect, it } from 'vitest';
import { AGENT_LABELS, AGENT_PORT_NAME } from '../../src/agent/locate.js';
import { AGENT_PORT } from '../../src/agent/server.js';
import {
  AGENT_NAMESPACE,
  agentComponentProblems,
  agentNetworkPolicyProblems,
  podSpec,
  rbacProblems,
} from './checks.js';
import { kubectlKustomizeVersion, ofKind, plainObjects, render, type K8sObject } from './manifests.js';

const renderable = kubectlKustomizeVersion() !== undefined || process.env.CI === 'true';
const WANT = { labels: AGENT_LABELS, portName: AGENT_PORT_NAME, port: AGENT_PORT };

describe('deploy/components/agent plain files', () => {
  const objs = plainObjects('components/agent');
  it('the DaemonSet is locked down as the agent must be, with the label and port the code uses', () => {
    expect(agentComponentProblems(objs, WANT)).toEqual([]);
  });
  it('the NetworkPolicy admits only the bot on the agent port and denies all egress', () => {
    expect(agentNetworkPolicyProblems(objs, AGENT_LABELS, AGENT_PORT_NAME)).toEqual([]);
  });
  it('brings no RBAC and no Secret', () => {
    expect(objs.filter((o) => /Role|Secret/.test(o.kind))).toEqual([]);
  });
});

describe.runIf(renderable)('deploy/overlays/socket-mode-agent rendered with kubectl kustomize', () => {
  let cached: K8sObject[] | undefined;
  const objs = () => (cached ??= render('overlays/socket-mode-agent'));
  const daemonSet = () => ofKind(objs(), 'DaemonSet')[0] as K8sObject;

  it('has the agent, locked down, and its NetworkPolicy', () => {
    expect(agentComponentProblems(objs(), WANT)).toEqual([]);
    expect(agentNetworkPolicyProblems(objs(), AGENT_LABELS, AGENT_PORT_NAME)).toEqual([]);
  });
  it("keeps the bot's RBAC exactly as it is: the agent adds none", () => {
    expect(rbacProblems(objs())).toEqual([]);
    expect(ofKind(objs(), 'ClusterRoleBinding').map((b) => b.metadata.name)).toEqual(['rwx-reader']);
    expect(objs().filter((o) => ['Role', 'RoleBinding', 'Secret'].includes(o.kind))).toEqual([]);
  });
  it('puts the agent in its own namespace (privileged Pod Security level) and the bot in rwx (restricted)', () => {
    const ns = new Map(ofKind(objs(), 'Namespace').map((n) => [n.metadata.name, n.metadata.labels ?? {}]));
    expect(ns.get(AGENT_NAMESPACE)?.['pod-security.kubernetes.io/enforce']).toBe('privileged');
    expect(ns.get('rwx')?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const agentObjs = objs().filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'agent');
    expect(agentObjs.map((o) => `${o.kind}/${o.metadata.namespace ?? '-'}`).sort()).toEqual([
      'DaemonSet/rwx-agent',
      'Namespace/-',
      'NetworkPolicy/rwx-agent',
      'ServiceAccount/rwx-agent',
    ]);
  });
  it('runs the same image as the bot, pointed at the kubelet dir it mounts', () => {
    const bot = podSpec(ofKind(objs(), 'Deployment')[0] as K8sObject).containers[0] as { image?: string };
    const spec = podSpec(daemonSet()) as unknown as {
      containers: { image?: string; args?: string[]; volumeMounts?: { name: string; mountPath: string }[] }[];
      volumes: { name: string; hostPath?: { path: string } }[];
    };
    const c = spec.containers[0];
    expect(c?.image).toBe(bot.image);
    const dir = c?.args?.[(c.args.indexOf('--kubelet-dir') ?? -2) + 1];
    const mount = c?.volumeMounts?.find((m) => m.mountPath === dir);
    expect(spec.volumes.find((v) => v.name === mount?.name)?.hostPath?.path).toBe(dir);
    expect(c?.args?.slice(0, 3)).toEqual(['agent', '--port', String(AGENT_PORT)]);
  });
});

describe('agentProblems and agentNetworkPolicyProblems flag the faults they exist for', () => {
  const objs = () => structuredClone(plainObjects('components/agent'));
  const ds = (o: K8sObject[]) => ofKind(o, 'DaemonSet')[0] as K8sObject;
  const container = (o: K8sObject[]) =>
    podSpec(ds(o)).containers[0] as unknown as {
      securityContext: { capabilities: { add: string[] }; readOnlyRootFilesystem?: boolean };
      volumeMounts: { readOnly?: boolean; mountPropagation?: string }[];
      env: unknown[];
    };
  // Each case: a change to the component, the problem expected.
  it.each([
    [
      (o: K8sObject[]) => container(o).securityContext.capabilities.add.push('SYS_ADMIN'),
      'adds capabilities [SYS_ADMIN,SYS_PTRACE], not [SYS_PTRACE]',
    ],
    [
      (o: K8sObject[]) => delete container(o).securityContext.readOnlyRootFilesystem,
      'readOnlyRootFilesystem is not true',
    ],
    [
      (o: K8sObject[]) => Object.assign(container(o).volumeMounts[0] ?? {}, { readOnly: false }),
      'hostPath kubelet-dir is not mounted read-only',
    ],
    [
      (o: K8sObject[]) => Object.assign(container(o).volumeMounts[0] ?? {}, { mountPropagation: 'Bidirectional' }),
      'propagation Bidirectional, not HostToContainer',
    ],
    [
      (o: K8sObject[]) =>
        ((podSpec(ds(o)) as { automountServiceAccountToken?: boolean }).automountServiceAccountToken = true),
      'automountServiceAccountToken is not false',
    ],
    [
      (o: K8sObject[]) => ((podSpec(ds(o)) as { hostNetwork?: boolean }).hostNetwork = true),
      'uses the host network or IPC namespace',
    ],
    [
      (o: K8sObject[]) => (podSpec(ds(o)).volumes ?? []).push({ name: 'root', hostPath: { path: '/' } }),
      'hostPath / is not the kubelet dir',
    ],
    [
      (o: K8sObject[]) => container(o).env.push({ name: 'T', valueFrom: { secretKeyRef: { name: 's', key: 'T' } } }),
      'container agent: reads a Secret',
    ],
    [
      (o: K8sObject[]) => ((podSpec(ds(o)) as { tolerations?: unknown[] }).tolerations = []),
      'does not tolerate every taint',
    ],
    [
      (o: K8sObject[]) =>
        o.push({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'b' },
          subjects: [{ kind: 'ServiceAccount', name: 'rwx-agent', namespace: 'rwx-agent' }],
        }),
      "ClusterRoleBinding b grants the agent's service account RBAC",
    ],
  ])('case %#', (mutate, problem) => {
    const o = objs();
    mutate(o);
    expect(agentComponentProblems(o, WANT).join('\n')).toContain(problem);
  });
  it('flags a policy that lets anyone in or the agent out', () => {
    const o = objs();
    const np = ofKind(o, 'NetworkPolicy')[0]?.spec as { ingress: { from: unknown[] }[]; egress: unknown[] };
    np.ingress[0]?.from.push({ namespaceSelector: {} });
    np.egress.push({});
    expect(agentNetworkPolicyProblems(o, AGENT_LABELS, AGENT_PORT_NAME)).toEqual([
      'the agent needs no egress, yet some is allowed',
      'ingress from {"namespaceSelector":{}} is not only the bot\'s pods',
    ]);
  });
});
