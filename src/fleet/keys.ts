// The Redis layout of a fleet: every cluster keeps its own records and queues under its own prefix
// (`<base>:c:<cluster>`), and the fleet's shared facts live under `<base>:fleet:` (heartbeats, the names each
// cluster publishes, fingerprints of bad revisions, the per-channel Slack limiter). `base` is RWX_REDIS_PREFIX,
// the same in every cluster of the fleet.

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
