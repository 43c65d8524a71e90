// Holds on the cluster cache. A reader that spans turns of the event loop (rwx serve's evaluation, which hands the
// loop back now and then so /healthz and /readyz are answered) holds the cache; its writer (the watcher) defers
// every change until no reader does, so the reader sees one state from its first read to its last, as if it had
// run in one piece. Pure bookkeeping: the deferring is the writer's (src/watch/watcher.ts).

/** Counts the readers holding the cache and calls back the writer once none does. */
export class Holds {
  private count = 0;
  private waiting: (() => void)[] = [];

  /** Holds until the returned release is called (calling it again does nothing). */
  hold(): () => void {
    this.count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.count > 0) return;
      const waiting = this.waiting;
      this.waiting = [];
      for (const fn of waiting) fn();
    };
  }

  /** Whether a reader holds the cache now. */
  get held(): boolean {
    return this.count > 0;
  }

  /** Calls `fn` once no reader holds the cache: at once when none does. */
  whenFree(fn: () => void): void {
    if (this.count === 0) fn();
    else this.waiting.push(fn);
  }
}
