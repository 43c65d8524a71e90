// Records written by the previous version (one Redis hash field per property, 27 of them, 22 optional, the
// lifecycle spread over flags) read in the current form. Pure: redis-store.ts reads the hash, converts it here, and
// rewrites it in the current layout. The conversion keeps every idempotency property: a root whose post was
// started is still looked up before posting, a reply marked as started is still looked up before posting again.
import type { IncidentHistory } from '../domain/history.js';
import { historyOrLast } from '../domain/history.js';
import type { Incident } from '../domain/incident.js';
import type { PostedMembers } from '../domain/members.js';
import type { CronJobDone, ResolutionFacts } from '../domain/resolution.js';
import type { Buttons, IncidentRecord, Lifecycle, Observation, Resolution, Thread } from './record.js';

/** A record as the previous version wrote it (src/queue/incident-store.ts of that version). Times are epoch ms. */
export interface LegacyRecord {
  key: string;
  channel: string;
  createdAt: number;
  updatedAt?: number;
  incident?: Incident;
  observedHash?: string;
  history?: IncidentHistory;
  firing?: boolean;
  clearedAt?: number;
  resolution?: ResolutionFacts;
  rootPostStartedAt?: number;
  threadTs?: string;
  evidencePosted?: boolean;
  members?: PostedMembers;
  lastSentHash?: string;
  lastNotifiedAt?: number;
  ack?: { user: string; at: number };
  muteUntil?: number;
  mutedBy?: string;
  resolvedAt?: number;
  resolvedBy?: string;
  resolutionReplied?: boolean;
  replyStarted?: string;
  resolutionPosted?: boolean;
  awaitingCronJobs?: string[];
  awaitingUntil?: number;
  cronJobsDone?: CronJobDone[];
}

/**
 * The current form of a previous-version record. `closed`: the record had been closed (it expires). Undefined for
 * a record with no incident, which the previous version never wrote.
 */
export function fromLegacy(v: LegacyRecord, closed = false): IncidentRecord | undefined {
  if (!v.incident) return undefined;
  return {
    key: v.key,
    channel: v.channel,
    createdAt: v.createdAt,
    observed: observation(v, v.incident),
    lifecycle: lifecycle(v, closed),
    buttons: buttons(v),
  };
}

function observation(v: LegacyRecord, incident: Incident): Observation {
  const cleared = { at: v.clearedAt ?? v.updatedAt ?? v.createdAt, ...(v.resolution ? { facts: v.resolution } : {}) };
  return {
    incident,
    hash: v.observedHash ?? '',
    history: historyOrLast(v.history, incident, v.createdAt),
    ...(v.firing === false ? { cleared } : {}),
    ...(v.cronJobsDone ? { cronJobsDone: v.cronJobsDone } : {}),
  };
}

// The flags the previous version kept, read as the one phase they meant together.
function lifecycle(v: LegacyRecord, closed: boolean): Lifecycle {
  if (v.resolutionPosted) {
    const resolution: Resolution = {
      at: v.resolvedAt ?? v.clearedAt ?? v.createdAt,
      ...(v.resolvedBy !== undefined ? { by: v.resolvedBy } : {}),
    };
    const ts = v.threadTs ? { threadTs: v.threadTs } : {};
    const awaiting = v.awaitingCronJobs ?? [];
    if (v.threadTs && awaiting.length > 0 && !closed) {
      const replying = v.replyStarted ? { replying: v.replyStarted } : {};
      const until = v.awaitingUntil ?? v.createdAt;
      return {
        phase: 'following-up',
        threadTs: v.threadTs,
        resolution,
        awaiting: { cronJobs: awaiting, until },
        ...replying,
      };
    }
    return { phase: closed ? 'closed' : 'resolved', ...ts, resolution };
  }
  if (v.threadTs) {
    // A resolution reply recorded before its root edit: the resolve step finds it by its id and does not repeat it.
    const replying = v.resolutionReplied ? 'resolution' : v.replyStarted;
    const thread: Thread = {
      ts: v.threadTs,
      sent: {
        hash: v.lastSentHash ?? '',
        ...(v.members ? { members: v.members } : {}),
        at: v.lastNotifiedAt ?? v.createdAt,
      },
      ...(replying ? { replying } : {}),
    };
    return { phase: v.evidencePosted ? 'open' : 'posting-evidence', thread };
  }
  if (v.rootPostStartedAt !== undefined) return { phase: 'posting-root', startedAt: v.rootPostStartedAt };
  return { phase: 'pending' };
}

function buttons(v: LegacyRecord): Buttons {
  return {
    ...(v.ack ? { ack: v.ack } : {}),
    ...(v.muteUntil !== undefined ? { mute: { until: v.muteUntil, by: v.mutedBy ?? '' } } : {}),
    ...(v.resolvedBy !== undefined ? { resolved: { by: v.resolvedBy, at: v.resolvedAt ?? v.createdAt } } : {}),
  };
}
