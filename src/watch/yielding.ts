// Work in steps (src/domain/steps.ts) over the watcher's cache, run without holding the event loop: a turn is handed
// back whenever a step ends STEP_BUDGET_MS or more after the last turn, so /healthz, /readyz and the watch streams
// wait about that long, not for the whole of it (an evaluation of 5 000 stuck pods took 100-500 ms in one piece on
// a loaded machine; /rwx drain's at 150k pods 0.2-0.4 s on a quiet one). The cache is held meanwhile (runHeld).
import { performance } from 'node:perf_hooks';
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Steps } from '../domain/steps.js';

/** One turn of the event loop: timers and I/O (an HTTP probe, a watch chunk) run before the next batch. */
export const turn = (): Promise<void> => new Promise<void>((r) => setImmediate(r));

/** How long a stretch of steps may run before the event loop gets a turn (ms). */
export const STEP_BUDGET_MS = 10;

/** Runs `steps` to the end, handing the event loop back between steps every `budgetMs`; resolves to the result. */
export async function runSteps<T>(steps: Steps<T>, budgetMs = STEP_BUDGET_MS): Promise<T> {
  let since = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - since < budgetMs) continue;
    await turn();
    since = performance.now();
  }
}

/**
 * Runs the steps `make` returns with `index` held from before the first to after the last (src/domain/holds.ts):
 * the watcher applies nothing meanwhile, so the steps read one state of the cluster, as if run in one piece.
 */
export async function runHeld<T>(index: ClusterIndex, make: () => Steps<T>, budgetMs = STEP_BUDGET_MS): Promise<T> {
  const release = index.holds.hold();
  try {
    return await runSteps(make(), budgetMs);
  } finally {
    release();
  }
}
