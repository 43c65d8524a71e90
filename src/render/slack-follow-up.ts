// The follow-up reply after a resolution: the CronJobs that had not completed a run when the incident resolved
// (a missed backup is only over once its next run completes) and have since completed one, been deleted, or still
// have not when the bot stops waiting. The caller says which; we only render it.
import type { Incident } from '../domain/incident.js';
import type { CronJobDone } from '../domain/resolution.js';
import { escapeSlack } from './escape.js';
import { incidentFallback } from './slack-fallback.js';
import { type SlackMessage, slackDate, listSection, plural } from './slack-blocks.js';
import { cronJobDoneLine } from './slack-resolution.js';

/** Reply for CronJobs seen done since the resolution, or (when `done` is empty) for those still waiting at `until`. */
export function renderCronJobFollowUp(
  incident: Incident,
  done: readonly CronJobDone[],
  stillWaiting: readonly string[],
  resolvedAt: number | undefined,
  until: number | undefined,
): SlackMessage {
  if (done.length > 0) {
    const lines = done.map((c) => cronJobDoneLine(`CronJob \`${escapeSlack(c.cronJob)}\``, c, 'since the resolution'));
    const names = done.map((c) => c.cronJob).join(', ');
    return {
      text: incidentFallback(incident, `Follow-up: ${names}`, true),
      blocks: [listSection(':white_check_mark: *Follow-up*', lines)],
    };
  }
  const since = resolvedAt !== undefined ? ` since the resolution (${slackDate(resolvedAt)})` : '';
  const lines = stillWaiting.map(
    (c) =>
      `• CronJob \`${escapeSlack(c)}\` has still *not* completed a run${since}: a second finding. ` +
      `Read its latest Job and pod (kubectl get jobs -n ${escapeSlack(c.split('/')[0] ?? '')}); check it is not suspended.`,
  );
  const head = `:warning: *Follow-up*: ${plural(stillWaiting.length, 'CronJob')} without a completed run by ${slackDate(until)}; the bot stops following ${stillWaiting.length === 1 ? 'it' : 'them'} here.`;
  return {
    text: incidentFallback(incident, `Follow-up: ${stillWaiting.join(', ')} still without a completed run`, true),
    blocks: [listSection(head, lines)],
  };
}
