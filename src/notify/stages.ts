// The notify stages for one incident key: decide (pure needsUpdate) -> post / update Slack -> record, each record
// write only after Slack succeeded. Runs under the per-incident lock, so two workers (or a worker and a button)
// never post for the same incident at once; with the record written after each Slack call, a retry resumes where
// the last attempt stopped, and a root or thread reply whose post was started but not recorded is looked up (by
// its message metadata) before posting again, so a crash between Slack and the record never posts it twice.
import { isRwxError } from '../errors.js';
import type { Incident } from '../domain/incident.js';
import type { IncidentRecord } from '../store/incident-store.js';
import type { IncidentState, SlackMessage } from '../render/slack-blocks.js';
import { renderIncidentRoot, rootHash } from '../render/slack-incident.js';
import { type ResolutionFacts, defaultFacts } from '../domain/resolution.js';
import { renderResolution } from '../render/slack-resolution.js';
import { renderResolvedRoot } from '../render/slack-resolved.js';
import { membersOf } from '../domain/members.js';
import { renderChangeReply, renderEvidenceReply, renderRepeatReply } from '../render/slack-thread.js';
import { incidentMetadata } from '../slack/api.js';
import { type Decision, needsUpdate } from './decide.js';
import type { StageDeps } from './deps.js';
import { historyOf } from './history.js';
import { postReplyOnce } from './replies.js';
import { awaitingFrom, followUp } from './follow-up.js';

export type { NotifierObserver, StageDeps } from './deps.js';

/** Result of one run: done (with the actions taken), wait until a time, or the lock was busy. */
export type StageOutcome =
  | { kind: 'done'; actions: Decision['action'][] }
  | { kind: 'wait'; until: number; actions: Decision['action'][] }
  | { kind: 'locked' };

/** The ack / mute / resolve state to show, as of `now` (an expired mute is not shown). */
export function visibleState(r: IncidentRecord, now: number): IncidentState {
  return {
    ...(r.ack ? { ack: r.ack } : {}),
    ...(r.muteUntil !== undefined && r.muteUntil > now ? { muteUntil: r.muteUntil } : {}),
    ...(r.resolvedAt !== undefined ? { resolvedAt: r.resolvedAt } : {}),
    ...(r.resolvedBy !== undefined ? { resolvedBy: r.resolvedBy } : {}),
  };
}

/** The root as it should read in `state`: the live incident, or once resolved the whole incident's summary. */
export function rootMessage(r: IncidentRecord, incident: Incident, state: IncidentState): SlackMessage {
  return state.resolvedAt !== undefined
    ? renderResolvedRoot(incident, historyOf(r), state)
    : renderIncidentRoot(incident, state);
}

/**
 * Posts the resolution reply (once: recorded as resolutionReplied, and looked up before a post after a crash),
 * then edits the root to its resolved summary. A retry after a failed edit skips the reply. The next decision
 * closes the record, or keeps it open for the CronJobs the reply says have not run yet.
 */
export async function postResolution(
  deps: StageDeps,
  r: IncidentRecord,
  ts: string,
  facts: ResolutionFacts,
  state: IncidentState,
): Promise<void> {
  const incident = r.incident!;
  if (!r.resolutionReplied) {
    await postReplyOnce(deps, r, ts, 'resolution', renderResolution(incident, historyOf(r), facts));
    // Recorded with the reply: the CronJobs it says have not run yet are followed up in the thread (follow-up.ts).
    await deps.store.patch(r.key, {
      resolutionReplied: true,
      replyStarted: undefined,
      ...awaitingFrom(facts, deps.clock.now()),
    });
  }
  try {
    await deps.slack.update({ channel: r.channel, ts, ...rootMessage(r, incident, state) });
  } catch (e) {
    if (!isRwxError(e, 'NOT_FOUND')) throw e; // someone deleted the root: the reply stands, nothing to edit
  }
}

/** Runs `fn` holding the incident's lock; 'locked' when another holder has it. */
export async function withIncidentLock<T>(deps: StageDeps, key: string, fn: () => Promise<T>): Promise<T | 'locked'> {
  const token = await deps.store.tryLock(key, deps.lockTtlMs);
  if (!token) return 'locked';
  try {
    return await fn();
  } finally {
    await deps.store.unlock(key, token);
  }
}

/** Decides and acts for one incident until it has nothing to do now. Throws RwxError from Slack or Redis. */
export async function processIncident(deps: StageDeps, key: string): Promise<StageOutcome> {
  const res = await withIncidentLock(deps, key, async (): Promise<StageOutcome> => {
    const actions: Decision['action'][] = [];
    // A few rounds at most: post then (maybe) nothing more; a loop here would be a bug, not a need.
    for (let round = 0; round < 4; round++) {
      const record = await deps.store.get(key);
      if (!record) return { kind: 'done', actions };
      const now = deps.clock.now();
      const hash = record.incident ? rootHash(record.incident, visibleState(record, now)) : '';
      const d = needsUpdate(record, hash, now, deps.timers);
      if (d.action === 'none') return { kind: 'done', actions };
      if (d.action === 'wait') return { kind: 'wait', until: d.until, actions };
      actions.push(d.action);
      await act(deps, record, d, now);
      // Ends the record's life (its last write closes or deletes it): nothing follows in this run.
      if (d.action === 'close' || d.action === 'discard') return { kind: 'done', actions };
    }
    return { kind: 'done', actions };
  });
  return res === 'locked' ? { kind: 'locked' } : res;
}

