// What the notify tests share: the rollout incident's key, time units, StepDeps on the in-memory fakes, and a
// record builder.
import type { Clock } from '../../src/domain/clock.js';
import { mergeHistory } from '../../src/domain/history.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { DEFAULT_MESSAGE_OPTIONS } from '../../src/notify/deps.js';
import { notifiableHash } from '../../src/notify/notifiable.js';
import type { StepDeps } from '../../src/notify/steps-run.js';
import type { IncidentStore } from '../../src/store/incident-store.js';
import { MemoryIncidentStore } from '../support/memory-store.js';
import { type IncidentRecord, threadTsOf } from '../../src/store/record.js';
import type { PostMessageArgs, SlackApi } from '../../src/slack/api.js';
import { RwxError } from '../../src/errors.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';

/** The key of rolloutIncident() (test/render/incident-fixtures.ts). */
export const KEY = 'rollout/kube-system/ebs-csi-node@2';
export const S = 1000;
export const M = 60 * S;
export const H = 60 * M;

/** Stage dependencies with Alertmanager's default timers, a 30 s lock and records kept a day once closed. */
export function stageDeps(
  clock: Clock,
  slack: SlackApi,
  store: IncidentStore = new MemoryIncidentStore(clock),
): StepDeps {
  return {
    store,
    slack,
    messages: DEFAULT_MESSAGE_OPTIONS,
    timers: DEFAULT_TIMERS,
    clock,
    lockTtlMs: 30 * S,
    closedTtlMs: 86_400_000,
  };
}

/** A record of rolloutIncident(), pending, created at FIXTURE_NOW; `over` replaces whole groups. */
export function record(over: Partial<IncidentRecord> = {}): IncidentRecord {
  const incident = rolloutIncident();
  return {
    key: KEY,
    channel: 'C1',
    createdAt: FIXTURE_NOW,
    observed: {
      incident,
      hash: notifiableHash(incident),
      history: mergeHistory(undefined, incident, FIXTURE_NOW).history,
    },
    lifecycle: { phase: 'pending' },
    buttons: {},
    ...over,
  };
}

/** The thread ts a record holds, in whatever phase. */
export function tsOf(r: IncidentRecord | undefined): string | undefined {
  return r && threadTsOf(r.lifecycle);
}

/** The id of the reply a record marks as started and not yet recorded. */
export function replyingOf(r: IncidentRecord | undefined): string | undefined {
  const l = r?.lifecycle;
  if (l?.phase === 'open' || l?.phase === 'posting-evidence') return l.thread.replying;
  return l?.phase === 'following-up' ? l.replying : undefined;
}

/**
 * `slack` whose postMessage posts and then loses its answer (a retryable connection reset) when `lose` says so for
 * the post: the crash between Slack accepting a post and the step recording it.
 */
export function losingAnswers(slack: SlackApi, lose: (post: PostMessageArgs) => boolean): SlackApi {
  return Object.assign(Object.create(slack) as SlackApi, {
    postMessage: async (a: PostMessageArgs) => {
      const res = await slack.postMessage(a);
      if (lose(a)) throw new RwxError('SLACK_API', 'connection reset', { retryable: true });
      return res;
    },
  });
}

/** For losingAnswers: the posts of the replies whose id (their metadata's) `crashOn` names. */
export const byReplyId =
  (crashOn: (replyId: string) => boolean) =>
  (a: PostMessageArgs): boolean => {
    const id = a.metadata?.event_payload.reply;
    return typeof id === 'string' && crashOn(id);
  };
