// Sim time. Tests inject a clock they move by hand (anything with now(), and set() to jump it); the demo and
// `rwx sim` run on the wall clock, optionally sped up.

/** Source of the current time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** A clock the simulator may move itself while it runs a timeline step by step (a test's manual clock). */
export interface SettableClock extends Clock {
  set(ms: number): void;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Whether `c` can be set. */
export function isSettable(c: Clock): c is SettableClock {
  return typeof (c as Partial<SettableClock>).set === 'function';
}
