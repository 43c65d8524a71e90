// The resources the simulator serves: every kind the bot reads (src/domain/kinds.ts) plus the few a scenario needs
// to look like a real cluster (namespaces, the Deployment/ReplicaSet/StatefulSet owners of workload pods) and the
// one write-only resource the bot uses (selfsubjectaccessreviews).
import { KINDS, apiVersionOf, type KindInfo } from '../domain/kinds.js';

/** One served resource: its API coordinates plus what discovery advertises. */
export interface SimResource extends KindInfo {
  singular: string;
  shortNames: string[];
  verbs: string[];
  /** Served only for POST (selfsubjectaccessreviews): never stored, listed or watched. */
  createOnly?: boolean;
}

const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'watch'];

const SHORT: Record<string, string[]> = {
  pods: ['po'],
  persistentvolumeclaims: ['pvc'],
  persistentvolumes: ['pv'],
  nodes: ['no'],
  events: ['ev'],
  storageclasses: ['sc'],
  daemonsets: ['ds'],
  cronjobs: ['cj'],
  namespaces: ['ns'],
  deployments: ['deploy'],
  replicasets: ['rs'],
  statefulsets: ['sts'],
};

const EXTRA: KindInfo[] = [
  { kind: 'Namespace', resource: 'namespaces', group: '', version: 'v1', namespaced: false },
  { kind: 'Deployment', resource: 'deployments', group: 'apps', version: 'v1', namespaced: true },
  { kind: 'ReplicaSet', resource: 'replicasets', group: 'apps', version: 'v1', namespaced: true },
  { kind: 'StatefulSet', resource: 'statefulsets', group: 'apps', version: 'v1', namespaced: true },
];

/** Every stored resource, in a stable order. */
export const RESOURCES: SimResource[] = [...Object.values(KINDS), ...EXTRA].map((k) => ({
  ...k,
  singular: k.kind.toLowerCase(),
  shortNames: SHORT[k.resource] ?? [],
  verbs: READ_WRITE,
}));

/** The access-review resource: POST only, answered from the scenario's permissions. */
export const SSAR: SimResource = {
  kind: 'SelfSubjectAccessReview',
  resource: 'selfsubjectaccessreviews',
  group: 'authorization.k8s.io',
  version: 'v1',
  namespaced: false,
  singular: 'selfsubjectaccessreview',
  shortNames: [],
  verbs: ['create'],
  createOnly: true,
};

const ALL = [...RESOURCES, SSAR];
const BY_PATH = new Map(ALL.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));
const BY_KIND = new Map(RESOURCES.map((r) => [r.kind, r]));

/** The resource served at group/version/resource, or undefined. `group` is '' for the core group. */
export function resourceAt(group: string, version: string, resource: string): SimResource | undefined {
  return BY_PATH.get(`${group}/${version}/${resource}`);
}

/** The stored resource for a kind name ('Pod'), or undefined for kinds the simulator does not serve. */
export function resourceOfKind(kind: string | undefined): SimResource | undefined {
  return kind === undefined ? undefined : BY_KIND.get(kind);
}

/** Every served resource (stored ones and selfsubjectaccessreviews), for discovery. */
export function allResources(): SimResource[] {
  return ALL;
}

/** Store key of a resource: "group/resource", e.g. "apps/daemonsets" or "/pods". */
export function resourceKey(r: KindInfo): string {
  return `${r.group}/${r.resource}`;
}

/** apiVersion of a served resource. */
export function apiVersionOfResource(r: KindInfo): string {
  return apiVersionOf(r);
}
