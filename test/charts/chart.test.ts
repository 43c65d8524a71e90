// charts/rwx: every CI values file lints (--strict) and renders, and what it renders passes the checks the kustomize
// overlays pass (test/deploy/checks.ts): read-only RBAC matching src/domain/kinds.ts, locked-down pods, the probes,
// only known config keys with secrets from Secrets; then what each values file is for (modes, Redis, gate, policy,
// agent, digests) and that the chart shares deploy/'s files rather than copying them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../../src/config/index.js';
import {
  agentComponentProblems,
  agentNetworkPolicyProblems,
  agentProblems,
  envNames,
  envProblems,
  podSpec,
  probeProblems,
  rbacProblems,
  securityProblems,
} from '../deploy/checks.js';
import { DEPLOY, ROOT, ofKind, plainObjects, type K8sObject } from '../deploy/manifests.js';
import { HELM, RELEASE, ciValuesFiles, find, lint, template } from './helm.js';
import { AGENT_LABELS, AGENT_PORT_NAME } from '../../src/agent/locate.js';
import { AGENT_PORT } from '../../src/agent/server.js';

const rendered = new Map<string, K8sObject[]>();
/** Rendered on first use: a skipped suite is still collected, and must not run helm then. */
const get = (file: string): K8sObject[] => {
  if (!rendered.has(file)) rendered.set(file, template([`ci/${file}`]));
  return rendered.get(file) ?? [];
};
const deployment = (file: string): K8sObject => {
  const ds = ofKind(get(file), 'Deployment');
  expect(ds).toHaveLength(1);
  return ds[0] as K8sObject;
};
const container = (o: K8sObject) =>
  podSpec(o).containers[0]! as ReturnType<typeof podSpec>['containers'][0] & { image?: string };
const env = (file: string, name: string) => container(deployment(file)).env?.find((e) => e.name === name);
/** Objects of the gate (its own namespace and RBAC, checked against deploy/gate below). */
const isGate = (o: K8sObject) => o.metadata.labels?.['app.kubernetes.io/component'] === 'gate';
const CLUSTER_SCOPED = [
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
];
/** Objects in a stable order (helm sorts by install order, the files by position). */
const sorted = (objs: K8sObject[]) =>
  [...objs].sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));

