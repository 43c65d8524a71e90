// Re-exports for the config tests, so each test file imports from one place.
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
