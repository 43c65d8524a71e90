// The one errors module. Code branches on `code`, never on message text. `retryable` tells the queue boundary
// whether to retry (false becomes BullMQ's UnrecoverableError). Messages are one line, meant for the user.

/** Every error code the bot raises. */
export type ErrorCode =
  | 'USAGE' // bad CLI flag, malformed command text
  | 'CONFIG' // invalid configuration value
  | 'INPUT' // unreadable or malformed snapshot / manifest file
  | 'OBJECT' // a Kubernetes object missing a field the bot needs
  | 'NOT_FOUND' // a named object (node, daemonset...) does not exist
  | 'KUBE_UNREACHABLE' // API server did not answer
  | 'KUBE_UNAUTHORIZED' // 401: expired or invalid credentials
  | 'KUBE_FORBIDDEN' // 403 on a request the command cannot do without
  | 'KUBE_GONE' // 410: resourceVersion too old, relist
  | 'KUBE_API' // any other unexpected API status
  | 'REDIS_UNREACHABLE'
  | 'SLACK_RATE_LIMITED'
  | 'SLACK_API'
  | 'SLACK_CHANNEL' // the bot cannot use a channel: not a member (not_in_channel), no such channel, archived
  | 'TIMEOUT'
  | 'AGENT_MISSING' // no rwx agent pod runs on the node (the agent is opt-in)
  | 'AGENT_UNREACHABLE' // the agent pod did not answer (connection refused, reset, not serving yet)
  | 'AGENT_REPORT' // the agent answered, but not a valid report (bad status, too large, not JSON, fails the schema)
  | 'AGENT_VERSION' // a report schema this bot cannot read (an agent much older or newer than the bot)
  | 'INTERNAL';

const RETRYABLE: ReadonlySet<ErrorCode> = new Set([
  'KUBE_UNREACHABLE',
  'KUBE_GONE',
  'KUBE_API',
  'REDIS_UNREACHABLE',
  'SLACK_RATE_LIMITED',
  'TIMEOUT',
  'AGENT_UNREACHABLE',
]);

/** An error with a stable code, a one-line message and retryability. */
export class RwxError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /** For SLACK_RATE_LIMITED: seconds the server asked us to wait. */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { cause?: unknown; retryable?: boolean; retryAfterSeconds?: number } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'RwxError';
    this.code = code;
    this.retryable = opts.retryable ?? RETRYABLE.has(code);
    if (opts.retryAfterSeconds !== undefined) this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** Whether a value is an RwxError, optionally with one of the given codes. */
export function isRwxError(e: unknown, ...codes: ErrorCode[]): e is RwxError {
  return e instanceof RwxError && (codes.length === 0 || codes.includes(e.code));
}

/** Wraps anything thrown into an RwxError, keeping RwxErrors as they are. */
export function toRwxError(e: unknown, fallback: ErrorCode = 'INTERNAL'): RwxError {
  if (e instanceof RwxError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new RwxError(fallback, msg.split('\n')[0] ?? msg, { cause: e });
}
