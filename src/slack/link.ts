// Whether the bot can talk to Slack, for /readyz. Socket Mode: the WebSocket is connected (Slack said hello); HTTP
// mode: auth.test has succeeded once with the bot token. Until then the bot is not ready, and the reason says
// which. The connection is made in the background with capped backoff, so a Slack outage at start-up leaves a
// running, unready bot (the kubelet does not restart it) instead of a crash loop.
import { DEFAULT_BACKOFF } from '../config/defaults.js';
import { type Backoff, backoffDelay } from '../domain/backoff.js';
import { RwxError, toRwxError } from '../errors.js';

/** Backoff between connection attempts unless configured: the one retry rule (RWX_RETRY_MAX's default cap). */
export const LINK_BACKOFF: Backoff = DEFAULT_BACKOFF;

/** The state /readyz reads: undefined reason = connected. */
export class SlackLink {
  private reason: string | undefined;
  constructor(initial = 'not connected yet') {
    this.reason = initial;
  }
  /** True, or why not (for the readiness check named "slack"). */
  probe(): true | string {
    return this.reason === undefined ? true : this.reason;
  }
  up(): void {
    this.reason = undefined;
  }
  down(reason: string): void {
    this.reason = reason;
  }
}

/** The part of a SocketModeClient this file listens to. */
export interface ConnectionEvents {
  on(event: string, listener: () => void): unknown;
}

/** Follows a SocketModeClient's connection events: connected once Slack said hello, down in every other state. */
export function followSocketMode(client: ConnectionEvents, link: SlackLink): void {
  client.on('connected', () => link.up());
  for (const state of ['connecting', 'reconnecting', 'disconnecting', 'disconnected'])
    client.on(state, () => link.down(`Socket Mode ${state}`));
}

/** A platform error (invalid_auth, not_authed...): the configuration is wrong, and retrying will not help. */
export function isPlatformError(e: unknown): boolean {
  return (e as { code?: string }).code === 'slack_webapi_platform_error';
}

/**
 * The start-up error for a token Slack refused (a platform error such as invalid_auth): which variable holds it and
 * how to get a good one, in one line. The loop's own log line keeps Slack's words.
 */
export function refusedToken(e: unknown, variable: string, fix: string): RwxError {
  const code = (e as { data?: { error?: unknown } }).data?.error;
  const why = typeof code === 'string' ? code : toRwxError(e).message;
  return new RwxError('CONFIG', `Slack refused ${variable} (${why}): ${fix} (docs/slack-app.md)`, { cause: e });
}

/** How a connection loop reports. */
export interface LinkHooks {
  /** Each failed attempt (the link is already down with the reason). */
  failed: (message: string, attempt: number) => void;
  /** A platform error: the loop ends, the link stays down naming it. */
  fatal: (e: unknown) => void;
}

/** A running connection loop. */
export interface LinkLoop {
  /** Settles after the first attempt: with its platform error, if it had one (start-up refuses a wrong token). */
  first: Promise<unknown>;
  /** Ends when the attempt succeeded, the loop was stopped, or a platform error ended it. */
  done: Promise<void>;
  stop(): void;
}

/**
 * Runs `attempt` until it resolves or stop() is called, waiting LINK_BACKOFF between failures. A platform error
 * ends the loop (a wrong token stays wrong); any other failure (Slack unreachable, 5xx) is retried.
 */
