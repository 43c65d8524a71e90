// A job routed to another cluster's queue (a command, a click) waits for that cluster's worker to take it. A
// cluster that died after its last heartbeat still looks alive, so no routed job may wait forever: one that no
// worker has taken after the timeout is withdrawn, and the sender tells the user so (render.ts notAnswered).
import type { Queue } from 'bullmq';

/** How long a routed command or click may wait for its cluster's worker (the "has not answered in 30 s"). */
export const ANSWER_TIMEOUT_MS = 30_000;

/** How the wait goes: the timeout, how often the job's state is read, and a stop for shutdown. */
export interface WaitOptions {
  timeoutMs?: number;
  /** Default 250 ms. */
  pollMs?: number;
  /** True once the waiter shuts down: stop watching (the job stays queued). */
  closed?: () => boolean;
}

/**
 * Resolves with 'taken' once a worker has taken job `id` (or it is gone), with 'closed' on shutdown, and with
 * the time waited once it was withdrawn unanswered after the timeout (a removal raced by a worker is 'taken').
 */
export async function untilTaken(
  queue: Pick<Queue, 'getJob'>,
  id: string,
  o: WaitOptions = {},
): Promise<'taken' | 'closed' | { withdrawnAfterMs: number }> {
  const timeout = o.timeoutMs ?? ANSWER_TIMEOUT_MS;
  const started = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, Math.min(o.pollMs ?? 250, timeout)));
    if (o.closed?.()) return 'closed';
    const j = await queue.getJob(id);
    if (!j || j.attemptsMade > 0 || !['waiting', 'prioritized'].includes(await j.getState())) return 'taken';
    if (Date.now() - started < timeout) continue;
    try {
      await j.remove();
    } catch {
      return 'taken'; // a worker took it meanwhile: it answers
    }
    return { withdrawnAfterMs: Date.now() - started };
  }
}
