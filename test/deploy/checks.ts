// Pure checks over Kubernetes objects, each returning the problems found (empty = fine). Shared by the tests on
// rendered overlays and on plain files, and table-tested on bad objects so they are known to fail when they should.
import { CONFIG_KEYS } from '../../src/config/index.js';
import { KINDS } from '../../src/domain/kinds.js';
import type { K8sObject } from './manifests.js';

const READ_VERBS = ['get', 'list', 'watch'];

/** "group/resource verb" for every grant the bot needs: read on every kind it reads, create on SSARs. */
export function expectedGrants(): string[] {
  const reads = Object.values(KINDS).flatMap((k) => READ_VERBS.map((v) => `${k.group}/${k.resource} ${v}`));
  return [...reads, 'authorization.k8s.io/selfsubjectaccessreviews create'].sort();
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  nonResourceURLs?: string[];
  resourceNames?: string[];
}

/** RBAC: no write verb but create on SSARs, no wildcard, no Secrets, and exactly the expected grants. */
export function rbacProblems(objs: K8sObject[]): string[] {
  const problems: string[] = [];
  const grants = new Set<string>();
  for (const o of objs.filter((x) => x.kind === 'ClusterRole' || x.kind === 'Role')) {
    if (o.aggregationRule)
      problems.push(`${o.kind} ${o.metadata.name}: aggregationRule pulls in rules not reviewed here`);
    for (const r of (o.rules ?? []) as Rule[]) {
      if (r.nonResourceURLs?.length)
        problems.push(`${o.metadata.name}: nonResourceURLs ${r.nonResourceURLs.join(',')}`);
      for (const g of r.apiGroups ?? [])
        for (const res of r.resources ?? [])
          for (const v of r.verbs ?? []) {
            const grant = `${g}/${res} ${v}`;
            grants.add(grant);
            if (g === '*' || res === '*' || v === '*') problems.push(`${o.metadata.name}: wildcard grant ${grant}`);
            else if (res === 'secrets' || res.startsWith('secrets/'))
              problems.push(`${o.metadata.name}: grants ${grant} on Secrets`);
            else if (!READ_VERBS.includes(v) && grant !== 'authorization.k8s.io/selfsubjectaccessreviews create') {
              problems.push(`${o.metadata.name}: write verb ${grant}`);
            }
          }
    }
  }
  const expected = expectedGrants();
  for (const g of expected) if (!grants.has(g)) problems.push(`missing grant ${g} (src/domain/kinds.ts reads it)`);
  for (const g of [...grants].sort())
    if (!expected.includes(g)) problems.push(`grant ${g} is not needed by src/domain/kinds.ts`);
  return problems;
}

interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type?: string };
}
interface Container {
  name: string;
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; readOnly?: boolean; mountPropagation?: string }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
}
interface Probe {
  httpGet?: { path?: string; port?: string | number };
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}
interface PodSpec {
  securityContext?: SecurityContext;
  containers: Container[];
  initContainers?: Container[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  automountServiceAccountToken?: boolean;
  volumes?: { name: string; hostPath?: unknown; secret?: unknown; projected?: unknown }[];
}

/** The pod spec of a Deployment or StatefulSet. */
export function podSpec(o: K8sObject): PodSpec {
  return (o.spec as { template: { spec: PodSpec } }).template.spec;
}

/** Restricted Pod Security Standard and more: non-root, read-only root FS, no capabilities, seccomp, requests+limits. */
export function securityProblems(o: K8sObject): string[] {
  const p: string[] = [];
  const spec = podSpec(o);
  const pod = spec.securityContext ?? {};
  const who = `${o.kind} ${o.metadata.name}`;
  if (spec.hostNetwork || spec.hostPID || spec.hostIPC) p.push(`${who}: uses host namespaces`);
  for (const v of spec.volumes ?? []) if (v.hostPath) p.push(`${who}: hostPath volume ${v.name}`);
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    const sc = c.securityContext ?? {};
    const at = `${who} container ${c.name}`;
    if ((sc.runAsNonRoot ?? pod.runAsNonRoot) !== true) p.push(`${at}: runAsNonRoot is not true`);
    if ((sc.runAsUser ?? pod.runAsUser) === 0) p.push(`${at}: runs as uid 0`);
    if ((sc.seccompProfile ?? pod.seccompProfile)?.type !== 'RuntimeDefault')
      p.push(`${at}: seccompProfile is not RuntimeDefault`);
    if (sc.readOnlyRootFilesystem !== true) p.push(`${at}: readOnlyRootFilesystem is not true`);
    if (sc.allowPrivilegeEscalation !== false) p.push(`${at}: allowPrivilegeEscalation is not false`);
    if (sc.privileged) p.push(`${at}: privileged`);
    if (!sc.capabilities?.drop?.includes('ALL')) p.push(`${at}: capabilities.drop lacks ALL`);
    if (sc.capabilities?.add?.length) p.push(`${at}: adds capabilities ${sc.capabilities.add.join(',')}`);
    for (const kind of ['requests', 'limits'] as const)
      for (const r of ['cpu', 'memory']) {
        if (!c.resources?.[kind]?.[r]) p.push(`${at}: no ${r} ${kind.slice(0, -1)}`);
      }
  }
  return p;
}

