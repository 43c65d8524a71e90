// Work in steps: a generator that yields wherever its caller may hand the event loop back (rwx serve, between two
// incidents or two nodes' drain advice), and finish() for the callers that run it in one piece (the CLI). Between
// two steps the work keeps reading the cluster cache, so a caller that lets the loop run meanwhile holds it.

/** Work done in steps: it yields between them, and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` in one piece and returns the result. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
