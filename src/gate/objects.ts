// The two objects the gate creates per node: a probe pod pinned to the node, and a fresh claim it mounts.
// Ownership: the claim is owned by the pod (ownerReference to the pod's uid), so deleting the pod lets the garbage
// collector remove the claim even if the gate dies between its two deletes; the pod is created first for that
// reason (the kubelet simply waits for the claim). Both carry the managed-by and run labels for `--cleanup`.
import type { PersistentVolumeClaim, Pod } from '../domain/objects.js';
import { MANAGED_BY, MANAGED_BY_LABEL, MOUNT_PATH, NODE_ANNOTATION, PROBE_SCRIPT, RUN_LABEL } from './plan.js';

/** What the objects for one node need. */
export interface ProbeSpec {
  runId: string;
  /** Position of the node in the run, for short unique names. */
  index: number;
  node: string;
  namespace: string;
  storageClass: string;
  accessMode: string;
  size: string;
  image: string;
  /** Seconds after which the kubelet fails the pod by itself, should the gate be killed outright. */
  deadlineSeconds: number;
  /** Set for WaitForFirstConsumer classes: the scheduler never sees a pod with spec.nodeName, so we select the node. */
  selectedNode?: boolean;
}

/** The name both objects of one probe share. */
export function probeName(s: Pick<ProbeSpec, 'runId' | 'index'>): string {
  return `rwx-gate-${s.runId}-${s.index}`;
}

function labels(s: ProbeSpec): Record<string, string> {
  return { [MANAGED_BY_LABEL]: MANAGED_BY, [RUN_LABEL]: s.runId };
}

/** The probe pod: spec.nodeName pins it (no scheduler), restartPolicy Never, the probe script, the claim at MOUNT_PATH. */
export function probePod(s: ProbeSpec): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: probeName(s),
      namespace: s.namespace,
      labels: labels(s),
      annotations: { [NODE_ANNOTATION]: s.node },
    },
    spec: {
      nodeName: s.node,
      restartPolicy: 'Never',
      activeDeadlineSeconds: s.deadlineSeconds,
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
      containers: [
        {
          name: 'probe',
          image: s.image,
          command: ['sh', '-c', PROBE_SCRIPT],
          env: [{ name: 'RWX_GATE_TOKEN', value: `${probeName(s)}@${s.node}` }],
          volumeMounts: [{ name: 'data', mountPath: MOUNT_PATH }],
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        },
      ],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: probeName(s) } }],
    },
  };
}

/** The fresh claim, owned by the pod (`podUid` from the create response). */
export function probeClaim(s: ProbeSpec, podUid: string): PersistentVolumeClaim {
  const annotations: Record<string, string> = { [NODE_ANNOTATION]: s.node };
  if (s.selectedNode) annotations['volume.kubernetes.io/selected-node'] = s.node;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: probeName(s),
      namespace: s.namespace,
      labels: labels(s),
      annotations,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: probeName(s), uid: podUid }],
    },
    spec: {
      accessModes: [s.accessMode],
      storageClassName: s.storageClass,
      resources: { requests: { storage: s.size } },
    } as PersistentVolumeClaim['spec'],
  };
}
