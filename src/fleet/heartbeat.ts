// Heartbeats: every process of a fleet member that runs its command worker writes "<cluster> was alive at T" into
// one shared hash, every few seconds. A cluster whose last heartbeat is older than SILENT_AFTER_MS is silent: its
// bot is down or cannot reach Redis, and /rwx status and every command routed to it say so instead of waiting.
// Times come from the injected clock of the writer and the reader: the fleet's machines keep time with NTP.
import type { Redis } from 'ioredis';
import type { Clock } from '../domain/clock.js';

/** A cluster is silent once its last heartbeat is older than this (the "more than a minute"). */
export const SILENT_AFTER_MS = 60_000;
/** How often a member writes its heartbeat: well inside SILENT_AFTER_MS, so one lost write never looks silent. */
export const HEARTBEAT_EVERY_MS = 10_000;
/** A cluster silent this long is forgotten (decommissioned): it no longer shows in /rwx status. */
export const FORGET_AFTER_MS = 7 * 86_400_000;

/** What the fleet knows of one cluster's liveness. */
export interface ClusterHealth {
  name: string;
  /** Its last heartbeat (epoch ms, the writer's clock). */
  lastSeenAt: number;
  /** now - lastSeenAt, never negative. */
  silentForMs: number;
  /** silentForMs > the silence threshold. */
  silent: boolean;
}

/** Writes `cluster`'s heartbeat at `now`. */
export async function beat(redis: Redis, hash: string, cluster: string, now: number): Promise<void> {
  await redis.hset(hash, cluster, JSON.stringify({ at: now }));
}

/**
 * Every cluster with a heartbeat, by name; those silent for longer than FORGET_AFTER_MS are removed from the hash.
 * `silentAfterMs` defaults to SILENT_AFTER_MS (tests shorten it).
 */
export async function fleetHealth(
  redis: Redis,
  hash: string,
  clock: Clock,
  silentAfterMs = SILENT_AFTER_MS,
): Promise<ClusterHealth[]> {
  const now = clock.now();
  const all = await redis.hgetall(hash);
  const out: ClusterHealth[] = [];
  for (const [name, raw] of Object.entries(all)) {
    const at = parseBeat(raw);
    if (at === undefined) continue;
    const silentForMs = Math.max(0, now - at);
    if (silentForMs > FORGET_AFTER_MS) {
      await redis.hdel(hash, name);
      continue;
    }
    out.push({ name, lastSeenAt: at, silentForMs, silent: silentForMs > silentAfterMs });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

// The time in a heartbeat value, or undefined when it is not one of ours.
function parseBeat(raw: string): number | undefined {
  try {
    const v = JSON.parse(raw) as { at?: unknown };
    return typeof v.at === 'number' && Number.isFinite(v.at) ? v.at : undefined;
  } catch {
    return undefined;
  }
}
