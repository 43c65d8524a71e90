// The two ends of a record: closed once resolved and nothing is left to say (kept a while, then it expires), or
// discarded when the incident cleared before anything was posted.
import { type StepFn, inPhase } from './step.js';

/** close: the resolved record leaves the open set and expires after closedTtlMs. */
export const close: StepFn = async (_ctx, record) => {
  const { replying: _, ...l } = inPhase(record, 'close', 'resolved').lifecycle;
  return { kind: 'close', lifecycle: { ...l, phase: 'closed' } };
};

/** discard: nothing of the incident reached Slack; the record goes. */
export const discard: StepFn = async (_ctx, record) => {
  inPhase(record, 'discard', 'pending');
  return { kind: 'delete' };
};
