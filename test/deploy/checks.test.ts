// The deploy checks themselves: each must flag the fault it exists for, or the passing tests prove nothing.
import { describe, expect, it } from 'vitest';
import { agentProblems, envProblems, expectedGrants, probeProblems, rbacProblems, securityProblems } from './checks.js';
import type { K8sObject } from './manifests.js';

const role = (rules: unknown[]): K8sObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'r' },
  rules,
});
const good = () => {
  const byGroup = new Map<string, Set<string>>();
  for (const g of expectedGrants()) {
    const [gr, verb] = g.split(' ');
    if (verb !== 'get') continue;
    const [group, res] = (gr ?? '').split('/');
    byGroup.set(group ?? '', (byGroup.get(group ?? '') ?? new Set()).add(res ?? ''));
  }
  return [...byGroup]
    .map(([g, rs]) => ({ apiGroups: [g], resources: [...rs], verbs: ['get', 'list', 'watch'] }))
    .concat([{ apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'], verbs: ['create'] }]);
};

describe('rbacProblems', () => {
  it('accepts exactly the expected grants', () => {
    expect(rbacProblems([role(good())])).toEqual([]);
  });
  // Each case: an extra rule, the problem expected among those reported.
  it.each([
    [{ apiGroups: [''], resources: ['pods'], verbs: ['delete'] }, 'r: write verb /pods delete'], // write verb
    [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }, 'r: grants /secrets get on Secrets'], // secrets
    [{ apiGroups: ['apps'], resources: ['*'], verbs: ['get'] }, 'r: wildcard grant apps/* get'], // wildcard
    [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
      'grant /configmaps list is not needed by src/domain/kinds.ts',
    ], // extra read
    [
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      'r: write verb authorization.k8s.io/subjectaccessreviews create',
    ],
  ])('flags %j', (rule, problem) => {
    expect(rbacProblems([role([...good(), rule])])).toContain(problem);
  });
  it('flags a kind the code reads but the role does not grant', () => {
    expect(rbacProblems([role(good().slice(1))])).toContain('missing grant /pods get (src/domain/kinds.ts reads it)');
  });
});

const container = (over: Record<string, unknown> = {}) => ({
  name: 'c',
  securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  resources: { requests: { cpu: '1', memory: '1' }, limits: { cpu: '1', memory: '1' } },
  livenessProbe: { httpGet: { path: '/healthz' } },
  readinessProbe: { httpGet: { path: '/readyz' } },
  ...over,
});
const deploy = (
  c: unknown,
  pod: Record<string, unknown> = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
): K8sObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: { template: { spec: { securityContext: pod, containers: [c] } } },
});

describe('securityProblems and probeProblems', () => {
  it('accepts a locked-down pod', () => {
    expect(securityProblems(deploy(container()))).toEqual([]);
    expect(probeProblems(deploy(container()))).toEqual([]);
  });
  // Each case: the faulty container or pod, the problem expected.
  it.each([
    [
      container({ securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }),
      undefined,
      'Deployment d container c: readOnlyRootFilesystem is not true',
    ],
    [
      container({ securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false } }),
      undefined,
      'Deployment d container c: capabilities.drop lacks ALL',
    ],
    [
      container({ resources: { requests: { cpu: '1', memory: '1' } } }),
      undefined,
      'Deployment d container c: no cpu limit',
    ],
    [container(), { runAsNonRoot: true }, 'Deployment d container c: seccompProfile is not RuntimeDefault'],
    [container(), { seccompProfile: { type: 'RuntimeDefault' } }, 'Deployment d container c: runAsNonRoot is not true'],
  ] as [unknown, Record<string, unknown> | undefined, string][])('flags case %#', (c, pod, problem) => {
    expect(securityProblems(pod ? deploy(c, pod) : deploy(c))).toContain(problem);
  });
  it('flags wrong probe paths', () => {
    expect(probeProblems(deploy(container({ readinessProbe: { httpGet: { path: '/healthz' } } })))).toEqual([
      'readinessProbe is not GET /readyz',
    ]);
  });
});

