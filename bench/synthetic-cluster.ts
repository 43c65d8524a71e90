// A synthetic cluster for benchmarks: deterministic (seeded), in the JSON shapes `kubectl get -o json` prints
// (without managedFields, as kubectl hides them), with realistic-ish object sizes and a sprinkling of every
// RWX strand. Reused by the triage bench (bench/run.ts) and the serve bench.
import { emptySnapshot, type Snapshot } from '../src/domain/snapshot.js';
import { KIND_KEYS } from '../src/domain/kinds.js';
import { objectKey } from '../src/domain/refs.js';
import type {
  KubeEvent,
  KubeObject,
  Node,
  Pod,
  PersistentVolumeClaim,
  PersistentVolume,
  VolumeAttachment,
} from '../src/domain/objects.js';

/** Size of a synthetic cluster. */
export interface ClusterSize {
  pods: number;
  nodes: number;
  claims: number;
}

/** The benchmark sizes: 15k..150k pods, 5k nodes and 30k claims at the top. */
export const BENCH_SIZES: readonly ClusterSize[] = [
  { pods: 15_000, nodes: 500, claims: 3_000 },
  { pods: 30_000, nodes: 1_000, claims: 6_000 },
  { pods: 60_000, nodes: 2_000, claims: 12_000 },
  { pods: 150_000, nodes: 5_000, claims: 30_000 },
];

/** The CSI driver the synthetic claims use. */
export const SYNTHETIC_DRIVER = 'csi.vmstore.tintri.com';

