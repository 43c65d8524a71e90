// The real GateKube: @kubernetes/client-node's typed APIs, with every failure turned into one RwxError.
import { CoreV1Api, StorageV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { RwxError } from '../errors.js';
import type { KubeEvent, Node, PersistentVolumeClaim, Pod, StorageClass } from '../domain/objects.js';
import { statusError, unreachableError } from '../kube/status.js';
import type { GateKube } from './kube.js';

/** Turns a client-node failure into an RwxError naming what we were doing (the status mapping is src/kube's). */
export function kubeError(e: unknown, what: string): RwxError {
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'number') {
    const body = (e as { body?: unknown }).body;
    return statusError(code, body, what, { forbiddenHint: 'see deploy/gate/rbac.yaml', cause: e });
  }
  return unreachableError(e, { what });
}

function isNotFound(e: unknown): boolean {
  return (e as { code?: unknown }).code === 404;
}

/** Plain JSON of a client-node model object (Dates become RFC 3339 strings, as the domain types expect). */
function plain<T>(o: unknown): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

/** A GateKube over a loaded KubeConfig. */
export function clientGateKube(kc: KubeConfig): GateKube {
  const core = kc.makeApiClient(CoreV1Api);
  const storage = kc.makeApiClient(StorageV1Api);
  return {
    listNodes: () => items<Node>('list nodes', () => core.listNode()),
    getStorageClass: (name) =>
      maybe<StorageClass>(`get storageclass ${name}`, () => storage.readStorageClass({ name })),
    createPod: (namespace, pod) =>
      call<Pod>(`create pod ${namespace}/${pod.metadata?.name}`, () =>
        core.createNamespacedPod({ namespace, body: pod as never }),
      ),
    createClaim: (namespace, claim) =>
      call<PersistentVolumeClaim>(`create claim ${namespace}/${claim.metadata?.name}`, () =>
        core.createNamespacedPersistentVolumeClaim({ namespace, body: claim as never }),
      ),
    getPod: (namespace, name) =>
      maybe<Pod>(`get pod ${namespace}/${name}`, () => core.readNamespacedPod({ namespace, name })),
    getClaim: (namespace, name) =>
      maybe<PersistentVolumeClaim>(`get claim ${namespace}/${name}`, () =>
        core.readNamespacedPersistentVolumeClaim({ namespace, name }),
      ),
    eventsFor: (namespace, name) =>
      items<KubeEvent>(`list events in ${namespace}`, () =>
        core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` }),
      ),
    listPods: (namespace, labelSelector) =>
      items<Pod>(`list pods in ${namespace}`, () => core.listNamespacedPod({ namespace, labelSelector })),
    listClaims: (namespace, labelSelector) =>
      items<PersistentVolumeClaim>(`list claims in ${namespace}`, () =>
        core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }),
      ),
    deletePod: (namespace, name) =>
      del(`delete pod ${namespace}/${name}`, () =>
        core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 }),
      ),
    deleteClaim: (namespace, name) =>
      del(`delete claim ${namespace}/${name}`, () => core.deleteNamespacedPersistentVolumeClaim({ namespace, name })),
  };
}

/** `f`'s answer as plain JSON; any failure is kubeError's, naming `what`. */
async function call<T>(what: string, f: () => Promise<unknown>): Promise<T> {
  try {
    return plain<T>(await f());
  } catch (e) {
    throw kubeError(e, what);
  }
}

/** The items of the list `f` reads (none when the answer has no items). */
async function items<T>(what: string, f: () => Promise<unknown>): Promise<T[]> {
  return (await call<{ items?: T[] }>(what, f)).items ?? [];
}

/** As call, but undefined when the object does not exist (404). */
async function maybe<T>(what: string, f: () => Promise<unknown>): Promise<T | undefined> {
  try {
    return plain<T>(await f());
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw kubeError(e, what);
  }
}

/** Deletes through `f`; an object already gone (404) is deleted. */
async function del(what: string, f: () => Promise<unknown>): Promise<void> {
  try {
    await f();
  } catch (e) {
    if (!isNotFound(e)) throw kubeError(e, what);
  }
}
