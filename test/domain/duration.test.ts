import { describe, expect, it } from 'vitest';
import { formatAge, parseDuration } from '../../src/domain/duration.js';
import { isRwxError } from '../../src/errors.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000], // seconds
    ['5m', 300_000], // minutes
    ['1h30m', 5_400_000], // compound
    ['-3h1m', -10_860_000], // negative offsets, as scenario files use
    ['250ms', 250], // milliseconds
  ])('%s -> %d', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '5', 'm5', '5 minutes', '1x'])('rejects %j with a USAGE error naming the input', (text) => {
    try {
      parseDuration(text, 'RWX_STUCK_AFTER');
      expect.unreachable();
    } catch (e) {
      expect(isRwxError(e, 'USAGE')).toBe(true);
      expect((e as Error).message).toContain('RWX_STUCK_AFTER');
    }
  });
});

describe('formatAge', () => {
  it.each([
    [45_000, '45s'],
    [12 * 60_000, '12m'],
    [(3 * 60 + 1) * 60_000, '3h1m'],
    [26 * 86_400_000, '26d'],
  ])('%d -> %s', (ms, text) => expect(formatAge(ms)).toBe(text));
});