/** Capabilities the node agent may add: reading other processes' /proc entries and traversing what they own. */
export const AGENT_CAPABILITIES = ['SYS_PTRACE', 'DAC_READ_SEARCH'];

/**
 * The node agent (issue 13): no credentials (no ServiceAccount token, no Secret), hostPID allowed but no host
 * network or IPC, every hostPath mounted read-only and never Bidirectional, read-only root filesystem, no
 * privilege, every capability dropped but the read-side ones above, seccomp, requests and limits.
 */
export function agentProblems(o: K8sObject): string[] {
  const p: string[] = [];
  const spec = podSpec(o);
  const who = `${o.kind} ${o.metadata.name}`;
  if (spec.automountServiceAccountToken !== false) p.push(`${who}: automountServiceAccountToken is not false`);
  if (spec.hostNetwork || spec.hostIPC) p.push(`${who}: uses the host network or IPC namespace`);
  const hostPaths = new Set((spec.volumes ?? []).filter((v) => v.hostPath).map((v) => v.name));
  for (const v of spec.volumes ?? [])
    if (v.secret || v.projected) p.push(`${who}: volume ${v.name} carries credentials`);
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    const sc = c.securityContext ?? {};
    const at = `${who} container ${c.name}`;
    if (sc.readOnlyRootFilesystem !== true) p.push(`${at}: readOnlyRootFilesystem is not true`);
    if (sc.allowPrivilegeEscalation !== false) p.push(`${at}: allowPrivilegeEscalation is not false`);
    if (sc.privileged) p.push(`${at}: privileged`);
    if (!sc.capabilities?.drop?.includes('ALL')) p.push(`${at}: capabilities.drop lacks ALL`);
    for (const cap of sc.capabilities?.add ?? [])
      if (!AGENT_CAPABILITIES.includes(cap)) p.push(`${at}: adds capability ${cap}`);
    if ((sc.seccompProfile ?? spec.securityContext?.seccompProfile)?.type !== 'RuntimeDefault')
      p.push(`${at}: seccompProfile is not RuntimeDefault`);
    for (const m of c.volumeMounts ?? []) {
      if (!hostPaths.has(m.name)) continue;
      if (m.readOnly !== true) p.push(`${at}: hostPath ${m.name} is not mounted read-only`);
      if (m.mountPropagation === 'Bidirectional') p.push(`${at}: hostPath ${m.name} propagates mounts to the host`);
    }
    if (c.env?.some((e) => e.valueFrom?.secretKeyRef) || c.envFrom?.some((e) => e.secretRef))
      p.push(`${at}: reads a Secret`);
    for (const kind of ['requests', 'limits'] as const)
      for (const r of ['cpu', 'memory']) if (!c.resources?.[kind]?.[r]) p.push(`${at}: no ${r} ${kind.slice(0, -1)}`);
  }
  return p;
}

/** The bot's probes: liveness and startup on /healthz, readiness on /readyz. */
export function probeProblems(o: K8sObject): string[] {
  const c = podSpec(o).containers[0];
  if (!c) return [`${o.metadata.name}: no container`];
  const p: string[] = [];
  if (c.livenessProbe?.httpGet?.path !== '/healthz') p.push('livenessProbe is not GET /healthz');
  if (c.readinessProbe?.httpGet?.path !== '/readyz') p.push('readinessProbe is not GET /readyz');
  if (c.startupProbe && c.startupProbe.httpGet?.path !== '/healthz') p.push('startupProbe is not GET /healthz');
  return p;
}

