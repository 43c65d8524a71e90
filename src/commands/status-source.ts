// /rwx status reads the incident store (src/store): the open set, then each record. Read-only.
import type { IncidentStore } from '../store/incident-store.js';
import type { OpenIncident } from './render-status.js';

/**
 * Lists the store's open records as /rwx status shows them: unresolved incidents, and resolved ones whose thread
 * waits for a CronJob (notify/follow-up.ts). Missing records, and resolved ones silenced while still firing, are
 * skipped.
 */
export function openIncidentsFromStore(store: Pick<IncidentStore, 'listOpen' | 'get'>): () => Promise<OpenIncident[]> {
  return async () => {
    const keys = await store.listOpen();
    const records = await Promise.all(keys.map((k) => store.get(k)));
    const out: OpenIncident[] = [];
    for (const r of records) {
      if (!r) continue;
      const awaiting = r.resolvedAt !== undefined && !r.firing ? (r.awaitingCronJobs ?? []) : [];
      if (r.resolvedAt !== undefined && awaiting.length === 0) continue;
      const o: OpenIncident = {
        key: r.key,
        title: r.incident?.title ?? r.key,
        verdict: r.incident?.verdict ?? 'UNEXPLAINED',
        channel: r.channel,
        openedAt: r.createdAt,
      };
      if (r.threadTs) o.threadTs = r.threadTs;
      if (r.ack) o.acknowledgedBy = r.ack.user;
      if (r.muteUntil !== undefined) o.mutedUntil = r.muteUntil;
      if (awaiting.length > 0)
        o.followingUp = { cronJobs: awaiting, ...(r.awaitingUntil !== undefined ? { until: r.awaitingUntil } : {}) };
      out.push(o);
    }
    return out;
  };
}