function byKey(a: KubeObject, b: KubeObject): number {
  const x = objectKey(a);
  const y = objectKey(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A small deterministic PRNG (mulberry32) so every run builds the same cluster. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const hex = (r: () => number, n: number): string => {
  let out = '';
  while (out.length < n)
    out += Math.floor(r() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, n);
};
const uid = (r: () => number): string => `${hex(r, 8)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 12)}`;

/**
 * Generates a cluster of the given size at time `now`: claims spread over 50 namespaces, about 3 pods per claim,
 * the remaining pods without claims; ~1% of claims in each non-OK strand. Same seed, same cluster.
 */
export function generateCluster(size: ClusterSize, now: number, seed = 42): Snapshot {
  const r = rng(seed);
  // uids of the kinds that had none before the simulator's bulk loading (which stores objects as given) come from
  // their own sequence, so `r`'s draws, and with them the cluster, are what they were.
  const ids = rng(seed + 1);
  const s = emptySnapshot();
  const nodeName = (i: number): string => `node-${String(i).padStart(5, '0')}`;
  const created = iso(now - 30 * 86_400_000);
  s.storageClasses.push(
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'vmstore-rwx', uid: uid(r), creationTimestamp: created },
      provisioner: SYNTHETIC_DRIVER,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
      parameters: { fstype: 'nfs', vmstore: 'vmstore-01.example.com' },
    },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'vmstore-rwx-wffc', uid: uid(r), creationTimestamp: created },
      provisioner: SYNTHETIC_DRIVER,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
      parameters: { fstype: 'nfs' },
    },
  );
  s.csiDrivers.push({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: { name: SYNTHETIC_DRIVER, uid: uid(r), creationTimestamp: created },
    spec: { attachRequired: true, podInfoOnMount: true, volumeLifecycleModes: ['Persistent'] },
  });
  s.leases.push({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: SYNTHETIC_DRIVER.replace(/\./g, '-'),
      namespace: 'vmstore-csi',
      uid: uid(ids),
      creationTimestamp: created,
    },
    spec: { holderIdentity: 'vmstore-csi-controller-0', leaseDurationSeconds: 15, renewTime: iso(now - 3000) },
  });
  for (let i = 0; i < size.nodes; i++) {
    const name = nodeName(i);
    s.nodes.push(<Node>(<unknown>{
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        uid: uid(r),
        creationTimestamp: created,
        labels: {
          'kubernetes.io/hostname': name,
          'kubernetes.io/arch': 'amd64',
          'kubernetes.io/os': 'linux',
          'node.kubernetes.io/instance-type': 'm5.4xlarge',
          'topology.kubernetes.io/zone': `zone-${i % 3}`,
        },
      },
      spec: {
        podCIDR: `10.244.${i % 256}.0/24`,
        podCIDRs: [`10.244.${i % 256}.0/24`],
        providerID: `aws:///zone-${i % 3}/i-${hex(r, 17)}`,
        taints: null,
      },
      status: nodeStatus(r, name, created),
    }));
    // ~0.2% of nodes lack the driver registration: "works on some nodes, not others".
    const drivers = r() < 0.002 ? [] : [{ name: SYNTHETIC_DRIVER, nodeID: name }];
    s.csiNodes.push({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: { name, uid: uid(r), creationTimestamp: created },
      spec: { drivers },
    });
    s.leases.push({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: 'kube-node-lease', uid: uid(ids), creationTimestamp: created },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: iso(now - 5000) },
    });
  }
  let pod = 0;
  const addPod = (
    ns: string,
    claim: string | undefined,
    node: string,
    kind: 'ok' | 'creating' | 'terminating',
  ): void => {
    const name = `app-${pod++}-${hex(r, 5)}`;
    s.pods.push(podObject(r, ns, name, claim, node, kind, now));
    if (kind === 'creating')
      s.events.push(
        eventObject(
          r,
          ns,
          'Pod',
          name,
          'FailedMount',
          `MountVolume.SetUp failed for volume "${claim}" : rpc error: code = DeadlineExceeded`,
          now,
        ),
      );
  };
  for (let c = 0; c < size.claims; c++) {
    const ns = `team-${c % 50}`;
    const name = `data-${c}`;
    const pv = `pvc-${uid(r)}`;
    const roll = r();
    const strand =
      roll < 0.01
        ? 'pending'
        : roll < 0.02
          ? 'creating'
          : roll < 0.03
            ? 'terminating'
            : roll < 0.04
              ? 'stale'
              : roll < 0.045
                ? 'nopv'
                : 'ok';
    const bound = strand !== 'pending';
    s.pvcs.push(
      pvcObject(
        r,
        ns,
        name,
        bound ? pv : null,
        strand === 'pending' && c % 2 ? 'vmstore-rwx-wffc' : 'vmstore-rwx',
        now,
      ),
    );
    if (strand === 'pending' && c % 2 === 0)
      s.events.push(
        eventObject(
          r,
          ns,
          'PersistentVolumeClaim',
          name,
          'ProvisioningFailed',
          'failed to provision volume with StorageClass "vmstore-rwx": rpc error: code = Unavailable',
          now,
        ),
      );
    if (bound && strand !== 'nopv') s.pvs.push(pvObject(r, ns, name, pv, now));
    const home = Math.floor(r() * size.nodes);
    if (strand === 'pending') continue;
    for (let k = 0; k < 3; k++) {
      const kind =
        k === 0 && strand === 'creating' ? 'creating' : k === 0 && strand === 'terminating' ? 'terminating' : 'ok';
      addPod(ns, name, nodeName((home + k) % size.nodes), kind);
    }
    if (r() < 0.2 || strand === 'stale') {
      const nodes = strand === 'stale' ? [home, home + 7] : [home];
      for (const n of nodes) s.volumeAttachments.push(attachmentObject(r, pv, nodeName(n % size.nodes), now));
    }
  }
  while (pod < size.pods) addPod(`team-${pod % 50}`, undefined, nodeName(pod % size.nodes), 'ok');
  // The API lists objects in storage-key order (namespace, then name), so the synthetic lists are in that order too.
  for (const k of KIND_KEYS) (s[k] as KubeObject[]).sort(byKey);
  return s;
}

/** A node's status as the kubelet reports it: conditions, capacity, addresses, nodeInfo and its cached images. */
function nodeStatus(r: () => number, name: string, created: string): Record<string, unknown> {
  const resources = {
    cpu: '16',
    'ephemeral-storage': '203070420Ki',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: '65025360Ki',
    pods: '110',
  };
  return {
    addresses: [
      { type: 'InternalIP', address: `10.0.${Math.floor(r() * 255)}.${Math.floor(r() * 255)}` },
      { type: 'Hostname', address: name },
      { type: 'InternalDNS', address: `${name}.ec2.internal` },
    ],
    allocatable: { ...resources, cpu: '15890m', memory: '63001392Ki' },
    capacity: resources,
    conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((t) => ({
      type: t,
      status: t === 'Ready' ? 'True' : 'False',
      reason: t === 'Ready' ? 'KubeletReady' : `KubeletHasNo${t}`,
      message: t === 'Ready' ? 'kubelet is posting ready status' : `kubelet has no ${t.toLowerCase()}`,
      lastHeartbeatTime: created,
      lastTransitionTime: created,
    })),
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    images: Array.from({ length: 20 }, (_, i) => ({
      names: [
        `registry.example.com/team/image-${i}@sha256:${hex(r, 64)}`,
        `registry.example.com/team/image-${i}:1.${i}.0`,
      ],
      sizeBytes: 10_000_000 + Math.floor(r() * 500_000_000),
    })),
    nodeInfo: {
      architecture: 'amd64',
      bootID: uid(r),
      containerRuntimeVersion: 'containerd://1.7.22',
      kernelVersion: '6.1.112-124.190.amzn2023.x86_64',
      kubeProxyVersion: 'v1.31.2',
      kubeletVersion: 'v1.31.2',
      machineID: hex(r, 32),
      operatingSystem: 'linux',
      osImage: 'Amazon Linux 2023.6.20241121',
      systemUUID: uid(r),
    },
  };
}

