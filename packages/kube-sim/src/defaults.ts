// Turns a scenario object into what `kubectl get -o json` would show: apiVersion, uid, creationTimestamp, the
// defaults the API server fills in, owner and event references resolved to uids, and kubelet-written pod status.
import { rec, type KubeObject, type Pod, type Rec } from './objects.js';
import { apiVersionOf, type Resources } from './resources.js';
import { formatTime, resolveTimes } from './times.js';
import { podStatus, stateOfPhase } from './pod-status.js';
import { stableSuffix, stableUid } from './template.js';

/** Looks an object up by kind, namespace and name (scenario objects and stored ones). */
export type Lookup = (kind: string, namespace: string | undefined, name: string) => KubeObject | undefined;

function defaults(o: Rec, d: Rec): void {
  for (const [k, v] of Object.entries(d)) if (o[k] === undefined) o[k] = v;
}

function podSpecDefaults(spec: Rec): void {
  defaults(spec, {
    dnsPolicy: 'ClusterFirst',
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
    priority: 0,
    restartPolicy: 'Always',
    schedulerName: 'default-scheduler',
    securityContext: {},
    serviceAccount: 'default',
    serviceAccountName: 'default',
    terminationGracePeriodSeconds: 30,
  });
  if (spec.serviceAccountName !== spec.serviceAccount) spec.serviceAccount = spec.serviceAccountName;
  for (const c of (spec.containers as Rec[] | undefined) ?? []) {
    defaults(c, {
      imagePullPolicy: 'IfNotPresent',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
  }
}

function kindDefaults(o: Rec, kind: string): void {
  const spec = rec(o.spec);
  const meta = rec(o.metadata);
  switch (kind) {
    case 'Pod':
      o.spec = spec;
      podSpecDefaults(spec);
      if (spec.tolerations === undefined) {
        spec.tolerations = ['not-ready', 'unreachable'].map((t) => ({
          effect: 'NoExecute',
          key: `node.kubernetes.io/${t}`,
          operator: 'Exists',
          tolerationSeconds: 300,
        }));
      }
      break;
    case 'PersistentVolumeClaim':
      o.spec = spec;
      defaults(spec, {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '10Gi' } },
        volumeMode: 'Filesystem',
      });
      if (!o.status) {
        o.status = spec.volumeName
          ? { accessModes: spec.accessModes, capacity: rec(rec(spec.resources).requests), phase: 'Bound' }
          : { phase: 'Pending' };
      }
      break;
    case 'PersistentVolume':
      o.spec = spec;
      defaults(spec, {
        accessModes: ['ReadWriteOnce'],
        capacity: { storage: '10Gi' },
        persistentVolumeReclaimPolicy: 'Delete',
        volumeMode: 'Filesystem',
      });
      if (!o.status)
        o.status = { lastPhaseTransitionTime: meta.creationTimestamp, phase: spec.claimRef ? 'Bound' : 'Available' };
      break;
    case 'Node': {
      const name = String(meta.name);
      meta.labels = {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        ...rec(meta.labels),
      };
      if (!o.status) o.status = {};
      const st = rec(o.status);
      if (!st.conditions) {
        const at = meta.creationTimestamp;
        st.conditions = [
          ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
          ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
          ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
          ['Ready', 'True', 'KubeletReady'],
        ].map(([type, status, reason]) => ({
          lastHeartbeatTime: at,
          lastTransitionTime: at,
          message: `kubelet ${reason}`,
          reason,
          status,
          type,
        }));
      }
      const n = Number(/(\d+)$/.exec(name)?.[1] ?? '1');
      const resources = { cpu: '8', 'ephemeral-storage': '104845292Ki', memory: '32386524Ki', pods: '110' };
      defaults(st, {
        addresses: [
          { address: `10.0.${Math.floor(n / 250)}.${(n % 250) + 10}`, type: 'InternalIP' },
          { address: name, type: 'Hostname' },
        ],
        allocatable: { ...resources, cpu: '7910m', memory: '31235548Ki' },
        capacity: resources,
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          architecture: 'amd64',
          containerRuntimeVersion: 'containerd://1.7.22',
          kernelVersion: '6.1.112',
          kubeProxyVersion: 'v1.30.4',
          kubeletVersion: 'v1.30.4',
          operatingSystem: 'linux',
          osImage: 'Ubuntu 22.04.5 LTS',
        },
      });
      o.spec = spec;
      break;
    }
    case 'Event':
      defaults(o, { count: 1, type: 'Normal', eventTime: null, reportingComponent: '', reportingInstance: '' });
      defaults(o, {
        firstTimestamp: o.lastTimestamp ?? meta.creationTimestamp,
        lastTimestamp: o.firstTimestamp ?? meta.creationTimestamp,
      });
      if (!o.source) o.source = { component: 'kubelet' };
      if (o.reportingComponent === '') o.reportingComponent = rec(o.source).component ?? '';
      if (o.reportingInstance === '' && rec(o.source).host) o.reportingInstance = rec(o.source).host;
      break;
    case 'StorageClass':
      defaults(o, { reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
      break;
    case 'Secret':
      secretDefaults(o);
      break;
    case 'Service':
      o.spec = spec;
      serviceDefaults(spec, String(meta.namespace), String(meta.name));
      if (!o.status) o.status = { loadBalancer: {} };
      break;
    case 'Namespace':
      defaults(o, { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
      meta.labels = { 'kubernetes.io/metadata.name': String(meta.name), ...rec(meta.labels) };
      break;
    case 'DaemonSet':
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'Job':
    case 'CronJob':
      defaults(meta, { generation: 1 });
      if (kind === 'DaemonSet')
        defaults(spec, {
          revisionHistoryLimit: 10,
          updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 }, type: 'RollingUpdate' },
        });
      if (kind === 'CronJob')
        defaults(spec, {
          concurrencyPolicy: 'Allow',
          failedJobsHistoryLimit: 1,
          successfulJobsHistoryLimit: 3,
          suspend: false,
        });
      if (!o.status) o.status = {};
      break;
  }
}

/** The API server folds `stringData` into base64 `data` and defaults the type. */
function secretDefaults(o: Rec): void {
  defaults(o, { type: 'Opaque' });
  const plain = rec(o.stringData);
  if (Object.keys(plain).length > 0) {
    const data = rec(o.data);
    for (const [k, v] of Object.entries(plain)) data[k] = Buffer.from(String(v)).toString('base64');
    o.data = data;
  }
  delete o.stringData;
}

function serviceDefaults(spec: Rec, namespace: string, name: string): void {
  let h = 0;
  for (const ch of `${namespace}/${name}`) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  const clusterIP = spec.clusterIP ?? `10.96.${(h >>> 8) % 250}.${(h % 250) + 2}`;
  defaults(spec, {
    type: 'ClusterIP',
    clusterIP,
    clusterIPs: [clusterIP],
    internalTrafficPolicy: 'Cluster',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    sessionAffinity: 'None',
  });
  for (const p of (spec.ports as Rec[] | undefined) ?? []) defaults(p, { protocol: 'TCP', targetPort: p.port });
}

/** First pass: times resolved against `base`, metadata and API-server defaults filled. Returns a new object. */
export function materialize(input: KubeObject, base: number, uidSeed: string, resources: Resources): KubeObject {
  const o = structuredClone(input) as Rec;
  const kind = String(o.kind);
  const res = resources.ofKind(kind);
  resolveTimes(o, base);
  const meta = rec(o.metadata);
  o.metadata = meta;
  if (res) o.apiVersion = apiVersionOf(res);
  if (kind === 'Event' && !meta.namespace) meta.namespace = rec(o.involvedObject).namespace ?? 'default';
  if (res?.namespaced && !meta.namespace) meta.namespace = 'default';
  if (kind === 'Event' && !meta.name)
    meta.name = `${rec(o.involvedObject).name}.${stableSuffix(`${uidSeed}${o.reason}`, 16)}`;
  if (!meta.creationTimestamp) meta.creationTimestamp = formatTime(base);
  if (!meta.uid)
    meta.uid = stableUid(`${uidSeed}|${kind}|${meta.namespace ?? ''}|${meta.name}|${meta.creationTimestamp}`);
  // Templates in real objects carry `creationTimestamp: null`; keep that quirk so readers cope with it.
  const tmpl = rec(rec(o.spec).template);
  if (rec(o.spec).template && rec(tmpl.metadata).creationTimestamp === undefined)
    tmpl.metadata = { creationTimestamp: null, ...rec(tmpl.metadata) };
  kindDefaults(o, kind);
  return o as KubeObject;
}

function templateOf(owner: KubeObject | undefined, lookup: Lookup, pod: Pod): Rec | undefined {
  if (!owner) return undefined;
  if (owner.kind === 'DaemonSet') {
    // A DaemonSet pod runs its own revision's template, not necessarily the DaemonSet's current one.
    const hash = pod.metadata?.labels?.['controller-revision-hash'];
    const cr = hash
      ? lookup('ControllerRevision', owner.metadata?.namespace, `${owner.metadata?.name}-${hash}`)
      : undefined;
    const t = rec(rec(rec(cr?.data).spec).template);
    if (t.spec) return t;
  }
  const t = rec(rec(owner.spec).template);
  if (owner.kind === 'CronJob') return rec(rec(rec(t.spec).template));
  return t.spec ? t : undefined;
}

/** Second pass: owner uids, event involvedObject uids, pod specs from their owner's template, pod status. */
export function resolveRefs(o: KubeObject, lookup: Lookup, resources: Resources): void {
  const meta = o.metadata ?? {};
  const ns = meta.namespace;
  for (const r of meta.ownerReferences ?? []) {
    const owner = lookup(r.kind ?? '', ns, r.name ?? '');
    const res = resources.ofKind(r.kind);
    const full = r as Rec;
    if (!r.uid && owner?.metadata?.uid) r.uid = owner.metadata.uid;
    if (!r.apiVersion && res) r.apiVersion = apiVersionOf(res);
    defaults(full, { blockOwnerDeletion: true, controller: true });
  }
  if (o.kind === 'Event') {
    const io = rec(o.involvedObject);
    io.kind ??= 'Pod';
    const target = lookup(
      String(io.kind),
      (io.namespace as string | undefined) ?? (resources.ofKind(String(io.kind))?.namespaced ? ns : undefined),
      String(io.name),
    );
    if (target?.metadata?.uid && !io.uid) io.uid = target.metadata.uid;
    if (!io.apiVersion) io.apiVersion = target?.apiVersion ?? 'v1';
    if (target?.metadata?.namespace && !io.namespace) io.namespace = target.metadata.namespace;
  }
  if (o.kind === 'Pod') preparePod(o as Pod, lookup);
}

function preparePod(pod: Pod, lookup: Lookup): void {
  const spec = (pod.spec ??= {});
  const ref = (pod.metadata?.ownerReferences ?? []).find((r) => r.controller) ?? pod.metadata?.ownerReferences?.[0];
  if (!spec.containers && ref) {
    const t = templateOf(lookup(ref.kind ?? '', pod.metadata?.namespace, ref.name ?? ''), lookup, pod);
    if (t) {
      Object.assign(spec, structuredClone({ ...rec(t.spec), ...spec }));
      pod.metadata = {
        ...pod.metadata,
        labels: { ...(rec(rec(t.metadata).labels) as Record<string, string>), ...pod.metadata?.labels },
      };
    }
  }
  podSpecDefaults(spec as Rec);
  const st = rec(pod.status);
  if (!st.containerStatuses && st.conditions === undefined) {
    const created = Date.parse(pod.metadata?.creationTimestamp ?? '') || 0;
    const reason = st.reason;
    pod.status = {
      ...podStatus(pod, stateOfPhase(pod, st.phase as string | undefined), created + 3000, created + 1000),
    };
    if (reason) (pod.status as Rec).reason = reason;
  }
}
