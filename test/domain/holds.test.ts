// Holds on the cluster cache (src/domain/holds.ts): counted, released once each, and the writer called back once
// no reader holds it.
import { describe, expect, it } from 'vitest';
import { Holds } from '../../src/domain/holds.js';

describe('Holds', () => {
  it('is held until every hold is released, and calls back then, once', () => {
    const h = new Holds();
    const calls: string[] = [];
    h.whenFree(() => calls.push('free at once'));
    const a = h.hold();
    const b = h.hold();
    h.whenFree(() => calls.push('after both'));
    expect(h.held).toBe(true);
    a();
    a(); // a second release of the same hold does nothing
    expect([h.held, calls]).toEqual([true, ['free at once']]);
    b();
    expect([h.held, calls]).toEqual([false, ['free at once', 'after both']]);
    h.hold()();
    expect(calls).toHaveLength(2);
  });
});
