// The Bolt 5 app: Socket Mode when an app token is set, else the HTTP receiver (signed requests on
// `/slack/events`). It handles the incident root's buttons; slash commands plug in through `registerCommands`.
import { App, HTTPReceiver, LogLevel, SocketModeReceiver, webApi, type CustomRoute, type Logger } from '@slack/bolt';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Backoff } from '../domain/backoff.js';
import { defaultMs } from '../config/defaults.js';
import { type Clock, systemClock } from '../domain/clock.js';
import { RwxError, toRwxError } from '../errors.js';
import type { IncidentActions } from '../domain/actions.js';
import { type SlackAppDeps, registerIncidentButtons } from './buttons.js';
import type { Audit } from './audit.js';
import { type BotIdentity, botIdentity, keepSocketConnected, LINK_BACKOFF, SlackLink, verifyAuth } from './link.js';
import { guardSlackRequests, memoryReplayLedger, type ReplayLedger } from './request-guard.js';

export type { SlackAppDeps } from './buttons.js';

/** Options of createSlackApp. Socket Mode when appToken is set; HTTP (signingSecret required) otherwise. */
export interface SlackAppOptions {
  botToken: string;
  appToken?: string;
  signingSecret?: string;
  /** HTTP port (default 3000; 0 picks a free one). Ignored in Socket Mode. */
  port?: number;
  /** Web API base URL (SLACK_API_URL), also used for apps.connections.open. */
  slackApiUrl?: string;
  actions: IncidentActions;
  clock?: Clock;
  authorize?: SlackAppDeps['authorize'];
  /** The hook for `/rwx` and anything else that registers listeners on the app. */
  registerCommands?: (app: App, deps: SlackAppDeps) => void;
  /** Extra HTTP routes (HTTP mode), e.g. /healthz. */
  customRoutes?: CustomRoute[];
  /** A Bolt logger; default: errors only, to stderr. */
  logger?: Logger;
  /** HTTP mode: where accepted requests are remembered to refuse replays (serve: Redis); default this process. */
  replays?: ReplayLedger;
  /** Where the connection state goes (the serve composition reads it for /readyz); default a new one. */
  link?: SlackLink;
  /** The audit trail of clicks (and, through registerCommands' deps, commands); default none. */
  audit?: Audit;
  /** Backoff between connection attempts (tests shorten it). */
  backoff?: Backoff;
  /** Each connection attempt's deadline (RWX_SLACK_REQUEST_TIMEOUT; default its default, 10 s). */
  requestTimeoutMs?: number;
}

/** A built app: `start()` connects (Socket Mode) or listens (HTTP); `port` is set after start in HTTP mode. */
export interface SlackApp {
  app: App;
  mode: 'socket' | 'http';
  /**
   * Listens (HTTP) and connects to Slack. Resolves after the first connection attempt whatever its outcome, so a
   * Slack outage leaves the bot running and unready (`link`) while it retries; rejects on a wrong token.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
  port?: number;
  /** Connected (Socket Mode) or authenticated (HTTP, auth.test), for /readyz. */
  link: SlackLink;
}

/** Web API client options for connection attempts: no retry (the connection loop retries), a deadline. */
const failFast = (opts: SlackAppOptions) => ({
  retryConfig: { retries: 0 },
  timeout: opts.requestTimeoutMs ?? defaultMs('slackRequestTimeout'),
});

/** Builds the Bolt app with the incident buttons registered; throws RwxError('CONFIG') on a bad combination. */
export function createSlackApp(opts: SlackAppOptions): SlackApp {
  const socket = socketMode(opts);
  const clientOptions = opts.slackApiUrl ? { slackApiUrl: opts.slackApiUrl } : {};
  // Fail fast per attempt (the connection loops retry); Bolt's own client would retry for half an hour.
  const probe = new webApi.WebClient(opts.botToken, { ...clientOptions, ...failFast(opts) });
  const identity = botIdentity(() => probe.auth.test());
  const common = {
    authorize: async () => ({ botToken: opts.botToken, ...(await identity()) }),
    clientOptions,
    ...boltLogging(opts),
  };
  const socketReceiver = socket ? socketModeReceiver(opts, clientOptions) : undefined;
  const app = socketReceiver
    ? new App({ ...common, receiver: socketReceiver })
    : new App({ ...common, receiver: guardedReceiver(opts, opts.signingSecret!) });
  registerListeners(app, opts);
  return connecting(app, socketReceiver, identity, opts);
}

