// Logging for `rwx serve` and `rwx demo`: pino JSON lines with secrets removed twice over, by path (pino
// `redact`) and by shape (Slack tokens and URL passwords scrubbed from any string field and from messages),
// because an error message can carry a token that no redact path names. The Slack SDK logs through slackLogger.
import { LogLevel, type Logger as SlackSdkLogger } from '@slack/bolt';
import { format } from 'node:util';
import pino, { type DestinationStream, type Logger } from 'pino';

/** Field paths whose values are never logged. */
export const REDACT_PATHS = [
  'token',
  '*.token',
  'botToken',
  '*.botToken',
  'appToken',
  '*.appToken',
  'signingSecret',
  '*.signingSecret',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'config.slack.botToken',
  'config.slack.appToken',
  'config.slack.signingSecret',
];

const TOKEN = /\b(xox[abposr]|xapp)-[A-Za-z0-9-]+/g;
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@/\s]+@/gi;
const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]+/g;

/** A string with Slack tokens, bearer tokens and URL passwords replaced by [REDACTED]. */
export function scrub(s: string): string {
  return s.replace(TOKEN, '[REDACTED]').replace(URL_PASSWORD, '$1[REDACTED]@').replace(BEARER, '$1[REDACTED]');
}

function scrubDeep(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return scrub(v);
  if (depth > 4 || v === null || typeof v !== 'object') return v;
  if (v instanceof Error) return { type: v.name, message: scrub(v.message), code: (v as { code?: unknown }).code };
  if (Array.isArray(v)) return v.map((x) => scrubDeep(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = scrubDeep(x, depth + 1);
  return out;
}

/** A pino logger at `level` writing JSON lines to `dest` (stdout by default), secrets redacted. */
export function createLogger(level: string, dest?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { name: 'rwx' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      formatters: { log: (obj) => scrubDeep(obj, 0) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? scrub(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    dest ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** The pino level's nearest Slack SDK level (the SDK asks, e.g. to decide whether to build a debug line). */
function sdkLevel(level: string): LogLevel {
  if (level === 'trace' || level === 'debug') return LogLevel.DEBUG;
  if (level === 'info') return LogLevel.INFO;
  if (level === 'warn') return LogLevel.WARN;
  return LogLevel.ERROR;
}

/** One SDK log call's arguments as one message: strings as they are, errors by message, the rest as JSON. */
function sdkMessage(args: unknown[]): string {
  return args
    .map((a) => {
      if (typeof a === 'string') return a;
      if (a instanceof Error) return a.message;
      try {
        return JSON.stringify(a) ?? String(a);
      } catch {
        return String(a);
      }
    })
    .join(' ');
}

/**
 * A Slack SDK logger (the `logger` option of Bolt's App, web-api's WebClient and the Socket Mode client) that
 * writes through `log`, so the SDK's own warnings are JSON lines like ours (component "slack", `sdk` naming the
 * client), never plain text in the stream. pino's level decides: setLevel from the SDK is ignored, and setName too
 * (Bolt hands one logger to its WebClient and Socket Mode client, which would each rename it).
 */
export function slackLogger(log: Logger, sdk: string): SlackSdkLogger {
  const child = log.child({ component: 'slack', sdk });
  return {
    debug: (...msg: unknown[]) => child.debug(sdkMessage(msg)),
    info: (...msg: unknown[]) => child.info(sdkMessage(msg)),
    warn: (...msg: unknown[]) => child.warn(sdkMessage(msg)),
    error: (...msg: unknown[]) => child.error(sdkMessage(msg)),
    setLevel: () => undefined,
    getLevel: () => sdkLevel(child.level),
    setName: () => undefined,
  };
}

type ConsoleMethod = 'debug' | 'log' | 'info' | 'warn' | 'error' | 'trace';
const CONSOLE_LEVELS: Record<ConsoleMethod, 'debug' | 'info' | 'warn' | 'error'> = {
  trace: 'debug',
  debug: 'debug',
  log: 'info',
  info: 'info',
  warn: 'warn',
  error: 'error',
};

/**
 * Sends what libraries print with console.* (BullMQ warns that way, e.g. about a Redis eviction policy) through
 * `log` as JSON lines (component "console"), so the stream stays one JSON object per line. Returns the undo.
 * For `rwx serve` only: it replaces the process-wide console methods.
 */
export function routeConsole(log: Logger): () => void {
  const child = log.child({ component: 'console' });
  const saved = new Map<ConsoleMethod, Console[ConsoleMethod]>();
  for (const [method, level] of Object.entries(CONSOLE_LEVELS) as [
    ConsoleMethod,
    (typeof CONSOLE_LEVELS)[ConsoleMethod],
  ][]) {
    saved.set(method, console[method]);
    console[method] = (...args: unknown[]) => child[level](format(...args));
  }
  return () => {
    for (const [method, f] of saved) console[method] = f;
  };
}
