// /rwx status reads the incident store (src/store): the open set, then each record. Read-only.
import { incidentTitle } from '../render/slack-fallback.js';
import { isChannelKey } from '../domain/teams.js';
import type { IncidentStore } from '../store/incident-store.js';
import type { PermalinkSource } from './permalinks.js';
import { isResolved, threadTsOf } from '../store/record.js';
import type { OpenIncident } from './render-status.js';

/**
 * Lists the store's open records as /rwx status shows them: unresolved incidents, and resolved ones whose thread
 * waits for a CronJob (src/notify/steps/follow-up.ts), each posted thread with its permalink when `permalinks`
 * gives one. Missing records, and resolved ones silenced while still firing, are skipped.
 */
export function openIncidentsFromStore(
  store: Pick<IncidentStore, 'listOpen' | 'get'>,
  permalinks?: PermalinkSource,
): () => Promise<OpenIncident[]> {
  return async () => {
    // A team channel's record (RWX_TEAM_CHANNELS) is the same incident in another channel: listed once.
    const keys = (await store.listOpen()).filter((k) => !isChannelKey(k));
    const records = await Promise.all(keys.map((k) => store.get(k)));
    const out: OpenIncident[] = [];
    for (const r of records) {
      if (!r) continue;
      const l = r.lifecycle;
      const following = l.phase === 'following-up' && r.observed.cleared ? l.awaiting : undefined;
      if (isResolved(l) && !following) continue;
      const o: OpenIncident = {
        key: r.key,
        title: incidentTitle(r.observed.incident),
        verdict: r.observed.incident.verdict,
        channel: r.channel,
        openedAt: r.createdAt,
      };
      const ts = threadTsOf(l);
      if (ts) o.threadTs = ts;
      if (r.buttons.ack) o.acknowledgedBy = r.buttons.ack.user;
      if (r.buttons.mute) o.mutedUntil = r.buttons.mute.until;
      if (following) o.followingUp = { cronJobs: following.cronJobs, until: following.until };
      out.push(o);
    }
    if (permalinks) await Promise.all(out.map((o) => withPermalink(o, permalinks)));
    return out;
  };
}

// Adds the thread's permalink to `o` when Slack gives one.
async function withPermalink(o: OpenIncident, permalinks: PermalinkSource): Promise<void> {
  if (!o.channel || !o.threadTs) return;
  const link = await permalinks(o.channel, o.threadTs);
  if (link) o.permalink = link;
}
