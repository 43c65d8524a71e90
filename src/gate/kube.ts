// GateKube: the few API calls the gate makes, behind an interface we own. The real adapter (client.ts) uses
// @kubernetes/client-node; the tests run it against the API simulator over real HTTP.
import type { KubeEvent, Node, PersistentVolumeClaim, Pod, StorageClass } from '../domain/objects.js';

/** The gate's view of the API. Errors are RwxError (KUBE_*, NOT_FOUND); deletes of absent objects succeed. */
export interface GateKube {
  listNodes(): Promise<Node[]>;
  /** The StorageClass, or undefined when it does not exist. */
  getStorageClass(name: string): Promise<StorageClass | undefined>;
  createPod(namespace: string, pod: Pod): Promise<Pod>;
  createClaim(namespace: string, claim: PersistentVolumeClaim): Promise<PersistentVolumeClaim>;
  /** The pod, or undefined when it is gone. */
  getPod(namespace: string, name: string): Promise<Pod | undefined>;
  /** The claim, or undefined when it is gone. */
  getClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
  /** Events about one object (involvedObject.name), newest information for the failure detail. */
  eventsFor(namespace: string, name: string): Promise<KubeEvent[]>;
  /** Pods and claims with these labels (`k=v,k2=v2`), for cleanup. */
  listPods(namespace: string, labelSelector: string): Promise<Pod[]>;
  listClaims(namespace: string, labelSelector: string): Promise<PersistentVolumeClaim[]>;
  deletePod(namespace: string, name: string): Promise<void>;
  deleteClaim(namespace: string, name: string): Promise<void>;
}
