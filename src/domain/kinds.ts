// The resource kinds the bot reads, with their API coordinates. One table used by the live reader, the snapshot
// loader, the API simulator, the preflight access checks and the RBAC test, so they cannot drift apart.

/** Where a kind lives in the API. `group` is '' for the core group. */
export interface KindInfo {
  kind: string;
  /** Lower-case plural resource name, as in URLs and RBAC rules. */
  resource: string;
  group: string;
  version: string;
  namespaced: boolean;
  /**
   * A fieldSelector every list and watch of the kind carries (the CLI's reads and `rwx serve`'s watches alike), to
   * leave out objects the bot never reads that would flood a watch.
   */
  fieldSelector?: string;
}

/** Every kind the bot reads, keyed by the snapshot field that holds its objects. */
export const KINDS = {
  pods: { kind: 'Pod', resource: 'pods', group: '', version: 'v1', namespaced: true },
  pvcs: {
    kind: 'PersistentVolumeClaim',
    resource: 'persistentvolumeclaims',
    group: '',
    version: 'v1',
    namespaced: true,
  },
  pvs: { kind: 'PersistentVolume', resource: 'persistentvolumes', group: '', version: 'v1', namespaced: false },
  nodes: { kind: 'Node', resource: 'nodes', group: '', version: 'v1', namespaced: false },
  events: { kind: 'Event', resource: 'events', group: '', version: 'v1', namespaced: true },
  storageClasses: {
    kind: 'StorageClass',
    resource: 'storageclasses',
    group: 'storage.k8s.io',
    version: 'v1',
    namespaced: false,
  },
  volumeAttachments: {
    kind: 'VolumeAttachment',
    resource: 'volumeattachments',
    group: 'storage.k8s.io',
    version: 'v1',
    namespaced: false,
  },
  csiDrivers: { kind: 'CSIDriver', resource: 'csidrivers', group: 'storage.k8s.io', version: 'v1', namespaced: false },
  csiNodes: { kind: 'CSINode', resource: 'csinodes', group: 'storage.k8s.io', version: 'v1', namespaced: false },
  daemonSets: { kind: 'DaemonSet', resource: 'daemonsets', group: 'apps', version: 'v1', namespaced: true },
  controllerRevisions: {
    kind: 'ControllerRevision',
    resource: 'controllerrevisions',
    group: 'apps',
    version: 'v1',
    namespaced: true,
  },
  jobs: { kind: 'Job', resource: 'jobs', group: 'batch', version: 'v1', namespaced: true },
  cronJobs: { kind: 'CronJob', resource: 'cronjobs', group: 'batch', version: 'v1', namespaced: true },
  // Node heartbeats (one Lease per node in kube-node-lease, renewed every 10 s) are left out: the preflight reads
  // the controllers' leader Leases only, and a heartbeat watch would be most of the bot's watch traffic.
  leases: {
    kind: 'Lease',
    resource: 'leases',
    group: 'coordination.k8s.io',
    version: 'v1',
    namespaced: true,
    fieldSelector: 'metadata.namespace!=kube-node-lease',
  },
} as const satisfies Record<string, KindInfo>;

/** A snapshot field name, e.g. 'pods'. */
export type KindKey = keyof typeof KINDS;

/** All snapshot field names, in a stable order. */
export const KIND_KEYS = Object.keys(KINDS) as KindKey[];

/** apiVersion string for a kind, e.g. 'storage.k8s.io/v1' or 'v1'. */
export function apiVersionOf(info: KindInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

const BY_KIND = new Map<string, KindKey>(KIND_KEYS.map((k) => [KINDS[k].kind, k]));

/** The snapshot field for an object's `kind` (e.g. 'Pod' -> 'pods'), or undefined for kinds the bot ignores. */
export function kindKeyOf(kind: string | undefined): KindKey | undefined {
  return kind === undefined ? undefined : BY_KIND.get(kind);
}
