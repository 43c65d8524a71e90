// The simulator's own errors: a code to branch on and a one-line message. The simulator does not share the bot's
// error module: callers (the bot's CLI, tests) map these codes to their own.

/** What went wrong, by kind of cause. */
export type SimErrorCode =
  | 'SCENARIO' // unreadable or malformed scenario file, template or field path
  | 'SELECTOR' // malformed label or field selector (the HTTP layer answers 400)
  | 'FAULT' // a fault command the simulator does not understand, or a client name already taken
  | 'KIND' // a kind the simulator does not serve
  | 'PORT_IN_USE' // the requested port is taken
  | 'TLS'; // no certificate could be made for TLS mode

/** An error with a stable code. */
export class SimError extends Error {
  constructor(
    readonly code: SimErrorCode,
    message: string,
    opts: { cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'SimError';
  }
}

/** Whether `e` is a SimError, optionally with one of `codes`. */
export function isSimError(e: unknown, ...codes: SimErrorCode[]): e is SimError {
  return e instanceof SimError && (codes.length === 0 || codes.includes(e.code));
}