async function act(deps: StageDeps, r: IncidentRecord, d: Decision, now: number): Promise<void> {
  const { store, slack } = deps;
  if (d.action === 'discard') return store.delete(r.key);
  if (d.action === 'close') return store.close(r.key, deps.closedTtlMs);
  if (d.action === 'resolve') return resolveAutomatically(deps, r, now);
  if (d.action === 'follow-up') return followUp(deps, r, now);
  const incident = r.incident!;
  if (d.action === 'post') {
    const ts = r.threadTs ?? (await postRoot(deps, r, incident, now));
    if (!r.evidencePosted) {
      await postReplyOnce(deps, r, ts, 'evidence', renderEvidenceReply(incident));
      await store.patch(r.key, { evidencePosted: true, replyStarted: undefined });
    }
    return;
  }
  const state = visibleState(r, now);
  try {
    await slack.update({ channel: r.channel, ts: r.threadTs!, ...rootMessage(r, incident, state) });
  } catch (e) {
    if (!isRwxError(e, 'NOT_FOUND')) throw e;
    // Someone deleted the root: forget it, so the next round posts a fresh thread for the still-open incident.
    await store.patch(r.key, {
      threadTs: undefined,
      rootPostStartedAt: undefined,
      evidencePosted: undefined,
      lastSentHash: undefined,
      replyStarted: undefined,
    });
    return;
  }
  const hash = rootHash(incident, state);
  const kind = d.action === 'repeat' ? 'repeat' : 'change';
  const reply =
    kind === 'repeat'
      ? renderRepeatReply(incident, r.createdAt, now)
      : r.members
        ? renderChangeReply(incident, r.members)
        : undefined;
  if (reply) await postReplyOnce(deps, r, r.threadTs!, updateReplyId(r, kind, hash), reply);
  await store.patch(r.key, {
    lastSentHash: hash,
    members: membersOf(incident),
    lastNotifiedAt: now,
    updatedAt: now,
    replyStarted: undefined,
  });
}

// The id of the reply of an update or repeat step: the kind, the notification it follows (lastNotifiedAt, which
// only this step's own record write moves on) and, for a change, the root it goes with. A retry of the step
// computes the same id; any later step, or a retry after the incident changed again (new content), a new one.
function updateReplyId(r: IncidentRecord, kind: 'change' | 'repeat', hash: string): string {
  const after = r.lastNotifiedAt ?? r.createdAt;
  return kind === 'repeat' ? `repeat:${after}` : `change:${after}:${hash.slice(0, 16)}`;
}

// Posts the root, or adopts the one an interrupted attempt already posted (found by its metadata).
async function postRoot(deps: StageDeps, r: IncidentRecord, incident: Incident, now: number): Promise<string> {
  const { store, slack } = deps;
  const state = visibleState(r, now);
  const message = rootMessage(r, incident, state);
  let ts: string | undefined;
  if (r.rootPostStartedAt !== undefined) {
    // No time bound: the record's clock may not be Slack's; newest-first history finds a recent root quickly.
    ts = await slack.findRootByIncidentKey(r.channel, r.key);
    if (ts) await slack.update({ channel: r.channel, ts, ...message });
  }
  if (!ts) {
    await store.patch(r.key, { rootPostStartedAt: now });
    ts = (await slack.postMessage({ channel: r.channel, ...message, metadata: incidentMetadata(r.key) })).ts;
  }
  await store.patch(r.key, {
    threadTs: ts,
    lastSentHash: rootHash(incident, state),
    members: membersOf(incident),
    lastNotifiedAt: now,
    updatedAt: now,
  });
  observeQuietly(() => deps.observer?.rootPosted?.(incident, now));
  return ts;
}

// A metrics hook that throws must not fail (and so repeat) a post that reached Slack.
function observeQuietly(f: () => void): void {
  try {
    f();
  } catch {
    /* metrics only */
  }
}

async function resolveAutomatically(deps: StageDeps, r: IncidentRecord, now: number): Promise<void> {
  const { store, slack } = deps;
  let ts = r.threadTs;
  if (!ts) ts = await slack.findRootByIncidentKey(r.channel, r.key);
  if (!ts || !r.incident) return store.delete(r.key); // the post never reached Slack: nothing to resolve
  const facts = r.resolution ?? defaultFacts(historyOf(r));
  const resolvedAt = r.clearedAt ?? now;
  const state = { ...visibleState(r, now), resolvedAt };
  delete state.muteUntil;
  if (ts !== r.threadTs) await store.patch(r.key, { threadTs: ts });
  await postResolution(deps, r, ts, facts, state);
  await store.patch(r.key, { threadTs: ts, resolvedAt, resolutionPosted: true, updatedAt: now });
  // The next round closes the record, or waits for the CronJobs the resolution reply said have not run yet.
}
