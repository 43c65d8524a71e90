// The names each cluster publishes (its nodes, claims and namespaces), so a command that names a node or claim
// but no cluster can go to the one cluster that has it. Bounded (MAX_NAMES per set; a set cut short holds the
// member TRUNCATED, and then proves nothing by a miss) and expiring (NAMES_TTL_MS: a cluster that stopped
// publishing stops claiming names). Written whole under a temporary key and renamed, so readers never see half.
import type { Redis } from 'ioredis';
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { FleetKeys, NameSet } from './keys.js';

/** Most names per set; a larger cluster publishes the first MAX_NAMES and marks the set truncated. */
export const MAX_NAMES = 50_000;
/** How long a published set lives without being refreshed. */
export const NAMES_TTL_MS = 5 * 60_000;
/** How often a member republishes unchanged sets (a changed one sooner: publishDue). */
export const PUBLISH_EVERY_MS = 60_000;
/** The least time between two publications of changed sets (a cluster's nodes and claims churn in bursts). */
export const PUBLISH_MIN_GAP_MS = 5_000;
/** The member that marks a set as incomplete: a miss in it is not proof. No Kubernetes name is "*". */
export const TRUNCATED = '*';
/** The member every published set holds, so an empty cluster ("no claims") differs from one that never published. */
const PUBLISHED = '.';

/** What a publication was made from: the node and claim counts (cheap; a same-count swap waits for the minute). */
export function namesSignature(index: ClusterIndex): string {
  return `${index.count('nodes')}/${index.count('pvcs')}/${index.readable('nodes')}/${index.readable('pvcs')}`;
}

/**
 * Whether a member publishes now: at once when it never did (the cache just synced), then when the signature
 * changed (at most every PUBLISH_MIN_GAP_MS) or `everyMs` after the last publication.
 */
export function publishDue(
  last: { at: number; signature: string } | undefined,
  signature: string,
  now: number,
  everyMs = PUBLISH_EVERY_MS,
): boolean {
  if (last === undefined) return true;
  const since = now - last.at;
  return since >= everyMs || (signature !== last.signature && since >= Math.min(PUBLISH_MIN_GAP_MS, everyMs));
}

/** The names of one cluster, per set, from the watcher's cache. An unreadable kind gives a TRUNCATED set. */
export function namesOf(index: ClusterIndex): Record<NameSet, string[]> {
  const nodes = index.readable('nodes') ? [] : [TRUNCATED];
  for (const n of index.all('nodes')) if (n.metadata?.name) nodes.push(n.metadata.name);
  const claims = index.readable('pvcs') ? [] : [TRUNCATED];
  const namespaces = new Set<string>(index.readable('pvcs') && index.readable('pods') ? [] : [TRUNCATED]);
  for (const c of index.all('pvcs')) {
    const ns = c.metadata?.namespace;
    if (!ns || !c.metadata?.name) continue;
    claims.push(`${ns}/${c.metadata.name}`);
    namespaces.add(ns);
  }
  for (const p of index.all('pods')) if (p.metadata?.namespace) namespaces.add(p.metadata.namespace);
  return { nodes: bounded(nodes), claims: bounded(claims), namespaces: bounded([...namespaces]) };
}

function bounded(names: string[]): string[] {
  return names.length <= MAX_NAMES ? names : [...names.slice(0, MAX_NAMES), TRUNCATED];
}

/** Replaces `cluster`'s published sets with `names`, each expiring after NAMES_TTL_MS unless republished. */
export async function publishNames(
  redis: Redis,
  keys: FleetKeys,
  cluster: string,
  names: Record<NameSet, string[]>,
): Promise<void> {
  for (const [what, list] of Object.entries(names) as [NameSet, string[]][]) {
    const key = keys.names(cluster, what);
    const tmp = `${key}:next`;
    const m = redis.multi().del(tmp).sadd(tmp, PUBLISHED);
    for (let i = 0; i < list.length; i += 1000) m.sadd(tmp, ...list.slice(i, i + 1000));
    await m.rename(tmp, key).pexpire(key, NAMES_TTL_MS).exec();
  }
}

/** Which of `clusters` have `name` in their `what` set: surely (`has`), or maybe (not published, or truncated). */
export async function clustersHaving(
  redis: Redis,
  keys: FleetKeys,
  clusters: readonly string[],
  what: NameSet,
  name: string,
): Promise<{ has: string[]; maybe: string[] }> {
  const has: string[] = [];
  const maybe: string[] = [];
  for (const c of clusters) {
    const [found, published, truncated] = await redis.smismember(keys.names(c, what), name, PUBLISHED, TRUNCATED);
    if (found === 1) has.push(c);
    else if (published !== 1 || truncated === 1) maybe.push(c);
  }
  return { has, maybe };
}
