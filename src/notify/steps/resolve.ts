// The resolution: a reply in the thread saying, for every member the incident ever had, whether it recovered on
// its own, was deleted or replaced, or (a CronJob) has completed a run since; then the root edited to the whole
// incident's summary. Automatic when the cluster stopped reporting the incident (with what it observed then), or
// a person pressed Resolve (with what the cluster says now). CronJobs that have not completed a run yet keep the
// record in following-up.
import { isRwxError } from '../../errors.js';
import { type ResolutionFacts, defaultFacts } from '../../domain/resolution.js';
import { renderResolution } from '../../render/slack-resolution.js';
import { type IncidentRecord, type Resolution, threadTsOf } from '../../store/record.js';
import { awaitingFrom } from '../follow-up.js';
import { rootMessage, visibleState } from '../state.js';
import { replyOnce } from './post-reply.js';
import { type StepContext, type StepFn, inPhase, write } from './step.js';

/** resolve: the resolution reply (once), then the resolved root; with no thread, the resolution is only recorded. */
export const resolve: StepFn = async (ctx, record) => {
  const r = inPhase(record, 'resolve', 'pending', 'posting-evidence', 'open');
  const { resolution, facts } = resolutionOf(ctx, r);
  const ts = threadTsOf(r.lifecycle);
  if (!ts) return write({ phase: 'resolved', resolution });
  const reply = renderResolution(r.observed.incident, r.observed.history, facts);
  await replyOnce(ctx, r, ts, resolutionId(r), reply, { broadcast: ctx.messages.broadcastResolution });
  const resolved = { ...r, lifecycle: { phase: 'resolved' as const, threadTs: ts, resolution } };
  const { muteUntil: _mute, ...state } = visibleState(resolved, ctx.now);
  try {
    await ctx.slack.update({ channel: r.channel, ts, ...rootMessage(resolved, state) });
  } catch (e) {
    if (!isRwxError(e, 'NOT_FOUND')) throw e; // someone deleted the root: the reply stands, nothing to edit
  }
  const awaiting = awaitingFrom(facts, ctx.now);
  return write(awaiting ? { phase: 'following-up', threadTs: ts, resolution, awaiting } : resolved.lifecycle);
};

// Who resolved it and when, and what the reply says: a person's Resolve (the cluster asked now), else the facts
// the evaluator recorded when the incident cleared.
function resolutionOf(ctx: StepContext, r: IncidentRecord): { resolution: Resolution; facts: ResolutionFacts } {
  const history = r.observed.history;
  const manual = r.buttons.resolved;
  if (manual) {
    const observed = ctx.observe?.(history, ctx.now) ?? defaultFacts(history);
    return {
      resolution: { at: manual.at, by: manual.by },
      facts: { ...observed, manual: { user: manual.by, at: manual.at } },
    };
  }
  const cleared = r.observed.cleared;
  return { resolution: { at: cleared?.at ?? ctx.now }, facts: cleared?.facts ?? defaultFacts(history) };
}

// The id of the resolution reply: "resolution", and after the thread reopened (the incident came back at
// observed.reopenedAt) one of its own, so a retry of the second resolution never finds the first and skips it.
function resolutionId(r: IncidentRecord): string {
  return r.observed.reopenedAt === undefined ? 'resolution' : `resolution:${r.observed.reopenedAt}`;
}
