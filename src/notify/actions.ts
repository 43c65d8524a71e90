// What the root's buttons do: Acknowledge, Mute 1h / 4h, Resolve. Each is recorded in the record's buttons first,
// then shown on the root at once (not after group_interval: the person who clicked wants to see it). All are
// idempotent under double clicks: the first ack wins, a mute only ever extends, a second Resolve changes nothing.
import type { ActionResult, IncidentActions } from '../domain/actions.js';
import { splitChannelKey } from '../domain/teams.js';
import { RwxError } from '../errors.js';
import { slackDate, mention } from '../render/slack-blocks.js';
import { replyMetadata } from '../slack/api.js';
import { type IncidentRecord, isResolved, threadTsOf } from '../store/record.js';
import { decide } from './decide.js';
import type { StepDeps } from './deps.js';
import { teamKeysOf } from './channels.js';
import { apply, runStep, stepContext, withIncidentLock } from './steps-run.js';
import { refreshRoot } from './steps/edit-root.js';

const UNKNOWN: ActionResult = { status: 'unknown', message: 'This incident is no longer tracked.' };

/**
 * Builds IncidentActions over the steps' store and Slack; waits up to `lockWaitMs` for a busy incident lock. A
 * click acts on the incident channel's record (a button in a team channel's thread carries the same incident key),
 * then every team channel's root (channels.ts) shows it too, each under its own lock.
 */
export function createIncidentActions(deps: StepDeps, lockWaitMs = 5000): IncidentActions {
  const locked = <T>(key: string, fn: () => Promise<T>): Promise<T> => waitForLock(deps, key, lockWaitMs, fn);
  const everywhere = async (
    clicked: string,
    act: (key: string) => Promise<ActionResult>,
    inTeam: (r: IncidentRecord) => Promise<unknown>,
    alsoWhen: ActionResult['status'] = 'done',
  ): Promise<ActionResult> => {
    const key = splitChannelKey(clicked).incident;
    const res = await locked(key, () => act(key));
    if (res.status === 'done' || res.status === alsoWhen) await inTeams(deps, key, lockWaitMs, inTeam);
    return res;
  };
  return {
    acknowledge: (k, user, now) =>
      everywhere(
        k,
        (key) => acknowledge(deps, key, user, now),
        (r) => refresh(deps, r, now),
      ),
    mute: (k, user, durationMs, now) =>
      everywhere(
        k,
        (key) => mute(deps, key, user, now + durationMs, now),
        (r) => refresh(deps, r, now),
      ),
    // A second Resolve finishes what a first one left half done, in the team channels too.
    resolve: (k, user, now) =>
      everywhere(
        k,
        (key) => resolveByHand(deps, key, user, now),
        (r) => resolveNow(deps, r.key, now),
        'already',
      ),
  };
}

// Runs `fn` on each open team channel record of incident `key`, under its lock. Best effort: a record whose lock
// stays busy, or whose Slack call fails, is left to its job, which the notifier enqueues after every click.
async function inTeams(
  deps: StepDeps,
  key: string,
  lockWaitMs: number,
  fn: (r: IncidentRecord) => Promise<unknown>,
): Promise<void> {
  for (const team of await teamKeysOf(deps.store, key)) {
    await waitForLock(deps, team, lockWaitMs, async () => {
      const r = await deps.store.get(team);
      if (r) await fn(r);
    }).catch(() => undefined);
  }
}

async function acknowledge(deps: StepDeps, key: string, user: string, now: number): Promise<ActionResult> {
  const set = await deps.store.setAckIfAbsent(key, { user, at: now });
  const r = await deps.store.get(key);
  if (!r) return UNKNOWN;
  const ack = r.buttons.ack;
  if (!set) return already(`Already acknowledged by ${mention(ack?.user ?? '?')} at ${slackDate(ack?.at)}.`);
  await refresh(deps, r, now);
  await note(deps, r, 'ack', `:eyes: Acknowledged by ${mention(user)} at ${slackDate(now)}.`);
  return { status: 'done', message: `Acknowledged by ${mention(user)}.` };
}