export function keepTrying(
  what: string,
  attempt: () => Promise<unknown>,
  link: SlackLink,
  hooks: LinkHooks,
  backoff: Backoff = LINK_BACKOFF,
): LinkLoop {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  let settleFirst: (e: unknown) => void = () => undefined;
  const first = new Promise<unknown>((r) => (settleFirst = r));
  const done = (async () => {
    for (let n = 1; !stopped; n++) {
      try {
        await attempt();
        return;
      } catch (e) {
        if (stopped) return;
        const message = toRwxError(e).message;
        link.down(`${what} failed (${message})${isPlatformError(e) ? '' : '; retrying'}`);
        if (isPlatformError(e)) {
          settleFirst(e);
          return hooks.fatal(e);
        }
        hooks.failed(message, n);
        settleFirst(undefined);
        await new Promise<void>((r) => {
          wake = r;
          timer = setTimeout(r, backoffDelay(backoff, n));
        });
      } finally {
        settleFirst(undefined);
      }
    }
  })();
  return {
    first,
    done,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}

/** The logger a loop reports to (Bolt's, which serve routes through pino). */
export interface LinkLogger {
  warn(...msg: unknown[]): void;
  error(...msg: unknown[]): void;
}

/**
 * Keeps a Socket Mode client connected: `start` (the app's start) is retried in the background with backoff, at
 * start-up and after every disconnection (the client's own reconnection is off: on a failed reconnection it
 * leaves a rejected promise nobody handles). Resolves after the first attempt; rejects only on a platform error.
 */
export async function keepSocketConnected(
  client: ConnectionEvents,
  start: () => Promise<unknown>,
  link: SlackLink,
  log: LinkLogger,
  backoff: Backoff = LINK_BACKOFF,
): Promise<{ stop(): Promise<void> }> {
  followSocketMode(client, link);
  let loop: LinkLoop | undefined;
  let stopping = false;
  const hooks: LinkHooks = {
    failed: (m, n) => log.warn(`Socket Mode connection failed (attempt ${n}): ${m}; retrying`),
    fatal: (e) => log.error(`Socket Mode connection refused: ${toRwxError(e).message}`),
  };
  const connect = (): LinkLoop => {
    const attempt = async (): Promise<void> => {
      await start();
      loop = undefined; // connected: the next disconnection starts a new loop (synchronously, so none is missed)
    };
    const l = keepTrying('Socket Mode connection', attempt, link, hooks, backoff);
    loop = l;
    void l.done.finally(() => {
      if (loop === l) loop = undefined;
    });
    return l;
  };
  client.on('disconnected', () => {
    // During an attempt its own failure retries; after stop() nothing reconnects.
    if (!stopping && !loop) connect();
  });
  const fatal = await connect().first;
  if (fatal)
    throw refusedToken(
      fatal,
      'SLACK_APP_TOKEN',
      'give an app-level token (xapp-...) with the connections:write scope, from Basic Information -> App-Level Tokens',
    );
  return {
    // Not awaited: an attempt in flight ends when the app's stop disconnects the client.
    stop: async () => {
      stopping = true;
      loop?.stop();
    },
  };
}

/**
 * HTTP mode: auth.test with the bot token, retried in the background with backoff until it succeeds (then the
 * link is up). Resolves after the first attempt; rejects only on a platform error (a wrong token).
 */
export async function verifyAuth(
  authTest: () => Promise<unknown>,
  link: SlackLink,
  log: LinkLogger,
  backoff: Backoff = LINK_BACKOFF,
): Promise<{ stop(): Promise<void> }> {
  const attempt = async (): Promise<void> => {
    await authTest();
    link.up();
  };
  const loop = keepTrying(
    'auth.test',
    attempt,
    link,
    {
      failed: (m, n) => log.warn(`Slack auth.test failed (attempt ${n}): ${m}; retrying`),
      fatal: (e) => log.error(`Slack auth.test refused the bot token: ${toRwxError(e).message}`),
    },
    backoff,
  );
  const fatal = await loop.first;
  if (fatal) throw refusedToken(fatal, 'SLACK_BOT_TOKEN', "give the installed app's Bot User OAuth Token (xoxb-...)");
  return {
    // Not awaited: an auth.test in flight ends within its deadline and changes nothing.
    stop: async () => loop.stop(),
  };
}

/** Who the bot is, as Bolt's authorize result wants it. */
export interface BotIdentity {
  botUserId?: string;
  botId?: string;
}

/**
 * auth.test once, remembered after it succeeded; a failure is forgotten so the next call asks again. Bolt's own
 * token verification calls auth.test as the app is built and keeps that promise for good: a Slack outage at
 * start-up would leave every later click and command failing (and an unhandled rejection).
 */
export function botIdentity(
  authTest: () => Promise<{ user_id?: string; bot_id?: string }>,
): () => Promise<BotIdentity> {
  let cached: Promise<BotIdentity> | undefined;
  return () => {
    cached ??= authTest().then(
      (r) => ({ ...(r.user_id ? { botUserId: r.user_id } : {}), ...(r.bot_id ? { botId: r.bot_id } : {}) }),
      (e: unknown) => {
        cached = undefined;
        throw e;
      },
    );
    return cached;
  };
}
