// Re-exports for the config tests, so each test file imports from one place.
import { expect } from 'vitest';
import type { ConfigError } from '../../src/config/index.js';
import { isRwxError } from '../../src/errors.js';

export {
  formatDuration,
  isChannelAllowed,
  isUserAllowed,
  loadConfig,
  maskSecrets,
  maskUrl,
  toFileForm,
} from '../../src/config/index.js';
export { parseDuration } from '../../src/domain/duration.js';

/** The problems of the ConfigError (code CONFIG) that `fn` throws; fails the test when it throws none. */
export function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    expect(isRwxError(e, 'CONFIG')).toBe(true);
    return [...(e as ConfigError).problems];
  }
  throw new Error('expected a ConfigError');
}
