// Kubernetes objects as the API server stores and serves them: JSON with a few fields the simulator's controllers
// and kubelet read. Every field is optional and anything else passes through untouched, whatever the kind.

/** A JSON object. */
export type Rec = Record<string, unknown>;

/** `v` when it is an object, else an empty one (for reading nested optional fields). */
export const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' ? (v as Rec) : {});

/** A reference from an object to its owner. */
export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** metav1.ObjectMeta, the fields the simulator fills in or reads. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  ownerReferences?: OwnerReference[] | null;
  finalizers?: string[] | null;
}

/** Any stored object, of any kind. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** A container in a pod spec. */
export interface Container {
  name?: string;
  image?: string;
  [field: string]: unknown;
}

/** A container's state as the kubelet reports it. */
export interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string; message?: string };
    running?: { startedAt?: string };
    terminated?: { reason?: string; exitCode?: number; startedAt?: string; finishedAt?: string };
  };
  [field: string]: unknown;
}

/** A pod condition. */
export interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  [field: string]: unknown;
}

/** A Pod, with the spec and status fields the kubelet and controllers use. */
export interface Pod extends KubeObject {
  spec?: {
    nodeName?: string;
    restartPolicy?: string;
    containers?: Container[];
    volumes?: { name?: string; persistentVolumeClaim?: { claimName?: string }; [field: string]: unknown }[];
    [field: string]: unknown;
  };
  status?: {
    phase?: string;
    reason?: string;
    startTime?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
    [field: string]: unknown;
  };
}

/** A ControllerRevision: a DaemonSet's or StatefulSet's numbered template. */
export interface ControllerRevision extends KubeObject {
  revision?: number;
  data?: { spec?: { template?: Rec } };
}

/** "namespace/name" for namespaced objects, "name" otherwise: the store key, and etcd's list order. */
export function nsKey(namespace: string | undefined | null, name: string | undefined | null): string {
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** The store key of an object. */
export function storeKey(obj: KubeObject): string {
  return nsKey(obj.metadata?.namespace, obj.metadata?.name);
}

/** The controlling owner reference (controller: true), else the first owner, else undefined. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  const refs = obj.metadata?.ownerReferences ?? [];
  return refs.find((r) => r.controller) ?? refs[0];
}
