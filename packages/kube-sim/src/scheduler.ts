// Sim-time scheduler: timeline steps and kubelet transitions are actions due at a simulated instant. The
// simulator runs them in time order when a test calls advance(), or from a timer in realtime mode.

/** An action due at `at` (epoch ms of sim time); `key` lets a later schedule of the same thing be skipped. */
interface Due {
  at: number;
  seq: number;
  key?: string;
  run: (now: number) => void;
}

/** A time-ordered queue of actions. Ties run in the order they were scheduled. */
export class Scheduler {
  private queue: Due[] = [];
  private seq = 0;
  private readonly keys = new Set<string>();

  /** Schedules `run` at `at`; with a `key` already pending, does nothing and returns false. */
  schedule(at: number, run: (now: number) => void, key?: string): boolean {
    if (key !== undefined) {
      if (this.keys.has(key)) return false;
      this.keys.add(key);
    }
    this.queue.push({ at, seq: this.seq++, key, run });
    this.queue.sort((a, b) => a.at - b.at || a.seq - b.seq);
    return true;
  }

  /** Whether an action with this key is pending. */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Drops a pending keyed action. */
  cancel(key: string): void {
    if (!this.keys.delete(key)) return;
    this.queue = this.queue.filter((d) => d.key !== key);
  }

  /** Time of the next action, or undefined when idle. */
  next(): number | undefined {
    return this.queue[0]?.at;
  }

  /** Removes and returns the next action if it is due at or before `now`. */
  take(now: number): Due | undefined {
    const d = this.queue[0];
    if (!d || d.at > now) return undefined;
    this.queue.shift();
    if (d.key !== undefined) this.keys.delete(d.key);
    return d;
  }
}
