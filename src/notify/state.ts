// What a root shows besides the incident: the ack / mute / resolution state, and the hash of the whole, which says
// whether the root in Slack is still current.
import type { IncidentState, SlackMessage } from '../render/slack-blocks.js';
import { hashOf } from '../render/slack-blocks.js';
import { type RootOptions, renderIncidentRoot } from '../render/slack-incident.js';
import { renderResolvedRoot } from '../render/slack-resolved.js';
import { type IncidentRecord, isResolved } from '../store/record.js';

/** The ack / mute / resolution state to show, as of `now` (an expired mute is not shown). */
export function visibleState(r: IncidentRecord, now: number): IncidentState {
  const { ack, mute } = r.buttons;
  const resolution = isResolved(r.lifecycle) ? r.lifecycle.resolution : undefined;
  return {
    ...(ack ? { ack } : {}),
    ...(mute && mute.until > now ? { muteUntil: mute.until } : {}),
    ...(resolution ? { resolvedAt: resolution.at } : {}),
    ...(resolution?.by !== undefined ? { resolvedBy: resolution.by } : {}),
  };
}

/**
 * The hash of what a root shows at `now`: the notifiable incident (its hash, notifiable.ts) and the visible state.
 * A notification records it (Sent.hash); when it differs, the root is out of date.
 */
export function stateHash(r: IncidentRecord, now: number): string {
  return hashOf([r.observed.hash, visibleState(r, now)]);
}

/**
 * The root as it should read in `state`: the live incident (with `opts`: link buttons, and on a new root the user
 * group mention), or once resolved the whole incident's summary.
 */
export function rootMessage(r: IncidentRecord, state: IncidentState, opts: RootOptions = {}): SlackMessage {
  return state.resolvedAt !== undefined
    ? renderResolvedRoot(r.observed.incident, r.observed.history, state)
    : renderIncidentRoot(r.observed.incident, state, opts);
}