/** Whether the app runs in Socket Mode (an app token is set); throws RwxError('CONFIG') when a token is missing. */
function socketMode(opts: SlackAppOptions): boolean {
  if (!opts.botToken) throw new RwxError('CONFIG', 'SLACK_BOT_TOKEN is required');
  const socket = Boolean(opts.appToken);
  if (!socket && !opts.signingSecret)
    throw new RwxError('CONFIG', 'SLACK_SIGNING_SECRET is required when SLACK_APP_TOKEN is not set');
  return socket;
}

/** Bolt's logging: the given logger, else Bolt's own at errors only (to stderr). */
function boltLogging(opts: SlackAppOptions): { logger: Logger } | { logLevel: LogLevel } {
  return opts.logger ? { logger: opts.logger } : { logLevel: LogLevel.ERROR };
}

// Socket Mode: our own receiver, its client's reconnection off (keepSocketConnected in link.ts does it).
function socketModeReceiver(opts: SlackAppOptions, clientOptions: { slackApiUrl?: string }): SocketModeReceiver {
  return new SocketModeReceiver({
    appToken: opts.appToken!,
    autoReconnectEnabled: false,
    // One bounded apps.connections.open per attempt: the loop retries (the SDK default retries for 30 min).
    installerOptions: { clientOptions: { ...clientOptions, ...failFast(opts) } },
    ...boltLogging(opts),
  });
}

/** The incident buttons, `registerCommands`' listeners and the error handler, on `app`. */
function registerListeners(app: App, opts: SlackAppOptions): void {
  const deps: SlackAppDeps = {
    actions: opts.actions,
    clock: opts.clock ?? systemClock,
    authorize: opts.authorize ?? (async () => true),
    ...(opts.audit ? { audit: opts.audit } : {}),
  };
  app.error(async (e) => {
    // Bolt already answered (or timed out); log one line without payloads (they may carry response URLs).
    (opts.logger ?? console).error?.(`slack app error: ${toRwxError(e).message}`);
  });
  registerIncidentButtons(app, deps);
  opts.registerCommands?.(app, deps);
}

/**
 * The SlackApp over a built `app`: start keeps the Socket Mode connection up (socketReceiver set), or listens and
 * verifies the bot token (HTTP); stop ends the connection loop, then the app.
 */
function connecting(
  app: App,
  socketReceiver: SocketModeReceiver | undefined,
  identity: () => Promise<BotIdentity>,
  opts: SlackAppOptions,
): SlackApp {
  const link = opts.link ?? new SlackLink();
  const log = opts.logger ?? console;
  const backoff = opts.backoff ?? LINK_BACKOFF;
  let connection: { stop(): Promise<void> } | undefined;
  const built: SlackApp = {
    app,
    link,
    mode: socketReceiver ? 'socket' : 'http',
    async start() {
      if (socketReceiver) {
        connection = await keepSocketConnected(socketReceiver.client, () => app.start(), link, log, backoff);
        return;
      }
      const server = (await app.start(opts.port ?? 3000)) as Server;
      built.port = (server.address() as AddressInfo).port;
      try {
        connection = await verifyAuth(identity, link, log, backoff);
      } catch (e) {
        await app.stop(); // a refused token ends the start-up: the port must not keep the process alive
        throw e;
      }
    },
    async stop() {
      await connection?.stop();
      await app.stop();
    },
  };
  return built;
}

// Bolt's HTTP receiver with the request guard in front of it (timestamps both ways, replays: request-guard.ts).
// Slack dates requests by the wall clock, so the guard uses it, whatever clock the incidents run on.
function guardedReceiver(opts: SlackAppOptions, signingSecret: string): HTTPReceiver {
  const clock = systemClock;
  const receiver = new HTTPReceiver({
    signingSecret,
    endpoints: '/slack/events',
    ...(opts.customRoutes ? { customRoutes: opts.customRoutes } : {}),
    ...boltLogging(opts),
  });
  const warn = (msg: string): void => void (opts.logger ?? console).warn(msg);
  receiver.requestListener = guardSlackRequests(receiver.requestListener, {
    signingSecret,
    ledger: opts.replays ?? memoryReplayLedger(clock),
    clock,
    warn,
  });
  return receiver;
}
