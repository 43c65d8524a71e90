// The time a saved snapshot shows: the newest instant recorded in it (a Lease renewal, an event, an object's
// creation, a pod condition, a CronJob's last schedule). `kubectl get -o json` records no capture time, and ages
// measured against the wall clock would make a file a few minutes old say "no leader, nothing provisions". The
// capture was at or after this instant, so ages measured against it are never longer than they were.
import type { Snapshot } from '../domain/snapshot.js';
import { timeMs } from '../domain/refs.js';
import { eventLastSeen } from './events.js';

/** The newest time recorded in the snapshot, epoch ms; undefined when it records none. */
export function snapshotTime(s: Snapshot): number | undefined {
  let latest: number | undefined;
  const see = (t: number | undefined): void => {
    if (t !== undefined && (latest === undefined || t > latest)) latest = t;
  };
  for (const l of s.leases) see(timeMs(l.spec?.renewTime) ?? timeMs(l.spec?.acquireTime));
  for (const e of s.events) see(eventLastSeen(e));
  for (const p of s.pods) for (const c of p.status?.conditions ?? []) see(timeMs(c?.lastTransitionTime));
  for (const c of s.cronJobs) see(timeMs(c.status?.lastScheduleTime));
  for (const k of Object.keys(s) as (keyof Snapshot)[]) {
    if (k === 'unreadable') continue;
    for (const o of s[k] as { metadata?: { creationTimestamp?: string | null } }[])
      see(timeMs(o.metadata?.creationTimestamp));
  }
  return latest;
}
