// The slash-command work queue (BullMQ). The Bolt listener acknowledges within Slack's 3 seconds and enqueues a
// CommandJob; a worker (any replica) runs the command against its cluster view and answers on the response_url.
// Retries cover the answer's delivery only: the reply is recomputed on retry (it is pure and cheap), and once the
// response_url has been answered the job remembers it so a retry after a failed upload does not answer twice.
import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { toRwxError } from '../errors.js';
import { redisDown, workerOptions } from '../store/ride-out.js';
import { runCommand, type CommandServices } from './handle.js';
import type { Attachment } from './message.js';
import type { CommandContext, CommandName, CommandObserver } from './observe.js';
import { parseCommand } from './parse.js';
import type { ResponseSender } from './response-url.js';

/** Queue name (BullMQ adds the prefix). */
export const COMMAND_QUEUE = 'rwx-commands';

/** One slash command to run. Plain JSON: it crosses Redis. */
export interface CommandJob {
  /** The command text as Slack sent it (re-parsed by the worker; parsing is pure). */
  text: string;
  userId: string;
  channelId: string;
  responseUrl: string;
  /** Set once the response_url has been answered. */
  responded?: boolean;
}

/** Uploads a full report next to the reply: into the channel when public, else privately to the user. */
export interface ReportUploader {
  upload(target: { channelId: string; userId: string; public: boolean }, file: Attachment): Promise<void>;
}

/** Connection settings for the queue and worker. */
export interface CommandQueueOptions {
  connection: ConnectionOptions;
  /** Redis key prefix (RWX_REDIS_PREFIX); tests use a unique one each. */
  prefix: string;
  /** Where queue and worker errors go; Redis being down is not logged here (redisDown: readiness names it). */
  log?: { error(obj: object, msg: string): void };
}

// Without a listener BullMQ prints every error to the console (each reconnect attempt during a Redis outage).
function onError(
  emitter: { on(event: 'error', f: (e: Error) => void): unknown },
  opts: CommandQueueOptions,
  what: string,
): void {
  emitter.on('error', (e: Error) => redisDown(e) || opts.log?.error({ err: e.message }, what));
}

/**
 * Creates the producer side. `jobId` (e.g. the trigger_id) makes a redelivered envelope a no-op; `enqueue`
 * resolves with the id of the job (the existing one for a redelivery).
 */
export function createCommandQueue(opts: CommandQueueOptions): {
  enqueue(job: CommandJob, jobId?: string): Promise<string | undefined>;
  close(): Promise<void>;
  queue: Queue<CommandJob>;
} {
  const queue = new Queue<CommandJob>(COMMAND_QUEUE, { connection: opts.connection, prefix: opts.prefix });
  onError(queue, opts, 'command queue error');
  return {
    queue,
    async enqueue(job, jobId) {
      const added = await queue.add('command', job, {
        ...(jobId ? { jobId: jobId.replace(/:/g, '_') } : {}),
        attempts: 4,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { count: 1000 },
        removeOnFail: { count: 1000 },
      });
      return added.id;
    },
    close: () => queue.close(),
  };
}

/** What the worker needs besides the connection. */
export interface CommandWorkerDeps {
  services: CommandServices;
  sender: ResponseSender;
  uploader?: ReportUploader;
  /** Told each command's outcome once: when its job completes, or fails for good. */
  observe?: CommandObserver;
}

/**
 * Runs one job: compute the reply, answer the response_url (once), then upload the full report if the reply
 * needs one; resolves with the command and whether its reply said it failed. Errors are RwxErrors; non-retryable
 * ones become UnrecoverableError at the queue boundary.
 */
export async function processCommandJob(
  data: CommandJob,
  deps: CommandWorkerDeps,
  markResponded: () => Promise<void>,
): Promise<{ command: CommandName; failed: boolean }> {
  const cmd = parseCommand(data.text);
  const reply = await runCommand(cmd, deps.services);
  const pub = reply.response.response_type === 'in_channel';
  if (!data.responded) {
    const note = !reply.file
      ? ''
      : !deps.uploader
        ? ' Run `rwx triage` on the CLI for the full report.'
        : pub
          ? ' The full report is attached below.'
          : ' The full report is in your DM with me.';
    const body = note ? { ...reply.response, text: reply.response.text + note } : reply.response;
    await deps.sender.send(data.responseUrl, body);
    await markResponded();
  }
  if (reply.file && deps.uploader) {
    await deps.uploader.upload({ channelId: data.channelId, userId: data.userId, public: pub }, reply.file);
  }
  return { command: cmd.kind, failed: reply.failed === true };
}

/** Starts a worker that processes command jobs. Close it on shutdown. */
export function createCommandWorker(
  opts: CommandQueueOptions & { concurrency?: number },
  deps: CommandWorkerDeps,
): Worker<CommandJob> {
  const worker = new Worker<CommandJob>(
    COMMAND_QUEUE,
    async (job: Job<CommandJob>) => {
      try {
        const done = await processCommandJob(job.data, deps, async () => {
          await job.updateData({ ...job.data, responded: true });
        });
        deps.observe?.(done.command, done.failed ? 'error' : 'ok', jobContext(job));
      } catch (e) {
        const err = toRwxError(e);
        const last = !err.retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        if (last) deps.observe?.(parseCommand(job.data.text).kind, 'error', jobContext(job));
        if (!err.retryable) throw new UnrecoverableError(`${err.code}: ${err.message}`);
        throw err;
      }
    },
    { connection: opts.connection, prefix: opts.prefix, concurrency: opts.concurrency ?? 4, ...workerOptions },
  );
  onError(worker, opts, 'command worker error');
  return worker;
}

// A job's command as the audit trail tells it: latency from the job's creation (the ack) to its outcome.
function jobContext(job: Job<CommandJob>): CommandContext {
  const d = job.data;
  return { user: d.userId, channel: d.channelId, text: d.text, latencyMs: Date.now() - job.timestamp };
}
