// /rwx status across the fleet: every cluster's incident records are in the shared Redis under its own prefix,
// so any member lists them all, grouped by cluster, with whether each cluster's bot still answers. Read-only.
import type { Redis } from 'ioredis';
import { openIncidentsFromStore, type OpenIncident } from '../commands/index.js';
import type { PermalinkSource } from '../commands/permalinks.js';
import type { ClusterLiveness } from '../commands/render-status.js';
import type { Clock } from '../domain/clock.js';
import { RedisIncidentStore } from '../store/redis-store.js';
import { fleetHealth } from './heartbeat.js';
import type { FleetKeys } from './keys.js';

/** The status services of a fleet member: every known cluster's open incidents, and the clusters' liveness. */
export function fleetStatusSources(o: {
  redis: Redis;
  keys: FleetKeys;
  self: string;
  clock: Clock;
  silentAfterMs?: number;
  /** Thread links (chat.getPermalink, cached); without it /rwx status builds archive links. */
  permalinks?: PermalinkSource;
}): { openIncidents(): Promise<OpenIncident[]>; clusters(): Promise<ClusterLiveness[]> } {
  const clusters = async (): Promise<ClusterLiveness[]> => {
    const health = await fleetHealth(o.redis, o.keys.heartbeats, o.clock, o.silentAfterMs);
    const out = health.map((h) => ({
      name: h.name,
      silentForMs: h.silentForMs,
      silent: h.silent && h.name !== o.self,
    }));
    if (!out.some((c) => c.name === o.self)) out.push({ name: o.self, silentForMs: 0, silent: false });
    return out;
  };
  return {
    clusters,
    async openIncidents() {
      const names = (await clusters()).map((c) => c.name);
      const lists = await Promise.all(
        names.map(async (name) => {
          const store = new RedisIncidentStore(o.redis, o.keys.cluster(name));
          const open = await openIncidentsFromStore(store, o.permalinks)();
          return open.map((i) => ({ ...i, cluster: name }));
        }),
      );
      return lists.flat();
    },
  };
}
