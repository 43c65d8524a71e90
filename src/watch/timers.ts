// Timers behind an interface so the reflector's backoff and the pipeline's ticks run on a ManualClock in tests.
import type { Clock } from '../domain/clock.js';

/** Schedules callbacks; `set` returns a handle for `clear`. */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** Node's setTimeout/clearTimeout. */
export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Timers that fire only when `advance` moves the shared ManualClock past their due time, in due order. */
export class ManualTimers implements Timers {
  private seq = 0;
  private readonly pending = new Map<number, { due: number; fn: () => void }>();

  constructor(private readonly clock: Clock & { advance(ms: number): void }) {}

  set(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { due: this.clock.now() + ms, fn });
    return id;
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Number of timers not yet fired. */
  get size(): number {
    return this.pending.size;
  }

  /** Fires every timer already due at the clock's current time (after someone else moved the clock). */
  runDue(): void {
    this.advance(0);
  }

  /** Advances the clock by `ms`, firing every timer that falls due (including ones scheduled meanwhile). */
  advance(ms: number): void {
    const end = this.clock.now() + ms;
    for (;;) {
      let next: [number, { due: number; fn: () => void }] | undefined;
      for (const e of this.pending) if (e[1].due <= end && (!next || e[1].due < next[1].due)) next = e;
      if (!next) break;
      this.pending.delete(next[0]);
      const delta = next[1].due - this.clock.now();
      if (delta > 0) this.clock.advance(delta);
      next[1].fn();
    }
    const rest = end - this.clock.now();
    if (rest > 0) this.clock.advance(rest);
  }
}
