// The bot cannot see the cluster (the dead-man notice, src/serve/dead-man.ts): every open incident's record says
// since when, and its job runs now, so each root gets (or loses) its stale line through the ordinary steps (decide:
// the stale step), one edit per root, with the worker's retries and Slack's rate limit like any other edit.
import type { IncidentStore } from '../store/incident-store.js';
import { isResolved } from '../store/record.js';
import type { Enqueue } from './worker.js';

/**
 * Records `since` (undefined: seen again) as observed.stale on every open, unresolved record whose value differs,
 * and enqueues its job. Idempotent: a second call with the same value writes nothing. Returns the keys written.
 */
export async function markStale(
  store: Pick<IncidentStore, 'listOpen' | 'get' | 'patch'>,
  enqueue: Enqueue,
  since: number | undefined,
): Promise<string[]> {
  const marked: string[] = [];
  for (const key of await store.listOpen()) {
    const r = await store.get(key);
    if (!r || isResolved(r.lifecycle) || r.observed.stale === since) continue;
    await store.patch(key, { observed: { stale: since } });
    await enqueue(key);
    marked.push(key);
  }
  return marked;
}
