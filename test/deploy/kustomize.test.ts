// deploy/: every overlay renders with `kubectl kustomize`, grants read-only RBAC matching src/domain/kinds.ts,
// runs locked down, probes the right paths, and sets only environment variables the config schema knows.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { envNames, envProblems, podSpec, probeProblems, rbacProblems, securityProblems } from './checks.js';
import { kubectlKustomizeVersion, ofKind, overlays, plainObjects, render, type K8sObject } from './manifests.js';
import { toolRequired } from '../tools.js';

const KUSTOMIZE = kubectlKustomizeVersion();
// CI must render: a machine without a recent kubectl only runs the plain-file checks below, unless kubectl is
// required here (test/tools.ts: CI, or RWX_REQUIRE_TOOLS from .ci/run).
const renderable = KUSTOMIZE !== undefined || toolRequired('kubectl');

describe('deploy/ plain files (no kubectl needed)', () => {
  it('base ClusterRole grants exactly read on src/domain/kinds.ts plus create on SelfSubjectAccessReviews', () => {
    expect(rbacProblems(plainObjects('base'))).toEqual([]);
  });
  it('base Deployment and redis StatefulSet are locked down', () => {
    for (const o of [
      ...ofKind(plainObjects('base'), 'Deployment'),
      ...ofKind(plainObjects('components/redis'), 'StatefulSet'),
    ]) {
      expect(securityProblems(o)).toEqual([]);
    }
  });
});

describe.runIf(renderable)('deploy/ rendered with kubectl kustomize', () => {
  const dirs = ['base', ...overlays()];
  // Rendered on first use: a skipped suite is still collected, and must not run kubectl then.
  const rendered = new Map<string, K8sObject[]>();
  const get = (d: string): K8sObject[] => {
    if (!rendered.has(d)) rendered.set(d, render(d));
    return rendered.get(d) ?? [];
  };
  const deployment = (d: string) => {
    const ds = ofKind(get(d), 'Deployment');
    expect(ds).toHaveLength(1);
    return ds[0] as K8sObject;
  };

  it('finds both overlays', () => {
    expect(dirs).toEqual(expect.arrayContaining(['overlays/socket-mode', 'overlays/http']));
  });

  it.each(dirs)('%s: RBAC is read-only and matches the kinds table', (d) => {
    expect(rbacProblems(get(d))).toEqual([]);
    const binding = ofKind(get(d), 'ClusterRoleBinding')[0];
    expect(binding).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'rwx-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'rwx', namespace: 'rwx' }],
    });
    expect(get(d).filter((o) => ['Role', 'RoleBinding', 'Secret'].includes(o.kind))).toEqual([]);
  });

  it.each(dirs)(
    '%s: every workload is non-root, read-only, capability-free, seccomp-confined, with requests and limits',
    (d) => {
      const workloads = [...ofKind(get(d), 'Deployment'), ...ofKind(get(d), 'StatefulSet')];
      expect(workloads.length).toBeGreaterThan(0);
      for (const w of workloads) expect(securityProblems(w)).toEqual([]);
      expect(podSpec(deployment(d)).securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      });
    },
  );

  it.each(dirs)('%s: probes /healthz and /readyz; the Service exposes the port', (d) => {
    expect(probeProblems(deployment(d))).toEqual([]);
    expect(ofKind(get(d), 'Service').find((s) => s.metadata.name === 'rwx')).toMatchObject({
      spec: { ports: [{ name: 'http', port: 3000 }] },
    });
  });

  it.each(dirs)('%s: environment names are config keys, secrets from the Secret only', (d) => {
    expect(envProblems(deployment(d), get(d))).toEqual([]);
  });

  it.each(dirs)('%s: the ConfigMap defaults load and equal the built-in defaults', (d) => {
    const cm = ofKind(get(d), 'ConfigMap').find((c) => c.metadata.name.startsWith('rwx-config'));
    const env = {
      ...(cm?.data as Record<string, string>),
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      SLACK_CHANNEL: 'C0123ABCD',
    };
    const fromCm = loadConfig({ env });
    const builtIn = loadConfig({
      env: { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', SLACK_CHANNEL: 'C0123ABCD' },
    });
    expect(fromCm).toEqual(builtIn);
  });

  it('socket-mode: app token from the Secret, no signing secret, no Ingress', () => {
    const names = envNames(deployment('overlays/socket-mode'));
    expect(names).toContain('SLACK_APP_TOKEN');
    expect(names).not.toContain('SLACK_SIGNING_SECRET');
    expect(ofKind(get('overlays/socket-mode'), 'Ingress')).toEqual([]);
  });

  it('http: signing secret from the Secret, no app token, Ingress publishes only /slack/events', () => {
    const names = envNames(deployment('overlays/http'));
    expect(names).toContain('SLACK_SIGNING_SECRET');
    expect(names).not.toContain('SLACK_APP_TOKEN');
    const ingresses = ofKind(get('overlays/http'), 'Ingress');
    expect(ingresses).toHaveLength(1);
    const paths = (
      ingresses[0]?.spec as { rules: { http: { paths: { path: string; backend: unknown }[] } }[] }
    ).rules.flatMap((r) => r.http.paths);
    expect(paths).toEqual([
      { path: '/slack/events', pathType: 'Exact', backend: { service: { name: 'rwx', port: { name: 'http' } } } },
    ]);
  });

  it.each(overlays())('%s: the redis component is wired in (noeviction, appendonly, PVC, REDIS_URL)', (d) => {
    const objs = get(d);
    const sts = ofKind(objs, 'StatefulSet')[0];
    expect(sts).toBeDefined();
    const conf = ofKind(objs, 'ConfigMap').find((c) => c.metadata.name.startsWith('rwx-redis'));
    const text = (conf?.data as Record<string, string>)['redis.conf'] ?? '';
    expect(text).toMatch(/^maxmemory-policy noeviction$/m);
    expect(text).toMatch(/^appendonly yes$/m);
    const volumes = podSpec(sts as K8sObject).volumes ?? [];
    expect(volumes).toContainEqual({ name: 'config', configMap: { name: conf?.metadata.name } });
    expect((sts?.spec as { volumeClaimTemplates: unknown[] }).volumeClaimTemplates).toHaveLength(1);
    const redisUrl = podSpec(deployment(d)).containers[0]?.env?.find((e) => e.name === 'REDIS_URL');
    expect(redisUrl).toEqual({ name: 'REDIS_URL', value: 'redis://rwx-redis:6379' });
    expect(ofKind(objs, 'Service').map((s) => s.metadata.name)).toContain('rwx-redis');
    // everything lands in the bot's namespace, but the node agent's objects (their own, see test/deploy/agent.test.ts)
    const agent = (x: K8sObject) => x.metadata.labels?.['app.kubernetes.io/component'] === 'agent';
    for (const o of objs.filter((x) => !['Namespace', 'ClusterRole', 'ClusterRoleBinding'].includes(x.kind)))
      expect(o.metadata.namespace).toBe(agent(o) ? 'rwx-agent' : 'rwx');
  });
});
