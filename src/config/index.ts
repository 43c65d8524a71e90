// The configuration module's public surface: load once at start, pass the frozen Config down.
export { CONFIG_KEYS, DEFAULT_CONFIG, type ConfigKey, type KeyInfo } from './keys.js';
export { LOG_LEVELS, rawConfigSchema, type Config } from './schema.js';
export { ConfigError, loadConfig, type LoadConfigOptions } from './load.js';
export { formatDuration, maskSecrets, maskUrl, toFileForm } from './mask.js';
export { DEFAULT_BACKOFF, backoffUpTo, defaultMs } from './defaults.js';
export { referenceTable } from './reference.js';
export { isChannelAllowed, isUserAllowed, needsUsergroupCheck, type Access } from './access.js';