describe.runIf(HELM.run)(`charts/rwx with helm${HELM.note}`, () => {
  const files = ciValuesFiles();

  it('has a values file for each install the docs describe', () => {
    HELM.check();
    expect(files).toEqual(
      [
        'socket-mode',
        'http',
        'external-redis',
        'redis-sentinel',
        'redis-cluster',
        'gate',
        'agent',
        'monitoring',
        'digest',
        'openshift',
      ]
        .map((f) => `${f}-values.yaml`)
        .sort(),
    );
  });

  it.each(files)('%s: helm lint --strict passes', (f) => {
    const r = lint(`ci/${f}`);
    expect(r.stdout + r.stderr).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    expect(r.status).toBe(0);
  });

  it.each(files)('%s: RBAC is read-only and matches the kinds table; bound to the bot', (f) => {
    const objs = get(f).filter((o) => !isGate(o));
    expect(rbacProblems(objs)).toEqual([]);
    expect(find(objs, 'ClusterRoleBinding', 'rwx-reader')).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'rwx-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'rwx', namespace: RELEASE.namespace }],
    });
    expect((podSpec(deployment(f)) as { serviceAccountName?: string }).serviceAccountName).toBe('rwx');
    expect(objs.filter((o) => ['Role', 'RoleBinding'].includes(o.kind))).toEqual([]);
  });

  it.each(files)('%s: the bot and Redis are non-root, read-only, capability-free, seccomp-confined', (f) => {
    const workloads = [...ofKind(get(f), 'Deployment'), ...ofKind(get(f), 'StatefulSet')];
    for (const w of workloads) expect(securityProblems(w), w.metadata.name).toEqual([]);
    // no uid by default (OpenShift's restricted-v2 assigns one): the image's USER is numeric, so runAsNonRoot holds
    expect(podSpec(deployment(f)).securityContext).toEqual({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    for (const d of ofKind(get(f), 'DaemonSet')) expect(agentProblems(d)).toEqual([]);
  });

  it.each(files)('%s: probes, Service port, config keys, secrets only from Secrets, one namespace', (f) => {
    const objs = get(f);
    expect(probeProblems(deployment(f))).toEqual([]);
    expect(find(objs, 'Service', 'rwx')).toMatchObject({ spec: { ports: [{ name: 'http', port: 3000 }] } });
    expect(envProblems(deployment(f), objs)).toEqual([]);
    // The node agent lives in its own namespace, as with kustomize (deploy/components/agent); the rest in the release's.
    const isAgent = (x: K8sObject) => x.metadata.labels?.['app.kubernetes.io/component'] === 'agent';
    for (const o of objs.filter((x) => !CLUSTER_SCOPED.includes(x.kind) && !isGate(x)))
      expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(isAgent(o) ? 'rwx-agent' : RELEASE.namespace);
  });

  it('the chart default settings load and equal the built-in defaults', () => {
    const cm = find(get('socket-mode-values.yaml'), 'ConfigMap', 'rwx-config');
    const data = cm?.data as Record<string, string>;
    const secrets = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' };
    const want = loadConfig({ env: { ...secrets, SLACK_CHANNEL: 'C0123ABCD', RWX_CLUSTER_NAME: 'prod-eu-1' } });
    expect(loadConfig({ env: { ...data, ...secrets } })).toEqual(want);
    expect(Object.keys(data)).toEqual(expect.arrayContaining(['SLACK_CHANNEL', 'RWX_CLUSTER_NAME', 'PORT']));
    expect(data.PORT).toBe(String(DEFAULT_CONFIG.port));
  });

  it('a settings change rolls the pods (the ConfigMap hash is on the pod template)', () => {
    const hash = (set: string[]) =>
      (
        ofKind(template(['ci/socket-mode-values.yaml'], set), 'Deployment')[0]?.spec as {
          template: { metadata: { annotations: Record<string, string> } };
        }
      ).template.metadata.annotations['checksum/config'];
    expect(hash([])).toMatch(/^[0-9a-f]{64}$/);
    expect(hash(['config.RWX_GROUP_WAIT=1m'])).not.toBe(hash([]));
  });

  it('socket mode: the app token from the Secret, no signing secret, no Ingress', () => {
    const names = envNames(deployment('socket-mode-values.yaml'));
    expect(names).toContain('SLACK_APP_TOKEN');
    expect(names).not.toContain('SLACK_SIGNING_SECRET');
    expect(env('socket-mode-values.yaml', 'SLACK_BOT_TOKEN')?.valueFrom?.secretKeyRef?.name).toBe('rwx-secrets');
    expect(ofKind(get('socket-mode-values.yaml'), 'Ingress')).toEqual([]);
  });

  it('http mode: the signing secret, no app token, an Ingress publishing only /slack/events', () => {
    const names = envNames(deployment('http-values.yaml'));
    expect(names).toContain('SLACK_SIGNING_SECRET');
    expect(names).not.toContain('SLACK_APP_TOKEN');
    const ingresses = ofKind(get('http-values.yaml'), 'Ingress');
    expect(ingresses).toHaveLength(1);
    expect(ingresses[0]?.spec).toEqual({
      ingressClassName: 'nginx',
      rules: [
        {
          host: 'rwx.prod.example.com',
          http: {
            paths: [
              {
                path: '/slack/events',
                pathType: 'Exact',
                backend: { service: { name: 'rwx', port: { name: 'http' } } },
              },
            ],
          },
        },
      ],
      tls: [{ hosts: ['rwx.prod.example.com'], secretName: 'rwx-tls' }],
    });
  });

  it('bundled Valkey: a generated password in a Secret, read by Valkey from a mounted file, given to the bot; PVC; NetworkPolicy', () => {
    const objs = get('socket-mode-values.yaml');
    const secret = find(objs, 'Secret', 'rwx-redis');
    const password = Buffer.from((secret?.data as Record<string, string>).REDIS_PASSWORD ?? '', 'base64').toString();
    expect(password).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(secret?.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    const fromSecret = { secretKeyRef: { name: 'rwx-redis', key: 'REDIS_PASSWORD' } };
    expect(env('socket-mode-values.yaml', 'REDIS_URL')).toEqual({ name: 'REDIS_URL', value: 'redis://rwx-redis:6379' });
    expect(env('socket-mode-values.yaml', 'REDIS_PASSWORD')).toEqual({ name: 'REDIS_PASSWORD', valueFrom: fromSecret });
    const sts = find(objs, 'StatefulSet', 'rwx-redis')!;
    const valkey = container(sts) as unknown as { image: string; command: string[]; args?: string[]; env?: unknown[] };
    expect(valkey.image).toMatch(/^docker\.io\/valkey\/valkey:\d+\.\d+\.\d+-alpine$/);
    // the password is on no command line and in no environment variable: a file from the Secret, read by start.sh
    expect(valkey.command).toEqual(['sh', '/etc/valkey/start.sh']);
    expect([valkey.args, valkey.env]).toEqual([undefined, undefined]);
    expect(JSON.stringify(sts)).not.toMatch(/requirepass|\$\(REDIS_PASSWORD\)/);
    expect(podSpec(sts).volumes).toContainEqual({
      name: 'auth',
      secret: { secretName: 'rwx-redis', items: [{ key: 'REDIS_PASSWORD', path: 'password' }], defaultMode: 0o440 }, // 288
    });
    const cmData = find(objs, 'ConfigMap', 'rwx-redis')?.data as Record<string, string>;
    expect(cmData['start.sh']).toBe(readFileSync(join(DEPLOY, 'components/redis/start.sh'), 'utf8'));
    expect(cmData['redis.conf']).toMatch(/^include \/run\/valkey\/auth\.conf$/m);
    // The same redis.conf as the kustomize component: noeviction, appendonly.
    const conf = cmData['redis.conf'];
    expect(conf).toBe(readFileSync(join(DEPLOY, 'components/redis/redis.conf'), 'utf8'));
    expect(conf).toMatch(/^maxmemory-policy noeviction$/m);
    expect(conf).toMatch(/^appendonly yes$/m);
    const claim = (sts.spec as { volumeClaimTemplates: { spec: Record<string, unknown> }[] }).volumeClaimTemplates[0];
    expect(claim?.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
    // Only the bot's pods may connect: the policy's peer selects the Deployment's pods, not Redis's own.
    const np = find(objs, 'NetworkPolicy', 'rwx-redis')?.spec as {
      podSelector: { matchLabels: Record<string, string> };
      ingress: { from: { podSelector: { matchLabels: Record<string, string> } }[] }[];
    };
    const botLabels = (deployment('socket-mode-values.yaml').spec as { template: { metadata: { labels: object } } })
      .template.metadata.labels;
    expect(botLabels).toMatchObject(np.ingress[0]!.from[0]!.podSelector.matchLabels);
    expect((sts.spec as { template: { metadata: { labels: object } } }).template.metadata.labels).toMatchObject(
      np.podSelector.matchLabels,
    );
    expect(np.ingress[0]!.from[0]!.podSelector.matchLabels['app.kubernetes.io/component']).toBe('bot');
  });

  it('bundled Valkey: a password from an existing Secret (GitOps: nothing generated); a StorageClass, or none with "-"', () => {
    const objs = template(
      ['ci/socket-mode-values.yaml'],
      [
        'redis.auth.existingSecret=my-redis-auth',
        'redis.auth.existingSecretKey=password',
        'redis.persistence.storageClass=-',
      ],
    );
    expect(find(objs, 'Secret', 'rwx-redis')).toBeUndefined();
    const bot = container(ofKind(objs, 'Deployment')[0]!).env?.find((e) => e.name === 'REDIS_PASSWORD');
    expect(bot?.valueFrom?.secretKeyRef).toEqual({ name: 'my-redis-auth', key: 'password' });
    expect(podSpec(find(objs, 'StatefulSet', 'rwx-redis')!).volumes).toContainEqual(
      expect.objectContaining({ name: 'auth', secret: expect.objectContaining({ secretName: 'my-redis-auth' }) }),
    );
    const sts = find(objs, 'StatefulSet', 'rwx-redis')?.spec as {
      volumeClaimTemplates: { spec: { storageClassName?: string } }[];
    };
    expect(sts.volumeClaimTemplates[0]?.spec.storageClassName).toBe('');
    const digest = find(get('digest-values.yaml'), 'StatefulSet', 'rwx-redis')?.spec as typeof sts;
    expect(digest.volumeClaimTemplates[0]?.spec.storageClassName).toBe('gp3-not-csi-under-watch');
  });

  it('external Redis: REDIS_URL and REDIS_PASSWORD from your Secret, no Redis in the release', () => {
    const objs = get('external-redis-values.yaml');
    expect(ofKind(objs, 'StatefulSet')).toEqual([]);
    expect(objs.filter((o) => o.metadata.name.startsWith('rwx-redis'))).toEqual([]);
    expect(env('external-redis-values.yaml', 'REDIS_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'my-redis',
      key: 'REDIS_URL',
    });
    expect(env('external-redis-values.yaml', 'REDIS_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({
      name: 'my-redis',
      key: 'REDIS_PASSWORD',
    });
  });

  it.each([
    [
      'redis-sentinel-values.yaml',
      {
        REDIS_SENTINELS: 'sentinel-0.redis:26379,sentinel-1.redis:26379,sentinel-2.redis:26379',
        REDIS_SENTINEL_NAME: 'rwx-master',
        REDIS_USERNAME: 'rwx',
        REDIS_PASSWORD: { secretKeyRef: { name: 'my-redis', key: 'REDIS_PASSWORD' } },
        REDIS_SENTINEL_PASSWORD: { secretKeyRef: { name: 'my-redis', key: 'REDIS_SENTINEL_PASSWORD' } },
        REDIS_TLS: 'true',
        REDIS_TLS_CA_FILE: '/etc/rwx/redis-ca/ca.crt',
      },
    ],
    [
      'redis-cluster-values.yaml',
      {
        REDIS_CLUSTER_NODES: 'redis-cluster-0.redis:6379,redis-cluster-1.redis:6379,redis-cluster-2.redis:6379',
        REDIS_PASSWORD: { secretKeyRef: { name: 'my-redis', key: 'REDIS_PASSWORD' } },
      },
    ],
  ])('%s: each Redis variable, secrets from your Secret, no Redis in the release', (f, want) => {
    const redisEnv = Object.fromEntries(
      (container(deployment(f)).env ?? [])
        .filter((e) => e.name.startsWith('REDIS_'))
        .map((e) => [e.name, e.value ?? e.valueFrom]),
    );
    expect(redisEnv).toEqual(want);
    expect(ofKind(get(f), 'StatefulSet')).toEqual([]);
    const ca = podSpec(deployment(f)).volumes?.find((v) => v.name === 'redis-ca');
    if (!('REDIS_TLS_CA_FILE' in want)) return expect(ca).toBeUndefined();
    expect(ca).toEqual({
      name: 'redis-ca',
      secret: { secretName: 'my-redis-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
    });
    expect(container(deployment(f)).volumeMounts).toContainEqual({
      name: 'redis-ca',
      mountPath: '/etc/rwx/redis-ca',
      readOnly: true,
    });
  });

  it('the values schema refuses two topologies at once, and Sentinels without the master name', () => {
    const base = ['ci/external-redis-values.yaml'];
    expect(() => template(base, ['redis.external.url=redis://a:6379', 'redis.external.clusterNodes=a:6379'])).toThrow(
      /redis\.external: Must not validate the schema/,
    );
    expect(() => template(base, ['redis.external.sentinels=a:26379'])).toThrow(/sentinelName/);
    expect(() => template(base, ['redis.external.clusterNodes=a'])).toThrow(/clusterNodes/);
  });

  it('openshift values: no uid or fsGroup anywhere (restricted-v2 assigns them); service account annotations, priority class', () => {
    const objs = get('openshift-values.yaml');
    expect(JSON.stringify(objs)).not.toMatch(/"(runAsUser|runAsGroup|fsGroup)"/);
    expect(find(objs, 'ServiceAccount', 'rwx')?.metadata.annotations).toEqual({ 'example.com/owner': 'platform' });
    expect((podSpec(deployment('openshift-values.yaml')) as { priorityClassName?: string }).priorityClassName).toBe(
      'rwx-critical',
    );
    expect(find(objs, 'Secret', 'rwx-redis')).toBeUndefined();
  });

  it('a PodDisruptionBudget and a NetworkPolicy for the bot: its port only, from the peers given and the test pod', () => {
    const objs = get('socket-mode-values.yaml');
    const bot = (deployment('socket-mode-values.yaml').spec as { selector: { matchLabels: object } }).selector;
    expect(find(objs, 'PodDisruptionBudget', 'rwx')?.spec).toEqual({ maxUnavailable: 1, selector: bot });
    expect(find(objs, 'NetworkPolicy', 'rwx')?.spec).toEqual({
      podSelector: bot,
      policyTypes: ['Ingress'],
      ingress: [{ ports: [{ port: 'http', protocol: 'TCP' }] }],
    });
    const peers = template(
      ['ci/socket-mode-values.yaml'],
      ['networkPolicy.from[0].namespaceSelector.matchLabels.team=obs'],
    );
    const from = (find(peers, 'NetworkPolicy', 'rwx')?.spec as { ingress: { from: object[] }[] }).ingress[0]?.from;
    expect(from).toEqual([
      { namespaceSelector: { matchLabels: { team: 'obs' } } },
      {
        podSelector: {
          matchLabels: {
            'app.kubernetes.io/name': 'rwx',
            'app.kubernetes.io/instance': 'rwx',
            'app.kubernetes.io/component': 'test',
          },
        },
      },
    ]);
    const off = template(
      ['ci/socket-mode-values.yaml'],
      ['networkPolicy.enabled=false', 'podDisruptionBudget.enabled=false'],
    );
    expect([find(off, 'NetworkPolicy', 'rwx'), find(off, 'PodDisruptionBudget', 'rwx')]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('helm test: a restricted pod of the bot image asks the Service for /readyz', () => {
    const pod = find(get('socket-mode-values.yaml'), 'Pod', 'rwx-test-readyz')!;
    expect(pod.metadata.annotations?.['helm.sh/hook']).toBe('test');
    // the same checks as the workloads' pod templates
    expect(securityProblems({ ...pod, spec: { template: { spec: pod.spec } } })).toEqual([]);
    const c = (pod.spec as { containers: { image: string; command: string[]; env: object[] }[] }).containers[0]!;
    expect(c.image).toBe('registry.example.com/rwx:0.1.0');
    expect(c.command.slice(0, 2)).toEqual(['node', '-e']);
    expect(c.env).toEqual([{ name: 'READYZ_URL', value: 'http://rwx.rwx.svc:3000/readyz' }]);
  });

  it('Chart.yaml says where the chart comes from: home, sources, maintainers, icon, kubeVersion', () => {
    const chart = readFileSync(join(ROOT, 'charts/rwx/Chart.yaml'), 'utf8');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { homepage: string; version: string };
    expect(chart).toContain(`home: ${pkg.homepage.replace(/#readme$/, '')}\n`);
    expect(chart).toMatch(/^sources:\n {2}- https:\/\//m);
    expect(chart).toMatch(/^maintainers:\n {2}- name: /m);
    expect(chart).toMatch(/^icon: https:\/\/\S+\.svg$/m);
    expect(chart).toMatch(/^kubeVersion: ">=1\.27\.0-0"$/m);
    expect(chart).toContain(`appVersion: "${pkg.version}"`);
  });

  it("the bot's ClusterRole rules are deploy/base's", () => {
    const rules = (objs: K8sObject[]) =>
      ofKind(objs, 'ClusterRole').find((o) => o.metadata.name === 'rwx-reader')?.rules;
    expect(rules(get('socket-mode-values.yaml'))).toEqual(rules(plainObjects('base')));
  });

  it("gate on: deploy/gate's namespace, ServiceAccount and RBAC exactly; the bot's RBAC unchanged", () => {
    const gate = get('gate-values.yaml').filter(isGate);
    expect(sorted(gate)).toEqual(sorted(plainObjects('gate')));
    expect(get('socket-mode-values.yaml').filter(isGate)).toEqual([]);
  });

  it("policy on: deploy/policy's admission policy, with the binding's validationActions from values", () => {
    const policy = get('gate-values.yaml').filter((o) => o.kind.startsWith('ValidatingAdmissionPolicy'));
    const want = plainObjects('policy').map((o) =>
      o.kind === 'ValidatingAdmissionPolicyBinding'
        ? { ...o, spec: { ...(o.spec as object), validationActions: ['Warn', 'Audit'] } }
        : o,
    );
    expect(sorted(policy)).toEqual(sorted(want));
    expect(ofKind(get('socket-mode-values.yaml'), 'ValidatingAdmissionPolicy')).toEqual([]);
  });

  it('agent on: a credential-free DaemonSet on every node, reachable by the bot only, reaching nothing', () => {
    const objs = get('agent-values.yaml');
    const ds = find(objs, 'DaemonSet', 'rwx-agent')!;
    const spec = podSpec(ds);
    expect(agentProblems(ds)).toEqual([]);
    expect(spec.hostPID).toBe(true);
    expect(container(ds).securityContext?.capabilities).toEqual({ drop: ['ALL'], add: ['SYS_PTRACE'] });
    expect(spec.volumes).toEqual([{ name: 'kubelet-dir', hostPath: { path: '/var/lib/kubelet', type: 'Directory' } }]);
    expect(find(objs, 'ServiceAccount', 'rwx-agent')).toMatchObject({ automountServiceAccountToken: false });
    expect(rbacProblems(objs)).toEqual([]); // no role of its own
    const np = find(objs, 'NetworkPolicy', 'rwx-agent')?.spec as {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress: { from: { podSelector: { matchLabels: Record<string, string> } }[]; ports: { port: number }[] }[];
      egress: unknown[];
    };
    expect(np.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(np.egress).toEqual([]);
    expect(np.ingress).toHaveLength(1);
    expect(np.ingress[0]!.ports).toEqual([{ port: AGENT_PORT_NAME, protocol: 'TCP' }]);
    const labels = (o: K8sObject) =>
      (o.spec as { template: { metadata: { labels: object } } }).template.metadata.labels;
    expect(labels(ds)).toMatchObject(np.podSelector.matchLabels);
    expect(labels(deployment('agent-values.yaml'))).toMatchObject(np.ingress[0]!.from[0]!.podSelector.matchLabels);
    expect(labels(ds)).not.toMatchObject(np.ingress[0]!.from[0]!.podSelector.matchLabels);
    // What the bot finds agents by (src/agent/locate.ts), and the node name the report must carry.
    expect(labels(ds)).toMatchObject(AGENT_LABELS);
    expect(container(ds).env).toContainEqual({
      name: 'NODE_NAME',
      valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } },
    });
    expect(ofKind(get('socket-mode-values.yaml'), 'DaemonSet')).toEqual([]);
  });

  it('agent on: the same namespace, port and NetworkPolicy as deploy/components/agent, by the same checks', () => {
    const objs = get('agent-values.yaml');
    // The kustomize component's checks, on the chart: namespace rwx-agent, the port named agent on AGENT_PORT,
    // only the bot's pods (namespace rwx, component bot) admitted on it, no egress, no RBAC.
    expect(agentComponentProblems(objs, { labels: AGENT_LABELS, portName: AGENT_PORT_NAME, port: AGENT_PORT })).toEqual(
      [],
    );
    expect(agentNetworkPolicyProblems(objs, AGENT_LABELS, AGENT_PORT_NAME)).toEqual([]);
    const ns = find(objs, 'Namespace', 'rwx-agent');
    expect(ns?.metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'privileged',
      'pod-security.kubernetes.io/warn': 'baseline',
      'pod-security.kubernetes.io/audit': 'baseline',
    });
    // The release's own namespace is not created here and keeps its level.
    expect(ofKind(objs, 'Namespace').map((o) => o.metadata.name)).toEqual(['rwx-agent']);
    // Opting out: the agent in the release's namespace (which must then allow privileged pods), or a namespace
    // that exists already.
    const inRelease = template(['ci/agent-values.yaml'], ['agent.namespace=']);
    expect(ofKind(inRelease, 'Namespace')).toEqual([]);
    expect(find(inRelease, 'DaemonSet', 'rwx-agent')?.metadata.namespace).toBe(RELEASE.namespace);
    expect(ofKind(template(['ci/agent-values.yaml'], ['agent.createNamespace=false']), 'Namespace')).toEqual([]);
  });

  it("docs/install.md's values files render, as the docs say (channel, mode, Redis)", () => {
    const doc = readFileSync(join(ROOT, 'docs/install.md'), 'utf8');
    const blocks = [...doc.matchAll(/```yaml\n(# my-values\.yaml\n[\s\S]*?)```/g)].map((m) => m[1] ?? '');
    expect(blocks).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), 'rwx-values-'));
    let objs: K8sObject[][];
    try {
      objs = blocks.map((text, i) => {
        writeFileSync(join(dir, `${i}.yaml`), text);
        return template([join(dir, `${i}.yaml`)]);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const cm = (o: K8sObject[]) => find(o, 'ConfigMap', 'rwx-config')?.data as Record<string, string>;
    expect(cm(objs[0]!)).toMatchObject({ SLACK_CHANNEL: 'C0123ABCD', RWX_ALLOWED_USERGROUPS: 'S0ONCALL' });
    expect(ofKind(objs[0]!, 'StatefulSet')).toHaveLength(1);
    expect(ofKind(objs[1]!, 'StatefulSet')).toEqual([]); // your own Redis
  });

  it('digest pinning: the digest wins over the tag, for the bot and for Valkey', () => {
    expect(container(deployment('digest-values.yaml')).image).toBe(
      'registry.example.com/rwx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    );
    expect(container(find(get('digest-values.yaml'), 'StatefulSet', 'rwx-redis')!).image).toBe(
      'docker.io/valkey/valkey@sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210',
    );
    // without a digest: the tag, by default the chart's appVersion
    expect(container(deployment('socket-mode-values.yaml')).image).toBe('registry.example.com/rwx:0.1.0');
  });

  it('digest values: replicas, resources, scheduling, extra env and settings reach the Deployment', () => {
    const d = deployment('digest-values.yaml');
    expect((d.spec as { replicas: number }).replicas).toBe(2);
    const spec = podSpec(d) as ReturnType<typeof podSpec> & { nodeSelector?: object; tolerations?: unknown[] };
    expect(spec.nodeSelector).toEqual({ 'node-role.kubernetes.io/infra': '' });
    expect(spec.tolerations).toHaveLength(1);
    expect(container(d).resources?.limits).toEqual({ cpu: '2', memory: '2Gi' });
    expect(env('digest-values.yaml', 'RWX_DRIVER_DAEMONSETS')?.valueFrom?.configMapKeyRef).toEqual({
      name: 'storage-drivers',
      key: 'RWX_DRIVER_DAEMONSETS',
    });
    const data = find(get('digest-values.yaml'), 'ConfigMap', 'rwx-config')?.data as Record<string, string>;
    expect(data).toMatchObject({ RWX_GROUP_WAIT: '1m', RWX_ALLOWED_USERGROUPS: 'S0ONCALL', LOG_LEVEL: 'debug' });
  });
});
