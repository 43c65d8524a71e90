// The `/rwx` listener on the Bolt app. Slack's 3-second rule: the listener only parses (pure), checks access
// (pure for channels; user groups from a TTL cache, with a hard time budget) and acknowledges; the work itself is
// enqueued and answered later on the response_url by a worker (queue.ts). Help, usage and refusals need no work,
// so they are the acknowledgement itself (ephemeral).
import type { App, RespondArguments } from '@slack/bolt';
import { toRwxError } from '../errors.js';
import { authorize, type AccessPolicy, type AuthDecision, type UsergroupCache } from './authorize.js';
import { untrusted } from '../render/escape.js';
import { renderHelp, renderUsage } from './help.js';
import type { CommandResponse } from './message.js';
import type { CommandContext, CommandName, CommandObserver, CommandOutcome } from './observe.js';
import { parseCommand, type ParsedCommand } from './parse.js';
import type { CommandJob } from './queue.js';
import { scopeLabel } from './scope.js';

/** What the listener needs. */
export interface CommandListenerDeps {
  access: AccessPolicy;
  usergroups: UsergroupCache;
  /** Enqueues the work (createCommandQueue(...).enqueue). */
  enqueue(job: CommandJob, jobId?: string): Promise<void>;
  /** Longest wait for a user group look-up before refusing (fail closed). Default 1500 ms, well inside 3 s. */
  authBudgetMs?: number;
  /** For enqueue failures; never given tokens. */
  log?: { error(obj: object, msg: string): void };
  /** Told the outcome of the commands the listener settles (help, usage, refusals, enqueue failures). */
  observe?: CommandObserver;
}

/** Slash command the app manifest declares. */
export const SLASH_COMMAND = '/rwx';

/** Registers the `/rwx` slash command on a Bolt app. Call once, before app.start(). */
export function registerCommands(app: App, deps: CommandListenerDeps, command: string = SLASH_COMMAND): void {
  app.command(command, async ({ command: body, ack, respond }) => {
    const start = Date.now();
    const parsed = parseCommand(body.text);
    const ctx = (): CommandContext => ({
      user: body.user_id,
      channel: body.channel_id,
      text: body.text,
      latencyMs: Date.now() - start,
    });
    const observe = (name: CommandName, outcome: CommandOutcome): void => deps.observe?.(name, outcome, ctx());
    if (parsed.kind === 'help') return ack(asBolt(renderHelp().response)).then(() => observe('help', 'ok'));
    if (parsed.kind === 'usage')
      return ack(asBolt(renderUsage(parsed.error).response)).then(() => observe('usage', 'ok'));
    const decision = await withinBudget(
      authorize(deps.access, deps.usergroups, {
        userId: body.user_id,
        channelId: body.channel_id,
        channelName: body.channel_name,
      }),
      deps.authBudgetMs ?? 1500,
    );
    if (!decision.allowed) {
      observe(parsed.kind, 'refused');
      return ack({ response_type: 'ephemeral', text: decision.message });
    }
    await ack({ response_type: 'ephemeral', text: working(parsed) });
    try {
      await deps.enqueue(
        { text: body.text, userId: body.user_id, channelId: body.channel_id, responseUrl: body.response_url },
        body.trigger_id ? `cmd-${body.trigger_id}` : undefined,
      );
    } catch (e) {
      const err = toRwxError(e);
      observe(parsed.kind, 'error');
      deps.log?.error({ code: err.code }, 'could not enqueue a slash command');
      await respond({
        response_type: 'ephemeral',
        text: `:warning: Sorry, I could not start that (${err.code}). Please try again in a minute.`,
      });
    }
  });
}

/** The acknowledgement shown while the worker runs. */
function working(cmd: Exclude<ParsedCommand, { kind: 'help' | 'usage' }>): string {
  const what =
    cmd.kind === 'triage'
      ? `triage of ${scopeLabel(cmd.scope)}`
      : cmd.kind === 'drain'
        ? `drain check for ${cmd.node}`
        : cmd.kind === 'node'
          ? `node agent's report for ${cmd.node}`
          : 'open incidents';
  return `:hourglass_flowing_sand: Working on the ${untrusted(what, 300)}…`;
}

/** Resolves to the decision, or to a refusal when the look-up takes longer than `ms`. */
async function withinBudget(p: Promise<AuthDecision>, ms: number): Promise<AuthDecision> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<AuthDecision>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          allowed: false,
          reason: 'lookup-failed',
          message: 'Sorry, Slack took too long to confirm your user group membership. Please try again in a minute.',
        }),
      ms,
    );
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Our response shape is a subset of Bolt's RespondArguments; the block union is narrower than Bolt's. */
function asBolt(r: CommandResponse): RespondArguments {
  return r as unknown as RespondArguments;
}
