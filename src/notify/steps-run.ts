// The notifier's pipeline for one incident key, under the per-incident lock (two workers, or a worker and a
// button, never act on one incident at once):
//
//   read the record -> decide (pure, decide.ts) -> run one step (steps/) -> record what it returns -> again
//
// until decide says wait or nothing. Each step makes its Slack calls and returns what to record; the runner writes
// it only after the step returned, so a step that failed is retried from the same record, and a root or reply
// whose post was started but not recorded is looked up by its metadata before posting again.
import type { Lifecycle } from '../store/record.js';
import type { IncidentRecord } from '../store/record.js';
import { WORKER_RETRY_MS } from '../store/ride-out.js';
import { isChannelKey } from '../domain/teams.js';
import { messagesIn } from './channels.js';
import { type StepName, decide } from './decide.js';
import type { StepDeps } from './deps.js';
import { editRoot, markStale } from './steps/edit-root.js';
import { close, discard } from './steps/end.js';
import { followUp } from './steps/follow-up.js';
import { postEvidence } from './steps/post-reply.js';
import { postRest } from './steps/post-rest.js';
import { adoptRoot, postRoot } from './steps/post-root.js';
import { reopen } from './steps/reopen.js';
import { resolve } from './steps/resolve.js';
import type { StepContext, StepFn, StepResult } from './steps/step.js';

export type { NotifierObserver, StepDeps } from './deps.js';

/** The steps, in lifecycle order: what each decision runs. */
export const STEPS: Readonly<Record<StepName, StepFn>> = {
  'post-root': postRoot,
  'adopt-root': adoptRoot,
  'post-evidence': postEvidence,
  'post-rest': postRest,
  update: (ctx, r) => editRoot(ctx, r, 'update'),
  repeat: (ctx, r) => editRoot(ctx, r, 'repeat'),
  stale: markStale,
  resolve,
  reopen,
  'follow-up': followUp,
  close,
  discard,
};

/** Result of one run: done (with the steps taken), wait until a time, or the lock was busy. */
export type StepOutcome =
  { kind: 'done'; steps: StepName[] } | { kind: 'wait'; until: number; steps: StepName[] } | { kind: 'locked' };

// The most steps one run takes (an edit that finds the root deleted, then a new root and its two evidence replies):
// more would be a bug in decide(), not a need.
const MAX_STEPS = 7;

/** Decides and acts for one incident until it has nothing to do now. Throws RwxError from Slack or Redis. */
export async function processIncident(deps: StepDeps, key: string): Promise<StepOutcome> {
  const res = await withIncidentLock(deps, key, async (): Promise<StepOutcome> => {
    const steps: StepName[] = [];
    for (let n = 0; n < MAX_STEPS; n++) {
      const record = await deps.store.get(key);
      if (!record) break;
      const now = deps.clock.now();
      const next = decide(record, now, deps.timers);
      if (next.step === 'none') break;
      if (next.step === 'wait') return { kind: 'wait', until: next.until, steps };
      steps.push(next.step);
      if (await runStep(deps, record, next.step, now)) break;
    }
    return { kind: 'done', steps };
  });
  return res === 'locked' ? { kind: 'locked' } : res;
}

/** Runs one step on `record` (the caller holds the lock) and records its result; true when the record ended. */
export async function runStep(deps: StepDeps, record: IncidentRecord, step: StepName, now: number): Promise<boolean> {
  const ended = await apply(deps, record.key, await STEPS[step](stepContext(deps, record.key, now), record));
  // An incident opens once, with its incident channel's root; a team channel's root is the same incident.
  if (step === 'post-root' && !isChannelKey(record.key)) {
    observeQuietly(() => deps.observer?.rootPosted?.(record.observed.incident, now));
  }
  return ended;
}

/** Records a step's result: the new lifecycle, then for the last one closes or deletes the record. */
export async function apply(deps: StepDeps, key: string, result: StepResult): Promise<boolean> {
  if (result.kind === 'delete') {
    await deps.store.delete(key);
    return true;
  }
  await deps.store.patch(key, { lifecycle: result.lifecycle });
  if (result.kind === 'write') return false;
  await deps.store.close(key, deps.closedTtlMs);
  return true;
}

/** What a step of `key` may use at `now`. */
export function stepContext(deps: StepDeps, key: string, now: number): StepContext {
  return {
    slack: deps.slack,
    messages: messagesIn(deps.messages, deps.teams ?? [], key),
    now,
    ...(deps.observe ? { observe: deps.observe } : {}),
    mark: async (lifecycle: Lifecycle) => {
      await deps.store.patch(key, { lifecycle });
    },
    claimOnce: (name) => deps.store.claimOnce(name, key),
  };
}

/** Runs `fn` holding the incident's lock; 'locked' when another holder has it. */
export async function withIncidentLock<T>(deps: StepDeps, key: string, fn: () => Promise<T>): Promise<T | 'locked'> {
  const token = await deps.store.tryLock(key, deps.lockTtlMs, deps.lockOwner);
  if (!token) return 'locked';
  try {
    return await fn();
  } finally {
    await deps.store.unlock(key, token).catch(() => releaseWhenBack(deps, key, token, Date.now() + deps.lockTtlMs));
  }
}

// Redis away at the release: tried again every WORKER_RETRY_MS until Redis answers or the lock's TTL (wall time,
// like Redis's) has ended anyway, so the first run after an outage does not wait out the TTL behind this process's
// own lock. Releasing late is safe: the token is this run's alone.
function releaseWhenBack(deps: StepDeps, key: string, token: string, untilMs: number): void {
  setTimeout(() => {
    deps.store.unlock(key, token).catch(() => Date.now() < untilMs && releaseWhenBack(deps, key, token, untilMs));
  }, WORKER_RETRY_MS).unref();
}

// A metrics hook that throws must not fail (and so repeat) a post that reached Slack and was recorded.
function observeQuietly(f: () => void): void {
  try {
    f();
  } catch {
    /* metrics only */
  }
}
