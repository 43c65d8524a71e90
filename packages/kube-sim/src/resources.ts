// The resources the simulator serves: its own table of what a v1.30 API server serves in the core, apps, batch,
// policy, storage.k8s.io and coordination.k8s.io groups (whatever a client reads or not), the write-only
// selfsubjectaccessreviews, and any custom resource a scenario declares. One table per simulator.
import { SimError } from './errors.js';

/** One served resource: its API coordinates plus what discovery advertises. */
export interface ResourceInfo {
  kind: string;
  /** Lower-case plural, as in URLs and RBAC rules. */
  resource: string;
  /** '' for the core group. */
  group: string;
  version: string;
  namespaced: boolean;
  singular: string;
  shortNames: string[];
  verbs: string[];
  categories: string[];
  /** Served only for POST (selfsubjectaccessreviews): never stored, listed or watched. */
  createOnly?: boolean;
}

/** A custom resource a scenario declares (what a CRD would say). */
export interface CustomResource {
  kind: string;
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  shortNames?: string[];
}

/** The verbs every stored resource serves (no update or patch: the simulator's clients only read and create). */
export const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'watch'];

type Row = [kind: string, resource: string, namespaced: boolean, shortNames?: string[], all?: boolean];

const GROUPS: [group: string, version: string, rows: Row[]][] = [
  [
    '',
    'v1',
    [
      ['ConfigMap', 'configmaps', true, ['cm']],
      ['Endpoints', 'endpoints', true, ['ep']],
      ['Event', 'events', true, ['ev']],
      ['LimitRange', 'limitranges', true, ['limits']],
      ['Namespace', 'namespaces', false, ['ns']],
      ['Node', 'nodes', false, ['no']],
      ['PersistentVolumeClaim', 'persistentvolumeclaims', true, ['pvc']],
      ['PersistentVolume', 'persistentvolumes', false, ['pv']],
      ['Pod', 'pods', true, ['po'], true],
      ['PodTemplate', 'podtemplates', true],
      ['ReplicationController', 'replicationcontrollers', true, ['rc'], true],
      ['ResourceQuota', 'resourcequotas', true, ['quota']],
      ['Secret', 'secrets', true],
      ['ServiceAccount', 'serviceaccounts', true, ['sa']],
      ['Service', 'services', true, ['svc'], true],
    ],
  ],
  [
    'apps',
    'v1',
    [
      ['ControllerRevision', 'controllerrevisions', true],
      ['DaemonSet', 'daemonsets', true, ['ds'], true],
      ['Deployment', 'deployments', true, ['deploy'], true],
      ['ReplicaSet', 'replicasets', true, ['rs'], true],
      ['StatefulSet', 'statefulsets', true, ['sts'], true],
    ],
  ],
  [
    'batch',
    'v1',
    [
      ['CronJob', 'cronjobs', true, ['cj'], true],
      ['Job', 'jobs', true, [], true],
    ],
  ],
  ['policy', 'v1', [['PodDisruptionBudget', 'poddisruptionbudgets', true, ['pdb']]]],
  [
    'storage.k8s.io',
    'v1',
    [
      ['CSIDriver', 'csidrivers', false],
      ['CSINode', 'csinodes', false],
      ['CSIStorageCapacity', 'csistoragecapacities', true],
      ['StorageClass', 'storageclasses', false, ['sc']],
      ['VolumeAttachment', 'volumeattachments', false],
    ],
  ],
  ['coordination.k8s.io', 'v1', [['Lease', 'leases', true]]],
];

/** Every built-in stored resource, in discovery order. */
export const BUILT_IN: readonly ResourceInfo[] = GROUPS.flatMap(([group, version, rows]) =>
  rows.map(([kind, resource, namespaced, shortNames = [], all = false]) => ({
    kind,
    resource,
    group,
    version,
    namespaced,
    singular: kind.toLowerCase(),
    shortNames,
    verbs: VERBS,
    categories: all ? ['all'] : [],
  })),
);

/** The access-review resource: POST only, answered from the scenario's permissions. */
export const SSAR: ResourceInfo = {
  kind: 'SelfSubjectAccessReview',
  resource: 'selfsubjectaccessreviews',
  group: 'authorization.k8s.io',
  version: 'v1',
  namespaced: false,
  singular: 'selfsubjectaccessreview',
  shortNames: [],
  verbs: ['create'],
  categories: [],
  createOnly: true,
};

/** Store key of a resource: "group/resource", e.g. "apps/daemonsets" or "/pods". */
export function resourceKey(r: { group: string; resource: string }): string {
  return `${r.group}/${r.resource}`;
}

/** apiVersion of a resource: "v1" for the core group, else "group/version". */
export function apiVersionOf(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** The resources one simulator serves: the built-in table plus a scenario's custom resources. */
export class Resources {
  private readonly stored: ResourceInfo[];
  private readonly byPath: Map<string, ResourceInfo>;
  private readonly byKind: Map<string, ResourceInfo>;

  /** Throws SimError('SCENARIO') when a custom resource reuses a built-in kind or resource path. */
  constructor(custom: readonly CustomResource[] = []) {
    const extra = custom.map((c) => ({
      ...c,
      singular: c.kind.toLowerCase(),
      shortNames: c.shortNames ?? [],
      verbs: VERBS,
      categories: [],
    }));
    this.stored = [...BUILT_IN, ...extra];
    this.byPath = new Map([...this.stored, SSAR].map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));
    this.byKind = new Map(this.stored.map((r) => [r.kind, r]));
    if (this.byKind.size !== this.stored.length || this.byPath.size !== this.stored.length + 1) {
      const kinds = extra.map((r) => r.kind).join(', ');
      throw new SimError('SCENARIO', `resources: ${kinds}: a kind or resource path is declared twice`);
    }
  }

  /** The resource served at group/version/resource, or undefined. */
  at(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /** The stored resource of a kind ('Pod'), or undefined for kinds not served. */
  ofKind(kind: string | undefined): ResourceInfo | undefined {
    return kind === undefined ? undefined : this.byKind.get(kind);
  }

  /** Every served resource (stored ones and selfsubjectaccessreviews), for discovery. */
  all(): ResourceInfo[] {
    return [...this.stored, SSAR];
  }

  /** Every stored resource. */
  storedResources(): readonly ResourceInfo[] {
    return this.stored;
  }
}