function podObject(
  r: () => number,
  ns: string,
  name: string,
  claim: string | undefined,
  node: string,
  kind: string,
  now: number,
): Pod {
  const start = iso(now - 86_400_000 - Math.floor(r() * 86_400_000));
  // One ReplicaSet per 30 consecutive pods, as a Deployment would own them.
  const group = Math.floor(Number(name.split('-')[1]) / 30);
  const hash = `rs${String(group).padStart(8, '0')}`;
  const volumes: NonNullable<NonNullable<Pod['spec']>['volumes']> = [
    {
      name: 'kube-api-access',
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        ],
      },
    },
    { name: 'config', configMap: { name: 'app-config', defaultMode: 420 } },
  ];
  if (claim) volumes.unshift({ name: 'data', persistentVolumeClaim: { claimName: claim } });
  const waiting = kind === 'creating';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      uid: uid(r),
      resourceVersion: String(Math.floor(r() * 1e8)),
      creationTimestamp: start,
      generateName: `${name.slice(0, -5)}`,
      labels: {
        app: `app-${ns}`,
        'pod-template-hash': hash,
        'app.kubernetes.io/part-of': 'synthetic',
        'app.kubernetes.io/version': '1.4.2',
      },
      annotations: {
        'kubectl.kubernetes.io/restartedAt': start,
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `app-${ns}-${hash}`,
          uid: `00000000-0000-4000-8000-${String(group).padStart(12, '0')}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      ...(kind === 'terminating'
        ? {
            deletionTimestamp: iso(now - 1_800_000),
            deletionGracePeriodSeconds: 30,
            finalizers: ['example.com/protect'],
          }
        : {}),
    },
    spec: {
      nodeName: node,
      serviceAccountName: 'default',
      terminationGracePeriodSeconds: 30,
      volumes,
      containers: [
        {
          name: 'app',
          image: 'registry.example.com/team/app:1.4.2',
          imagePullPolicy: 'IfNotPresent',
          args: ['--config=/etc/app/config.yaml', '--listen=:8080'],
          env: [
            { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
            { name: 'LOG_LEVEL', value: 'info' },
          ],
          ports: [
            { containerPort: 8080, name: 'http', protocol: 'TCP' },
            { containerPort: 9090, name: 'metrics', protocol: 'TCP' },
          ],
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '250m', memory: '512Mi' } },
          readinessProbe: {
            httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' },
            periodSeconds: 10,
            failureThreshold: 3,
            successThreshold: 1,
            timeoutSeconds: 1,
          },
          volumeMounts: [
            ...(claim ? [{ name: 'data', mountPath: '/data' }] : []),
            { name: 'config', mountPath: '/etc/app' },
            { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
          ],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
      serviceAccount: 'default',
      tolerations: [
        { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
        { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
      ],
    },
    status: {
      phase: waiting ? 'Pending' : 'Running',
      startTime: start,
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }],
      podIP: '10.244.1.1',
      podIPs: [{ ip: '10.244.1.1' }],
      qosClass: 'Burstable',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((t) => ({
        type: t,
        status: waiting && t !== 'PodScheduled' && t !== 'Initialized' ? 'False' : 'True',
        lastProbeTime: null,
        lastTransitionTime: start,
      })),
      containerStatuses: [
        {
          name: 'app',
          ready: !waiting,
          restartCount: 0,
          image: 'registry.example.com/team/app:1.4.2',
          imageID: `registry.example.com/team/app@sha256:${hex(r, 64)}`,
          containerID: waiting ? undefined : `containerd://${hex(r, 64)}`,
          started: !waiting,
          lastState: {},
          volumeMounts: [
            ...(claim ? [{ name: 'data', mountPath: '/data' }] : []),
            { name: 'config', mountPath: '/etc/app' },
            {
              name: 'kube-api-access',
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              readOnly: true,
              recursiveReadOnly: 'Disabled',
            },
          ],
          state: waiting ? { waiting: { reason: 'ContainerCreating' } } : { running: { startedAt: start } },
        },
      ],
    },
  } as unknown as Pod;
}

