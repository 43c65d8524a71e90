// A record's history of members (src/domain/history.ts), for records written before histories existed too.
import { historyOrLast } from '../domain/history.js';
import type { IncidentHistory } from '../domain/history.js';
import type { IncidentRecord } from '../store/incident-store.js';

/** A record's history (historyOrLast of its history, last incident and creation time). */
export function historyOf(r: Pick<IncidentRecord, 'history' | 'incident' | 'createdAt'>): IncidentHistory {
  return historyOrLast(r.history, r.incident, r.createdAt);
}
