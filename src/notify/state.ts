// What a root shows besides the incident: the ack / mute / resolution state, and the hash of the whole, which says
// whether the root in Slack is still current.
import type { IncidentState, SlackMessage } from '../render/slack-blocks.js';
import { hashOf } from '../render/slack-blocks.js';
import { type RootOptions, renderIncidentRoot } from '../render/slack-incident.js';
import { renderResolvedRoot } from '../render/slack-resolved.js';
import { type IncidentRecord, type Sent, isResolved } from '../store/record.js';

/**
 * The ack / mute / resolution state to show, as of `now` (an expired mute is not shown), and while the bot cannot
 * see the cluster, since when (never on a resolved root: its summary is final).
 */
export function visibleState(r: IncidentRecord, now: number): IncidentState {
  const { ack, mute } = r.buttons;
  const resolution = isResolved(r.lifecycle) ? r.lifecycle.resolution : undefined;
  const stale = staleOf(r);
  return {
    ...(stale !== undefined ? { staleSince: stale } : {}),
    ...(ack ? { ack } : {}),
    ...(mute && mute.until > now ? { muteUntil: mute.until } : {}),
    ...(resolution ? { resolvedAt: resolution.at } : {}),
    ...(resolution?.by !== undefined ? { resolvedBy: resolution.by } : {}),
  };
}

/**
 * The hash of what a root shows at `now`: the notifiable incident (its hash, notifiable.ts) and the visible state,
 * but for the stale line. A notification records it (Sent.hash); when it differs, the root is out of date. The stale
 * line is tracked apart (Sent.stale, staleShown): the bot going blind is not a change of the incident, so it never
 * makes a change reply or moves the timers.
 */
export function stateHash(r: IncidentRecord, now: number): string {
  const { staleSince: _, ...state } = visibleState(r, now);
  // A team channel's root also links the incident channel's thread: the link appearing (or moving) edits it.
  return hashOf(r.parent ? [r.observed.hash, state, r.parent.threadTs ?? null] : [r.observed.hash, state]);
}

/** Since when the root should say the bot cannot see the cluster: observed.stale, unless resolved. */
export function staleOf(r: IncidentRecord): number | undefined {
  return isResolved(r.lifecycle) ? undefined : r.observed.stale;
}

/** The Sent.stale of a root rendered from `r` now (absent when it shows no stale line). */
export function staleSent(r: IncidentRecord): Pick<Sent, 'stale'> {
  const stale = staleOf(r);
  return stale === undefined ? {} : { stale };
}

/** Whether the root shows the stale line the record asks for (Sent.stale against staleOf). */
export function staleShown(r: IncidentRecord, sent: Sent): boolean {
  return sent.stale === staleOf(r);
}

/**
 * The root as it should read in `state`: the live incident (with `opts`: link buttons, and on a new root the user
 * group mention), or once resolved the whole incident's summary; in a team channel, with the line linking the
 * incident channel's thread.
 */
export function rootMessage(r: IncidentRecord, state: IncidentState, opts: RootOptions = {}): SlackMessage {
  const parent = r.parent ? { parent: r.parent } : {};
  return state.resolvedAt !== undefined
    ? renderResolvedRoot(r.observed.incident, r.observed.history, state, parent)
    : renderIncidentRoot(r.observed.incident, state, { ...opts, ...parent });
}
