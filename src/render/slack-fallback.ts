// The verdict as every Slack message says it, and the fallback `text` of every incident message: what a push
// notification or a screen reader shows, so it leads with what the engineer must know before opening Slack.
import type { Incident, Verdict } from '../domain/incident.js';
import { rollbackUnderWay } from '../domain/severity.js';
import { fallbackText, utcDates } from './slack-blocks.js';

/** The verdict in words, without emoji (fallback text, status lines). */
export const VERDICT_WORDS: Readonly<Record<Verdict, string>> = {
  FOLLOWS_ROLLOUT: 'Follows a node plugin rollout',
  FOLLOWS_NODE: 'Follows one node',
  UNEXPLAINED: 'Unexplained',
  NOT_STORAGE: 'Not storage',
};

const VERDICT_EMOJI: Readonly<Record<Verdict, string>> = {
  FOLLOWS_ROLLOUT: ':rotating_light:',
  FOLLOWS_NODE: ':warning:',
  UNEXPLAINED: ':grey_question:',
  NOT_STORAGE: ':information_source:',
};

/** The verdict as the root's headline says it (emoji and words). */
export const VERDICT_TEXT: Readonly<Record<Verdict, string>> = Object.fromEntries(
  (Object.keys(VERDICT_WORDS) as Verdict[]).map((v) => [v, `${VERDICT_EMOJI[v]} ${VERDICT_WORDS[v]}`]),
) as Record<Verdict, string>;

/**
 * The incident's title as every message says it: after its cluster's name (`[prod-eu-1] ...`) when the evaluation
 * stated one (RWX_CLUSTER_NAME: several clusters post into one channel), so the root, the thread, the resolution
 * and /rwx status say which cluster it is. Raw: escape it for where it goes.
 */
export function incidentTitle(incident: Pick<Incident, 'title' | 'cluster'>): string {
  return incident.cluster ? `[${incident.cluster}] ${incident.title}` : incident.title;
}

/**
 * Whether the incident's advice is "Do not drain": its stuck mounts follow a node plugin rollout that is not being
 * rolled back (while a rollback is under way, the advice is to wait for it).
 */
export function saysDoNotDrain(incident: Incident): boolean {
  return incident.verdict === 'FOLLOWS_ROLLOUT' && incident.rollout !== undefined && !rollbackUnderWay(incident);
}

// The correlator's summary opens with the verdict's code ("FOLLOWS_ROLLOUT (rolling back): 4 of 29 nodes..."):
// a message says the verdict in words once, and the status on its own.
const VERDICT_CODE = /^[A-Z_]+(?: \([^)]*\))?: /;

/** The incident's summary without its verdict code: the counts, in words. */
export function summaryWords(summary: string): string {
  return summary.replace(VERDICT_CODE, '');
}

/**
 * The fallback `text` of a message about `incident`: the verdict first ("Do not drain." before it while a rollout
 * incident is open, "Rollback under way." while it recovers; "Resolved" once it is), then `detail` (raw, escaped
 * and cut by fallbackText). Plain words: no emoji codes, and times as "2026-11-30 06:40 UTC".
 */
export function incidentFallback(incident: Incident, detail: string, resolved = false): string {
  const words = VERDICT_WORDS[incident.verdict];
  const recovering = incident.verdict === 'FOLLOWS_ROLLOUT' && rollbackUnderWay(incident);
  const lead = resolved
    ? `Resolved (${words.toLowerCase()})`
    : saysDoNotDrain(incident)
      ? `Do not drain. ${words}`
      : recovering
        ? `Rollback under way. ${words}`
        : words;
  return fallbackText(utcDates(`${lead}. ${detail}`));
}
