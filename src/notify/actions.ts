// What the root's buttons do: Acknowledge, Mute 1h / 4h, Resolve. Each is recorded in the incident record first,
// then shown on the root at once (not after group_interval: the person who clicked wants to see it). All are
// idempotent under double clicks: the first ack wins, a mute only ever extends, a second Resolve changes nothing.
import type { IncidentRecord } from '../store/incident-store.js';
import { mention, formatTime } from '../render/slack-blocks.js';
import { rootHash } from '../render/slack-incident.js';
import { defaultFacts } from '../domain/resolution.js';
import type { ActionResult, IncidentActions } from '../domain/actions.js';
import { RwxError } from '../errors.js';
import { historyOf } from './history.js';
import { type StageDeps, postResolution, rootMessage, visibleState, withIncidentLock } from './stages.js';

/** Builds IncidentActions over the stages' store and Slack; waits up to `lockWaitMs` for a busy incident lock. */
export function createIncidentActions(deps: StageDeps, lockWaitMs = 5000): IncidentActions {
  const locked = async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + lockWaitMs;
    for (;;) {
      const res = await withIncidentLock(deps, key, fn);
      if (res !== 'locked') return res;
      if (Date.now() > deadline) throw new RwxError('TIMEOUT', `incident ${key} is busy, try again`);
      await new Promise((r) => setTimeout(r, 25)); // a worker is mid-post; it holds the lock for one Slack call
    }
  };
  const unknown: ActionResult = { status: 'unknown', message: 'This incident is no longer tracked.' };

  // Re-renders the root with the record's current state; records the hash so the worker sees nothing to do.
  const refresh = async (r: IncidentRecord, now: number): Promise<void> => {
    if (!r.threadTs || !r.incident) return;
    const state = visibleState(r, now);
    await deps.slack.update({ channel: r.channel, ts: r.threadTs, ...rootMessage(r, r.incident, state) });
    await deps.store.patch(r.key, { lastSentHash: rootHash(r.incident, state), updatedAt: now });
  };

  return {
    acknowledge: (key, user, now) =>
      locked(key, async () => {
        const set = await deps.store.setAckIfAbsent(key, { user, at: now });
        const r = await deps.store.get(key);
        if (!r) return unknown;
        if (!set)
          return {
            status: 'already',
            message: `Already acknowledged by ${mention(r.ack?.user ?? '?')} at ${formatTime(r.ack?.at)}.`,
          };
        await refresh(r, now);
        return { status: 'done', message: `Acknowledged by ${mention(user)}.` };
      }),

    mute: (key, user, durationMs, now) =>
      locked(key, async () => {
        const r = await deps.store.get(key);
        if (!r || r.resolutionPosted) return unknown;
        const until = now + durationMs;
        if (r.muteUntil !== undefined && r.muteUntil >= until) {
          return { status: 'already', message: `Already muted until ${formatTime(r.muteUntil)}.` };
        }
        await deps.store.patch(key, { muteUntil: until, mutedBy: user, updatedAt: now });
        await refresh({ ...r, muteUntil: until, mutedBy: user }, now);
        return {
          status: 'done',
          message: `Muted until ${formatTime(until)} by ${mention(user)}; resolution is still posted.`,
        };
      }),

    resolve: (key, user, now) =>
      locked(key, async () => {
        const r = await deps.store.get(key);
        if (!r) return unknown;
        const already: ActionResult = {
          status: 'already',
          message: `Already resolved at ${formatTime(r.resolvedAt)}${r.resolvedBy ? ` by ${mention(r.resolvedBy)}` : ''}.`,
        };
        if (r.resolutionPosted) return already;
        // A first click whose Slack calls failed half-way is finished by the next one (resolvedAt already says who).
        const by = r.resolvedBy ?? user;
        const at = r.resolvedAt ?? now;
        if (r.resolvedAt === undefined) await deps.store.patch(key, { resolvedAt: at, resolvedBy: by, updatedAt: now });
        if (r.threadTs && r.incident) {
          const history = historyOf(r);
          const facts = { ...(deps.observe?.(history, now) ?? defaultFacts(history)), manual: { user: by, at } };
          await postResolution(deps, { ...r, resolvedAt: at, resolvedBy: by }, r.threadTs, facts, {
            ...visibleState(r, now),
            resolvedAt: at,
            resolvedBy: by,
          });
        }
        // The record stays open: while the cluster still reports the incident it is silenced (a recurrence after
        // it cleared gets a new thread), and the CronJobs the reply awaits are followed up. The caller runs the
        // incident's job next, which closes it when nothing is left to wait for.
        await deps.store.patch(key, { resolutionPosted: true });
        return r.resolvedAt === undefined ? { status: 'done', message: `Resolved by ${mention(user)}.` } : already;
      }),
  };
}