async function mute(deps: StepDeps, key: string, user: string, until: number, now: number): Promise<ActionResult> {
  const r = await deps.store.get(key);
  if (!r || isResolved(r.lifecycle)) return UNKNOWN;
  const current = r.buttons.mute?.until;
  if (current !== undefined && current >= until) return already(`Already muted until ${slackDate(current)}.`);
  const muted = { until, by: user };
  await deps.store.patch(key, { buttons: { mute: muted } });
  await refresh(deps, { ...r, buttons: { ...r.buttons, mute: muted } }, now);
  const line = `:mute: Muted by ${mention(user)} at ${slackDate(now)} until ${slackDate(until)}; the resolution is still posted.`;
  await note(deps, r, `mute-${until}`, line);
  return {
    status: 'done',
    message: `Muted until ${slackDate(until)} by ${mention(user)}; resolution is still posted.`,
  };
}

// Resolve: recorded (a first click whose Slack calls failed half-way is finished by the next one, and says who
// clicked first), then resolved at once. The record stays open: while the cluster still reports the incident it
// is silenced (a recurrence after it cleared gets a new thread), and the CronJobs the reply awaits are followed
// up. The caller runs the incident's job next, which closes it when nothing is left to wait for.
async function resolveByHand(deps: StepDeps, key: string, user: string, now: number): Promise<ActionResult> {
  const r = await deps.store.get(key);
  if (!r) return UNKNOWN;
  if (isResolved(r.lifecycle)) return alreadyResolved(r.lifecycle.resolution);
  const clicked = r.buttons.resolved;
  if (!clicked) await deps.store.patch(key, { buttons: { resolved: { by: user, at: now } } });
  await resolveNow(deps, key, now);
  if (!clicked)
    await note(deps, r, 'resolved-by', `:white_check_mark: Resolved by ${mention(user)} at ${slackDate(now)}.`);
  return clicked ? alreadyResolved(clicked) : { status: 'done', message: `Resolved by ${mention(user)}.` };
}

// Runs the steps a Resolve asks for (find an interrupted root, then resolve), and nothing after them.
async function resolveNow(deps: StepDeps, key: string, now: number): Promise<void> {
  for (let n = 0; n < 3; n++) {
    const r = await deps.store.get(key);
    if (!r) return;
    const next = decide(r, now, deps.timers);
    if (next.step !== 'resolve' && next.step !== 'adopt-root') return;
    if (await runStep(deps, r, next.step, now)) return;
  }
}

// Re-renders the root with the record's current state and records the new hash, so the worker sees nothing to do.
async function refresh(deps: StepDeps, r: IncidentRecord, now: number): Promise<void> {
  const result = await refreshRoot(stepContext(deps, r.key, now), r);
  if (result) await apply(deps, r.key, result);
}

// The thread's record of who pressed what and when (the root shows only the current state). Best effort, once per
// effective click (a repeated click changes nothing and notes nothing): the action is recorded and shown on the
// root already, so a failed note does not fail the click (the audit line of the post records the failure: a
// SlackApi wrapped by slack/audit.ts). Without a thread (root not posted yet) there is none.
async function note(deps: StepDeps, r: IncidentRecord, id: string, text: string): Promise<void> {
  const threadTs = threadTsOf(r.lifecycle);
  if (!threadTs) return;
  await deps.slack
    .postMessage({ channel: r.channel, threadTs, text, metadata: replyMetadata(r.key, id) })
    .catch(() => undefined);
}

function already(message: string): ActionResult {
  return { status: 'already', message };
}

function alreadyResolved(by: { at: number; by?: string }): ActionResult {
  return already(`Already resolved at ${slackDate(by.at)}${by.by ? ` by ${mention(by.by)}` : ''}.`);
}

// Takes the incident lock, waiting while a worker holds it for one Slack call.
async function waitForLock<T>(deps: StepDeps, key: string, waitMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const res = await withIncidentLock(deps, key, fn);
    if (res !== 'locked') return res;
    if (Date.now() > deadline) throw new RwxError('TIMEOUT', `incident ${key} is busy, try again`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