const ENV = new Map(CONFIG_KEYS.map((k) => [k.env, k]));

/** The bot's environment: every name is a config key; secrets come from Secrets, the rest never does. */
export function envProblems(deployment: K8sObject, objs: K8sObject[]): string[] {
  const p: string[] = [];
  const c = podSpec(deployment).containers[0];
  for (const e of c?.env ?? []) {
    const info = ENV.get(e.name);
    if (!info) {
      p.push(`env ${e.name} is not a config key (src/config/keys.ts)`);
      continue;
    }
    // A Redis URL without credentials (the redis component's) holds nothing secret.
    const harmless = e.name === 'REDIS_URL' && e.value !== undefined && !e.value.includes('@');
    if (info.secret && e.value !== undefined && !harmless) p.push(`env ${e.name} is a secret given as a plain value`);
    if (!info.secret && e.valueFrom?.secretKeyRef) p.push(`env ${e.name} is not a secret but comes from a Secret`);
    if (e.valueFrom?.secretKeyRef && e.valueFrom.secretKeyRef.key !== e.name)
      p.push(`env ${e.name} reads Secret key ${e.valueFrom.secretKeyRef.key}`);
  }
  for (const ref of c?.envFrom ?? []) {
    if (ref.secretRef)
      p.push(`envFrom Secret ${ref.secretRef.name}: name secrets one by one so the test can check them`);
    const name = ref.configMapRef?.name;
    if (!name) continue;
    const cm = objs.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name);
    if (!cm) {
      p.push(`envFrom ConfigMap ${name} is not in the rendered output`);
      continue;
    }
    for (const key of Object.keys((cm.data ?? {}) as Record<string, string>)) {
      const info = ENV.get(key);
      if (!info) p.push(`ConfigMap ${name} key ${key} is not a config key (src/config/keys.ts)`);
      else if (info.secret) p.push(`ConfigMap ${name} holds secret ${key}`);
    }
  }
  return p;
}

/** Environment names the bot's container gets, from env and its ConfigMaps. */
export function envNames(deployment: K8sObject): string[] {
  return (podSpec(deployment).containers[0]?.env ?? []).map((e) => e.name);
}

/** The node agent's namespace (deploy/components/agent). */
export const AGENT_NAMESPACE = 'rwx-agent';
/** The one capability the kustomize component keeps, and the one hostPath it mounts. */
const AGENT_CAPS = ['SYS_PTRACE'];
const KUBELET_DIR = '/var/lib/kubelet';

interface AgentPodSpec {
  hostPID?: boolean;
  serviceAccountName?: string;
  tolerations?: { key?: string; operator?: string; effect?: string }[];
  volumes?: { name: string; hostPath?: { path?: string } }[];
  containers: {
    name: string;
    securityContext?: { capabilities?: { add?: string[] } };
    ports?: { name?: string; containerPort?: number }[];
    volumeMounts?: { name: string; mountPath?: string; mountPropagation?: string }[];
  }[];
}

const hasLabels = (labels: Record<string, string> | undefined, want: Record<string, string>) =>
  Object.entries(want).every(([k, v]) => labels?.[k] === v);

/**
 * deploy/components/agent as rendered, beyond agentProblems: one DaemonSet whose pods carry the labels the bot
 * finds agents by, in the agent's own namespace; hostPID; SYS_PTRACE as the one capability; the kubelet dir as
 * the only hostPath, with HostToContainer; every taint tolerated; the port the code uses; a ServiceAccount with
 * no token and nothing bound to it.
 */
