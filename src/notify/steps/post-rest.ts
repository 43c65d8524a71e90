// The second evidence reply: what the first one left out (render/slack-evidence.ts renderEvidenceRest), posted once
// right after it, and edited in place on each update so it shows the incident as it is now (edit-root.ts
// editRest). Posted like every reply (post-reply.ts replyOnce): its id is marked before the post, so a retry after
// a crash looks it up first and never posts a second one; its ts is recorded in the thread (Thread.rest) only
// after Slack accepted it. A thread whose first reply held everything gets none, even if the incident grows later.
// Once due, it is posted even when the incident has shrunk since so that nothing is left out ("Nothing more", as
// editRest says then): the first reply told readers the next reply holds the rest.
import { renderEvidenceRest, renderNoEvidenceRest } from '../../render/slack-thread.js';
import { proofHint, replyOnce } from './post-reply.js';
import { type StepFn, inPhase, write } from './step.js';

/** The reply id of the second evidence reply (its metadata): one per thread. */
const REST_ID = 'evidence-rest';

/** post-rest: the second evidence reply, or "Nothing more" when the incident's evidence now fits the first. */
export const postRest: StepFn = async (ctx, record) => {
  const r = inPhase(record, 'post-rest', 'open');
  const { replying: _, rest: __, ...thread } = r.lifecycle.thread;
  const incident = r.observed.incident;
  const message =
    renderEvidenceRest(incident, { proofHint: await proofHint(ctx, r) }) ?? renderNoEvidenceRest(incident);
  const ts = await replyOnce(ctx, r, thread.ts, REST_ID, message);
  return write({ phase: 'open', thread: { ...thread, rest: { ts } } });
};