describe('envProblems', () => {
  const cm = (data: Record<string, string>): K8sObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg' },
    data,
  });
  const withEnv = (env: unknown[]) => deploy(container({ env, envFrom: [{ configMapRef: { name: 'cfg' } }] }));
  const secretRef = (name: string, key = name) => ({ name, valueFrom: { secretKeyRef: { name: 's', key } } });
  it('accepts config keys, secrets from the Secret', () => {
    expect(
      envProblems(withEnv([secretRef('SLACK_BOT_TOKEN'), { name: 'REDIS_URL', value: 'redis://r:6379' }]), [
        cm({ PORT: '3000' }),
      ]),
    ).toEqual([]);
  });
  // Each case: env, ConfigMap data, the problem expected.
  it.each([
    [[{ name: 'RWX_GROUPWAIT', value: '1m' }], {}, 'env RWX_GROUPWAIT is not a config key (src/config/keys.ts)'], // typo in env
    [[], { SLACK_CHANEL: 'C1' }, 'ConfigMap cfg key SLACK_CHANEL is not a config key (src/config/keys.ts)'], // typo in ConfigMap
    [[], { SLACK_BOT_TOKEN: 'xoxb-1' }, 'ConfigMap cfg holds secret SLACK_BOT_TOKEN'], // token in a ConfigMap
    [[{ name: 'SLACK_APP_TOKEN', value: 'xapp-1' }], {}, 'env SLACK_APP_TOKEN is a secret given as a plain value'],
    [[{ name: 'REDIS_URL', value: 'redis://:pw@r:6379' }], {}, 'env REDIS_URL is a secret given as a plain value'],
    [[secretRef('SLACK_BOT_TOKEN', 'token')], {}, 'env SLACK_BOT_TOKEN reads Secret key token'],
  ] as [unknown[], Record<string, string>, string][])('flags case %#', (env, data, problem) => {
    expect(envProblems(withEnv(env), [cm(data)])).toContain(problem);
  });
});

describe('agentProblems', () => {
  const agent = (over: { pod?: Record<string, unknown>; container?: Record<string, unknown> } = {}): K8sObject => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'a' },
    spec: {
      template: {
        spec: {
          automountServiceAccountToken: false,
          hostPID: true,
          securityContext: { runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } },
          volumes: [{ name: 'kubelet', hostPath: { path: '/var/lib/kubelet' } }],
          containers: [
            container({
              securityContext: {
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'], add: ['SYS_PTRACE'] },
              },
              volumeMounts: [
                { name: 'kubelet', mountPath: '/var/lib/kubelet', readOnly: true, mountPropagation: 'HostToContainer' },
              ],
              ...over.container,
            }),
          ],
          ...over.pod,
        },
      },
    },
  });
  it('accepts a read-only agent with hostPID and SYS_PTRACE', () => {
    expect(agentProblems(agent())).toEqual([]);
  });
  // Each case: what is changed, the problem expected.
  it.each([
    [{ pod: { automountServiceAccountToken: true } }, 'DaemonSet a: automountServiceAccountToken is not false'],
    [{ pod: { hostNetwork: true } }, 'DaemonSet a: uses the host network or IPC namespace'],
    [
      {
        container: {
          securityContext: {
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] },
          },
        },
      },
      'DaemonSet a container c: adds capability SYS_ADMIN',
    ],
    [
      { container: { volumeMounts: [{ name: 'kubelet', mountPath: '/k', mountPropagation: 'HostToContainer' }] } },
      'DaemonSet a container c: hostPath kubelet is not mounted read-only',
    ],
    [
      {
        container: {
          volumeMounts: [{ name: 'kubelet', mountPath: '/k', readOnly: true, mountPropagation: 'Bidirectional' }],
        },
      },
      'DaemonSet a container c: hostPath kubelet propagates mounts to the host',
    ],
    [
      { container: { env: [{ name: 'SLACK_BOT_TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] } },
      'DaemonSet a container c: reads a Secret',
    ],
  ] as [Parameters<typeof agent>[0], string][])('flags case %#', (over, problem) => {
    expect(agentProblems(agent(over))).toContain(problem);
  });
});
