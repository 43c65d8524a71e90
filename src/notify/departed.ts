// Members that left an open incident since the last post, and what the cluster says of each: the change reply
// reports a pod that recovered as recovered, so a partial recovery is visible in the thread without resolving it.
import { type DepartedMembers, type PostedMembers, departedPods, membersOf } from '../domain/members.js';
import type { ObserveResolution } from '../domain/resolution.js';
import type { IncidentRecord } from '../store/record.js';

/**
 * The pods `before` showed that the record's incident no longer has, sorted by what `observe` (the cluster cache)
 * says of each now; all "other" when there is nothing to ask (never "recovered" from ignorance). Undefined when
 * none left.
 */
export function departedMembers(
  r: IncidentRecord,
  before: PostedMembers,
  now: number,
  observe: ObserveResolution | undefined,
): DepartedMembers | undefined {
  const gone = departedPods(before, membersOf(r.observed.incident));
  if (gone.length === 0) return undefined;
  const wanted = new Set(gone);
  const pods = r.observed.history.pods.filter((p) => wanted.has(p.pod));
  const facts = observe?.({ ...r.observed.history, pods, cronJobs: [] }, now);
  const recovered = new Set(facts?.recovered ?? []);
  const deleted = new Set([...(facts?.deleted ?? []), ...(facts?.terminated ?? [])]);
  return {
    recovered: gone.filter((p) => recovered.has(p)),
    deleted: gone.filter((p) => deleted.has(p)),
    other: gone.filter((p) => !recovered.has(p) && !deleted.has(p)),
  };
}
