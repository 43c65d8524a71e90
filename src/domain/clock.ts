// The injected clock: everything time-dependent takes a Clock (or a `now` in ms) so tests never sleep.

/** Source of the current time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  now(): number {
    return this.ms;
  }
  /** Moves time forward by `deltaMs`. */
  advance(deltaMs: number): void {
    this.ms += deltaMs;
  }
  /** Sets the time. */
  set(ms: number): void {
    this.ms = ms;
  }
}