export function agentComponentProblems(
  objs: K8sObject[],
  want: { labels: Record<string, string>; portName: string; port: number },
): string[] {
  const sets = objs.filter((o) => o.kind === 'DaemonSet' && hasLabels(o.metadata.labels, want.labels));
  if (sets.length !== 1) return [`expected one agent DaemonSet, found ${sets.length}`];
  const ds = sets[0] as K8sObject;
  const p = agentProblems(ds);
  const tmpl = (ds.spec as { template: { metadata?: { labels?: Record<string, string> }; spec: AgentPodSpec } })
    .template;
  const spec = tmpl.spec;
  const who = `DaemonSet ${ds.metadata.name}`;
  if (ds.metadata.namespace !== AGENT_NAMESPACE)
    p.push(`${who}: namespace ${ds.metadata.namespace}, not ${AGENT_NAMESPACE}`);
  if (!hasLabels(tmpl.metadata?.labels, want.labels)) p.push(`${who}: pods lack the agent labels`);
  if (spec.hostPID !== true) p.push(`${who}: hostPID is not true (the agent reads every process's namespace)`);
  if (!spec.tolerations?.some((t) => t.operator === 'Exists' && !t.key && !t.effect))
    p.push(`${who}: does not tolerate every taint`);
  for (const v of spec.volumes ?? [])
    if (v.hostPath && v.hostPath.path !== KUBELET_DIR)
      p.push(`${who}: hostPath ${v.hostPath.path} is not the kubelet dir`);
  const hostVolumes = new Set((spec.volumes ?? []).filter((v) => v.hostPath).map((v) => v.name));
  for (const c of spec.containers) {
    const at = `${who} container ${c.name}`;
    const added = [...(c.securityContext?.capabilities?.add ?? [])].sort().join(',');
    if (added !== AGENT_CAPS.join(',')) p.push(`${at}: adds capabilities [${added}], not [${AGENT_CAPS.join(',')}]`);
    for (const m of c.volumeMounts ?? [])
      if (hostVolumes.has(m.name) && m.mountPropagation !== 'HostToContainer')
        p.push(`${at}: hostPath mount ${m.mountPath} propagation ${m.mountPropagation ?? 'None'}, not HostToContainer`);
  }
  const port = spec.containers.flatMap((c) => c.ports ?? []).find((x) => x.name === want.portName);
  if (port?.containerPort !== want.port) p.push(`${who}: no container port "${want.portName}" on ${want.port}`);
  const sa = spec.serviceAccountName ?? 'default';
  const account = objs.find(
    (o) => o.kind === 'ServiceAccount' && o.metadata.name === sa && o.metadata.namespace === ds.metadata.namespace,
  );
  if (account?.automountServiceAccountToken !== false)
    p.push(`ServiceAccount ${sa}: automountServiceAccountToken is not false`);
  for (const b of objs.filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding')) {
    const subjects = (b.subjects ?? []) as { kind?: string; name?: string; namespace?: string }[];
    if (subjects.some((x) => x.kind === 'ServiceAccount' && x.name === sa && x.namespace === ds.metadata.namespace))
      p.push(`${b.kind} ${b.metadata.name} grants the agent's service account RBAC`);
  }
  return p;
}

interface PolicyPeer {
  namespaceSelector?: { matchLabels?: Record<string, string> };
  podSelector?: { matchLabels?: Record<string, string> };
}

/** The component's NetworkPolicy: selects the agent pods, admits only the bot's pods on the agent port, no egress. */
export function agentNetworkPolicyProblems(
  objs: K8sObject[],
  labels: Record<string, string>,
  portName: string,
): string[] {
  const policies = objs.filter(
    (o) =>
      o.kind === 'NetworkPolicy' &&
      hasLabels(
        (o.spec as { podSelector?: { matchLabels?: Record<string, string> } }).podSelector?.matchLabels,
        labels,
      ),
  );
  if (policies.length !== 1) return [`expected one NetworkPolicy selecting the agent pods, found ${policies.length}`];
  const spec = policies[0]?.spec as {
    policyTypes?: string[];
    ingress?: { from?: PolicyPeer[]; ports?: { port?: string | number }[] }[];
    egress?: unknown[];
  };
  const p: string[] = [];
  if (!spec.policyTypes?.includes('Ingress') || !spec.policyTypes.includes('Egress'))
    p.push('policyTypes must be Ingress and Egress');
  if ((spec.egress ?? []).length) p.push('the agent needs no egress, yet some is allowed');
  for (const rule of spec.ingress ?? []) {
    if (!rule.from?.length) p.push('an ingress rule admits every source');
    for (const peer of rule.from ?? []) {
      const ns = peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
      const pod = peer.podSelector?.matchLabels ?? {};
      if (ns !== 'rwx' || pod['app.kubernetes.io/name'] !== 'rwx' || pod['app.kubernetes.io/component'] !== 'bot')
        p.push(`ingress from ${JSON.stringify(peer)} is not only the bot's pods`);
    }
    if (!rule.ports?.length || rule.ports.some((x) => x.port !== portName))
      p.push('ingress is not only the agent port');
  }
  return p;
}
