// Kubernetes objects as the bot reads them: the JSON shapes `kubectl get -o json` prints, reduced to the fields
// the bot uses. Every field is optional because real clusters omit or null them; readers must cope.
// Timestamps are RFC 3339 strings (the projection in src/kube turns client-node Date objects back into strings).

/** Object metadata fields the bot reads. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  ownerReferences?: OwnerReference[] | null;
  finalizers?: string[] | null;
}

/** A reference from an object to its controller or owner. */
export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

/** Any Kubernetes object: kind, apiVersion and metadata are all the generic code relies on. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string } | null;
  running?: { startedAt?: string | null } | null;
  terminated?: { reason?: string; exitCode?: number; finishedAt?: string | null } | null;
}

export interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  image?: string;
  state?: ContainerState | null;
}

export interface VolumeMount {
  name?: string;
  mountPath?: string;
  mountPropagation?: string | null;
  readOnly?: boolean;
  subPath?: string;
}

export interface Container {
  name?: string;
  image?: string;
  args?: string[] | null;
  command?: string[] | null;
  volumeMounts?: VolumeMount[] | null;
  ports?: { name?: string; containerPort?: number }[] | null;
  securityContext?: {
    privileged?: boolean | null;
    capabilities?: { add?: string[] | null; drop?: string[] | null } | null;
    [field: string]: unknown;
  } | null;
  [field: string]: unknown;
}

export interface Volume {
  name?: string;
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean } | null;
  hostPath?: { path?: string; type?: string } | null;
  ephemeral?: unknown;
  [field: string]: unknown;
}

export interface PodSpec {
  nodeName?: string | null;
  volumes?: Volume[] | null;
  containers?: Container[] | null;
  initContainers?: Container[] | null;
  terminationGracePeriodSeconds?: number | null;
  nodeSelector?: Record<string, string> | null;
  serviceAccountName?: string;
  [field: string]: unknown;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: {
    phase?: string;
    reason?: string;
    conditions?: Condition[] | null;
    containerStatuses?: ContainerStatus[] | null;
    initContainerStatuses?: ContainerStatus[] | null;
    startTime?: string | null;
    podIP?: string | null;
  };
}

export interface PersistentVolumeClaim extends KubeObject {
  spec?: {
    accessModes?: string[] | null;
    storageClassName?: string | null;
    volumeName?: string | null;
    volumeMode?: string | null;
  };
  status?: { phase?: string; accessModes?: string[] | null };
}

export interface PersistentVolume extends KubeObject {
  spec?: {
    accessModes?: string[] | null;
    storageClassName?: string | null;
    persistentVolumeReclaimPolicy?: string;
    claimRef?: { namespace?: string; name?: string; uid?: string } | null;
    csi?: { driver?: string; volumeHandle?: string } | null;
    nfs?: { server?: string; path?: string } | null;
  };
  status?: { phase?: string };
}

export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: { key?: string; effect?: string }[] | null };
  status?: { conditions?: Condition[] | null };
}

export interface KubeEvent extends KubeObject {
  involvedObject?: { kind?: string; namespace?: string; name?: string; uid?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number | null;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string } | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
}

export interface StorageClass extends KubeObject {
  provisioner?: string;
  volumeBindingMode?: string | null;
  parameters?: Record<string, string> | null;
}

export interface VolumeAttachment extends KubeObject {
  spec?: { attacher?: string; nodeName?: string; source?: { persistentVolumeName?: string | null } };
  status?: {
    attached?: boolean;
    attachError?: { message?: string; time?: string } | null;
    detachError?: { message?: string; time?: string } | null;
  } | null;
}

export interface CSIDriver extends KubeObject {
  spec?: { attachRequired?: boolean | null; podInfoOnMount?: boolean | null; volumeLifecycleModes?: string[] | null };
}

export interface CSINode extends KubeObject {
  spec?: { drivers?: { name?: string; nodeID?: string }[] | null };
}

export interface PodTemplate {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

export interface DaemonSet extends KubeObject {
  spec?: {
    selector?: { matchLabels?: Record<string, string> | null } | null;
    template?: PodTemplate;
    updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string } | null } | null;
  };
  status?: {
    desiredNumberScheduled?: number;
    currentNumberScheduled?: number;
    updatedNumberScheduled?: number;
    numberReady?: number;
    numberAvailable?: number;
    observedGeneration?: number;
  };
}

export interface ControllerRevision extends KubeObject {
  revision?: number;
  /** For DaemonSets: a strategic-merge patch `{spec: {template: {...}}}` with the full pod template. */
  data?: { spec?: { template?: PodTemplate } } | null;
}

export interface Job extends KubeObject {
  spec?: { suspend?: boolean | null; activeDeadlineSeconds?: number | null };
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    startTime?: string | null;
    completionTime?: string | null;
    conditions?: Condition[] | null;
  };
}

export interface CronJob extends KubeObject {
  spec?: {
    schedule?: string;
    timeZone?: string | null;
    suspend?: boolean | null;
    startingDeadlineSeconds?: number | null;
    concurrencyPolicy?: string;
  };
  status?: {
    lastScheduleTime?: string | null;
    lastSuccessfulTime?: string | null;
    active?: { name?: string; namespace?: string; uid?: string }[] | null;
  };
}

export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    renewTime?: string | null;
    acquireTime?: string | null;
  };
}
