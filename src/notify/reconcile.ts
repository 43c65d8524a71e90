// Reconciling the records with the channel after Redis was away (src/serve/redis-notice.ts). While Redis did not
// answer no step could run or record what it did, so a root may show other than its record says (an edit that
// reached Slack while its record write did not, a job lost with Redis' last second). Every open root is redrawn
// from its record, by the stale step: the one edit that notifies no one and moves no timer, so a change the outage
// hid still gets its change reply from the incident's own job, which runs next.
import { isRwxError } from '../errors.js';
import type { StepDeps } from './deps.js';
import { runStep, withIncidentLock } from './steps-run.js';
import type { Enqueue } from './worker.js';

/** What reconcile did: the roots redrawn, and the open records whose job it ran. */
export interface Reconciled {
  redrawn: string[];
  enqueued: number;
}

/**
 * Redraws the root of every open record in phase open (under its lock; one a worker holds is being brought up to
 * date by it), then enqueues every open record's job to run now. A root Slack refuses to edit is left to its job
 * (logged by the caller's audit); a rate limit stops the redrawing, not the enqueueing. Throws when Redis fails.
 */
export async function reconcile(deps: StepDeps, enqueue: Enqueue): Promise<Reconciled> {
  const keys = await deps.store.listOpen();
  const redrawn: string[] = [];
  let limited = false;
  for (const key of keys) {
    if (!limited) {
      try {
        if ((await withIncidentLock(deps, key, () => redraw(deps, key))) === true) redrawn.push(key);
      } catch (e) {
        // SLACK_CHANNEL: a channel the bot is not in (a team channel nobody invited it to) refuses that root only.
        if (!isRwxError(e, 'SLACK_RATE_LIMITED', 'SLACK_API', 'SLACK_CHANNEL')) throw e;
        limited = isRwxError(e, 'SLACK_RATE_LIMITED');
      }
    }
    await enqueue(key);
  }
  return { redrawn, enqueued: keys.length };
}

// The root of an open thread, drawn again from the record; false when the record has no open thread.
async function redraw(deps: StepDeps, key: string): Promise<boolean> {
  const r = await deps.store.get(key);
  if (r?.lifecycle.phase !== 'open') return false;
  await runStep(deps, r, 'stale', deps.clock.now());
  return true;
}
