// What the notify steps need: the store, Slack, the timers and the clock, passed in (fakes in tests).
import type { Clock } from '../domain/clock.js';
import type { Incident } from '../domain/incident.js';
import type { TeamRoute } from '../domain/teams.js';
import type { ObserveResolution } from '../domain/resolution.js';
import type { RootLinks } from '../render/slack-incident.js';
import type { SlackApi } from '../slack/api.js';
import type { IncidentStore } from '../store/incident-store.js';
import type { NotifyTimers } from './decide.js';

/** How the incident messages are posted: configuration, not incident state (never part of a change hash). */
export interface MessageOptions {
  /** Link buttons on every open root (RWX_RUNBOOK_URL, RWX_DASHBOARD_URL). */
  links: RootLinks;
  /** A user group ID (S...) mentioned in a new root, never in an edit (RWX_MENTION_USERGROUP). */
  mentionUsergroup?: string;
  /** Whether the resolution reply is also shown in the channel (RWX_BROADCAST_RESOLUTION). */
  broadcastResolution: boolean;
}

/** The defaults: no links, no mention, the resolution broadcast. */
export const DEFAULT_MESSAGE_OPTIONS: Readonly<MessageOptions> = Object.freeze({
  links: {},
  broadcastResolution: true,
});

/** What the steps need. */
export interface StepDeps {
  store: IncidentStore;
  slack: SlackApi;
  messages: MessageOptions;
  timers: NotifyTimers;
  clock: Clock;
  /** How long the per-incident lock is held at most (ms). */
  lockTtlMs: number;
  /** How long a resolved record is kept (ms). */
  closedTtlMs: number;
  /** What the cluster says now about an incident's members (a manual Resolve asks; automatic ones are recorded). */
  observe?: ObserveResolution;
  /** Told what was posted, for metrics. */
  observer?: NotifierObserver;
  /** Who takes the incident locks (resume.ts: `<replica>#<incarnation>`), so a restart can tell its own. */
  lockOwner?: string;
  /** RWX_TEAM_CHANNELS: the user group a new root in a team channel mentions (channels.ts). */
  teams?: readonly TeamRoute[];
}

/** Hooks called after a Slack call and its record write succeeded (metrics). They must not throw. */
export interface NotifierObserver {
  /**
   * An incident's root is in Slack and recorded: once per root (a root an interrupted attempt had posted counts when
   * this attempt adopts it, since that attempt never got to record it).
   */
  rootPosted?(incident: Incident, now: number): void;
}
