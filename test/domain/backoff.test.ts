import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/domain/backoff.js';

describe('backoffDelay', () => {
  const policy = { initialMs: 500, maxMs: 10_000 };
  it.each([
    [0, 0], // no failure yet: no wait
    [1, 500], // the first failure waits initialMs
    [2, 1_000], // doubling
    [3, 2_000],
    [5, 8_000],
    [6, 10_000], // 16 s capped at maxMs
    [50, 10_000], // a long outage stays at the cap
    [1e6, 10_000], // and never overflows to Infinity
  ])('after %d failures waits %d ms', (failures, ms) => expect(backoffDelay(policy, failures)).toBe(ms));

  it.each([
    [{ initialMs: 500, maxMs: 2_000 }, [500, 1_000, 2_000, 2_000]], // a test's 2 s cap is reached on the third failure
    [{ initialMs: 1_000, maxMs: 30_000 }, [1_000, 2_000, 4_000, 8_000]], // another first wait doubles the same way
    [{ initialMs: 500, maxMs: 300 }, [300, 300, 300, 300]], // a cap below the first wait wins
  ])('%j waits %j for failures 1-4', (policy, waits) =>
    expect([1, 2, 3, 4].map((n) => backoffDelay(policy, n))).toEqual(waits),
  );
});
