// The Redis layout of a fleet: every cluster keeps its own records and queues under its own prefix
// (`<base>:c:<cluster>`), and the fleet's shared facts live under `<base>:fleet:` (heartbeats, the names each
// cluster publishes, fingerprints of bad revisions, the per-channel Slack limiter). `base` is RWX_REDIS_PREFIX,
// the same in every cluster of the fleet.
import { splitKey } from '../domain/cluster.js';

/** The keys of one fleet on one Redis. */
export interface FleetKeys {
  /** The prefix of `cluster`'s own keys (incident records, notify and command queues). */
  cluster(name: string): string;
  /** Hash: cluster name -> its last heartbeat (JSON). */
  heartbeats: string;
  /** Set of the names of `what` in `cluster` ("node-19", "data/uploads", "data"). */
  names(cluster: string, what: NameSet): string;
  /** The per-channel Slack posting limiter of `channel`. */
  rate(channel: string): string;
  /** The fleet's prefix for fingerprints of bad revisions (fingerprint.ts). */
  fingerprints: string;
}

/** The names a cluster publishes so commands naming one find their cluster. */
export type NameSet = 'nodes' | 'claims' | 'namespaces';

/** The fleet's keys under `base`. */
export function fleetKeys(base: string): FleetKeys {
  const fleet = `${base}:fleet`;
  return {
    cluster: (name) => `${base}:c:${name}`,
    heartbeats: `${fleet}:heartbeats`,
    names: (cluster, what) => `${fleet}:names:${cluster}:${what}`,
    rate: (channel) => `${fleet}:rate:${channel}`,
    fingerprints: `${fleet}:fp`,
  };
}

/**
 * Where one cluster's incident records are and which of them are its own: the one rule `rwx serve` writes by and
 * every reader of the records (a restarted bot, `rwx drain-check`) reads by. Outside a fleet the records are under
 * RWX_REDIS_PREFIX itself and every one is the cluster's; in a fleet, under the cluster's prefix, with keys that
 * name the cluster (qualifyKey).
 */
export interface RecordScope {
  /** The prefix of the cluster's records (RedisIncidentStore's). */
  prefix: string;
  /** In a fleet, the cluster whose records these are; undefined outside a fleet. */
  cluster?: string;
}

/** The records of cluster `fleetCluster` of the fleet on `base`, or with no fleet cluster the records of `base`. */
export function recordScope(base: string, fleetCluster?: string): RecordScope {
  if (fleetCluster === undefined) return { prefix: base };
  return { prefix: fleetKeys(base).cluster(fleetCluster), cluster: fleetCluster };
}

/**
 * The incident key of record `recordKey` as the cluster's own evaluation knows it (unqualified), or undefined when
 * the record is not the scope's cluster's (a record from before the fleet was turned on names no cluster).
 */
export function scopedKey(scope: RecordScope, recordKey: string): string | undefined {
  if (scope.cluster === undefined) return recordKey;
  const { cluster, key } = splitKey(recordKey);
  return cluster === scope.cluster ? key : undefined;
}