function pvcObject(
  r: () => number,
  ns: string,
  name: string,
  pv: string | null,
  sc: string,
  now: number,
): PersistentVolumeClaim {
  const created = iso(now - 2 * 86_400_000);
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: ns,
      uid: uid(r),
      resourceVersion: String(Math.floor(r() * 1e8)),
      creationTimestamp: created,
      finalizers: ['kubernetes.io/pvc-protection'],
      annotations: pv
        ? {
            'pv.kubernetes.io/bind-completed': 'yes',
            'pv.kubernetes.io/bound-by-controller': 'yes',
            'volume.beta.kubernetes.io/storage-provisioner': SYNTHETIC_DRIVER,
            'volume.kubernetes.io/storage-provisioner': SYNTHETIC_DRIVER,
          }
        : { 'volume.kubernetes.io/storage-provisioner': SYNTHETIC_DRIVER },
    },
    spec: {
      accessModes: ['ReadWriteMany'],
      resources: { requests: { storage: '10Gi' } },
      storageClassName: sc,
      volumeMode: 'Filesystem',
      ...(pv ? { volumeName: pv } : {}),
    },
    status: pv
      ? { phase: 'Bound', accessModes: ['ReadWriteMany'], capacity: { storage: '10Gi' } }
      : { phase: 'Pending' },
  } as PersistentVolumeClaim;
}

function pvObject(r: () => number, ns: string, claim: string, pv: string, now: number): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: pv,
      uid: uid(r),
      creationTimestamp: iso(now - 2 * 86_400_000),
      annotations: {
        'pv.kubernetes.io/provisioned-by': SYNTHETIC_DRIVER,
        'volume.kubernetes.io/provisioner-deletion-secret-name': '',
      },
      finalizers: ['external-provisioner.volume.kubernetes.io/finalizer', 'kubernetes.io/pv-protection'],
    },
    spec: {
      accessModes: ['ReadWriteMany'],
      capacity: { storage: '10Gi' },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'vmstore-rwx',
      volumeMode: 'Filesystem',
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: ns,
        name: claim,
        uid: uid(r),
        resourceVersion: '1',
      },
      csi: {
        driver: SYNTHETIC_DRIVER,
        fsType: 'nfs',
        volumeHandle: `vmstore-01:/tintri/${pv}`,
        volumeAttributes: {
          'storage.kubernetes.io/csiProvisionerIdentity': `${Date.UTC(2026, 0, 1)}-8081-${SYNTHETIC_DRIVER}`,
        },
      },
    },
    status: { phase: 'Bound', lastPhaseTransitionTime: iso(now - 2 * 86_400_000) },
  } as PersistentVolume;
}

function attachmentObject(r: () => number, pv: string, node: string, now: number): VolumeAttachment {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: {
      name: `csi-${hex(r, 64)}`,
      uid: uid(r),
      creationTimestamp: iso(now - 86_400_000),
      annotations: { 'csi.alpha.kubernetes.io/node-id': node },
      finalizers: ['external-attacher/csi-vmstore-tintri-com'],
    },
    spec: { attacher: SYNTHETIC_DRIVER, nodeName: node, source: { persistentVolumeName: pv } },
    status: {
      attached: true,
      attachmentMetadata: null,
      detachError: null,
      attachError: null,
    } as VolumeAttachment['status'],
  };
}

function eventObject(
  r: () => number,
  ns: string,
  kind: string,
  name: string,
  reason: string,
  message: string,
  now: number,
): KubeEvent {
  const last = iso(now - Math.floor(r() * 600_000));
  return <KubeEvent>(<unknown>{
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${name}.${hex(r, 16)}`, namespace: ns, uid: uid(r), creationTimestamp: iso(now - 3_600_000) },
    involvedObject: { kind, namespace: ns, name, uid: uid(r), apiVersion: 'v1' },
    reason,
    message,
    type: 'Warning',
    count: 1 + Math.floor(r() * 40),
    firstTimestamp: iso(now - 3_600_000),
    lastTimestamp: last,
    eventTime: null,
    source: { component: kind === 'Pod' ? 'kubelet' : 'csi-provisioner', host: 'node' },
    reportingComponent: kind === 'Pod' ? 'kubelet' : SYNTHETIC_DRIVER,
    reportingInstance: 'node',
  });
}
