// Slash commands: `/rwx triage | drain | status | help`. One entry point wires the listener (ack within 3 s), the
// BullMQ queue and its worker (the work and the response_url answer) onto a Bolt app; the pieces are exported for
// tests and for callers that want to place the worker elsewhere.
import type { App } from '@slack/bolt';
import type { ConnectionOptions } from 'bullmq';
import type { Clock } from '../domain/clock.js';
import type { SlackApi } from '../slack/api.js';
import type { SlackAppDeps } from '../slack/app.js';
import { UsergroupCache, USERGROUP_TTL_MS, type AccessPolicy, type UsergroupDirectory } from './authorize.js';
import type { CommandServices } from './handle.js';
import { createCommandQueue, createCommandWorker, type CommandJob, type ReportUploader } from './queue.js';
import type { CommandObserver } from './observe.js';
import { registerCommands } from './register.js';
import { fetchResponseSender, type ResponseSender } from './response-url.js';
import { fastClient, slackReportUploader, webUsergroupDirectory, type ApiCaller } from './slack-adapters.js';

export { parseCommand, type ParsedCommand, type TriageScope } from './parse.js';
export { runCommand, type CommandServices } from './handle.js';
export { registerCommands, SLASH_COMMAND, type CommandListenerDeps } from './register.js';
export {
  createCommandQueue,
  createCommandWorker,
  processCommandJob,
  COMMAND_QUEUE,
  type CommandJob,
  type ReportUploader,
} from './queue.js';
export { authorize, UsergroupCache, type AccessPolicy, type UsergroupDirectory } from './authorize.js';
export { openIncidentsFromStore } from './status-source.js';
export { fetchResponseSender, responseUrlAllowed, type ResponseSender } from './response-url.js';
export type { OpenIncident } from './render-status.js';
export { fastClient, type ApiCaller } from './slack-adapters.js';
export { COMMAND_NAMES, COMMAND_OUTCOMES, type CommandName, type CommandObserver } from './observe.js';

/** Everything `setupCommands` needs. */
export interface CommandSetup {
  /** Who may use /rwx (Config['access']). */
  access: AccessPolicy;
  /** The handlers' read-only view of the cluster, the engines, and the incident store listing. */
  services: CommandServices;
  /** Redis for the command queue, and the key prefix (Config['redis'].prefix). */
  redis: { connection: ConnectionOptions; prefix: string };
  clock: Clock;
  /**
   * For usergroups.users.list and conversations.open. Default: fastClient(botToken, slackApiUrl) when botToken is
   * given, else Bolt's app.client (which retries rate-limited calls for a long time).
   */
  client?: ApiCaller;
  botToken?: string;
  slackApiUrl?: string;
  /** For uploading full triage reports (files.*); without it, long reports are only summarised. */
  slack?: Pick<SlackApi, 'uploadFile'>;
  /** Origins besides *.slack.com that response_urls may point at (SLACK_API_URL's origin for fakes). */
  extraResponseOrigins?: readonly string[];
  /**
   * Where the listener puts the work, instead of this cluster's queue (src/fleet: the queue of the cluster the
   * command is about). The worker still serves this cluster's queue (`redis.prefix`).
   */
  enqueue?: (job: CommandJob, jobId?: string) => Promise<unknown>;
  /** Start a worker in this process (default true); a replica running only the listener sets false. */
  worker?: boolean;
  workerConcurrency?: number;
  usergroupTtlMs?: number;
  /** Longest wait for a user group look-up before refusing (default 1500 ms, inside Slack's 3 s). */
  authBudgetMs?: number;
  /** Overrides for tests. */
  sender?: ResponseSender;
  uploader?: ReportUploader;
  usergroups?: UsergroupDirectory;
  log?: { error(obj: object, msg: string): void };
  /** Told each command's outcome once (metrics). */
  observe?: CommandObserver;
}

/** Registers `/rwx` on `app` and starts the command queue (and, by default, a worker). Call before app.start(). */
export function setupCommands(app: App, s: CommandSetup): { close(): Promise<void> } {
  const client: ApiCaller =
    s.client ?? (s.botToken ? fastClient(s.botToken, s.slackApiUrl) : (app.client as unknown as ApiCaller));
  const redis = { ...s.redis, ...(s.log ? { log: s.log } : {}) };
  const queue = createCommandQueue(redis);
  const uploader = s.uploader ?? (s.slack ? slackReportUploader(s.slack, client) : undefined);
  const worker =
    s.worker === false
      ? undefined
      : createCommandWorker(
          { ...redis, ...(s.workerConcurrency ? { concurrency: s.workerConcurrency } : {}) },
          {
            services: s.services,
            sender: s.sender ?? fetchResponseSender({ extraOrigins: s.extraResponseOrigins ?? [] }),
            ...(uploader ? { uploader } : {}),
            ...(s.observe ? { observe: s.observe } : {}),
          },
        );
  registerCommands(app, {
    access: s.access,
    usergroups: new UsergroupCache(
      s.usergroups ?? webUsergroupDirectory(client),
      s.clock,
      s.usergroupTtlMs ?? USERGROUP_TTL_MS,
    ),
    enqueue: async (job, id) => {
      await (s.enqueue ?? queue.enqueue)(job, id);
    },
    ...(s.authBudgetMs !== undefined ? { authBudgetMs: s.authBudgetMs } : {}),
    ...(s.log ? { log: s.log } : {}),
    ...(s.observe ? { observe: s.observe } : {}),
  });
  return {
    async close() {
      await worker?.close();
      await queue.close();
    },
  };
}

/**
 * The `registerCommands` hook for createSlackApp (src/slack/app.ts): registers `/rwx` when the app is built, with
 * the app's clock unless `setup.clock` is given. `close()` stops the queue and worker (call on shutdown).
 */
export function commandsHook(setup: Omit<CommandSetup, 'clock'> & { clock?: Clock }): {
  register(app: App, deps: SlackAppDeps): void;
  close(): Promise<void>;
} {
  let handle: { close(): Promise<void> } | undefined;
  return {
    register(app, deps) {
      handle = setupCommands(app, { ...setup, clock: setup.clock ?? deps.clock });
    },
    async close() {
      await handle?.close();
    },
  };
}
