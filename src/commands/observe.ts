// What a slash command's outcome is, for metrics: each command counts once, where its fate is known (the listener
// for help, usage, refusals and enqueue failures; the worker for the work it ran).
import type { Audit } from '../slack/audit.js';
import { shorten } from '../render/escape.js';
import type { ParsedCommand } from './parse.js';

/** A command by name: the parsed kind ('usage' is text that did not parse). */
export type CommandName = ParsedCommand['kind'];

/** ok: answered; refused: not allowed here (channel, user group); error: could not start, or failed. */
export type CommandOutcome = 'ok' | 'refused' | 'error';

/** Every name, so a metric can start each series at 0. */
export const COMMAND_NAMES: readonly CommandName[] = Object.keys({
  triage: 0,
  drain: 0,
  node: 0,
  status: 0,
  help: 0,
  usage: 0,
} satisfies Record<CommandName, 0>) as CommandName[];

/** Every outcome. */
export const COMMAND_OUTCOMES: readonly CommandOutcome[] = ['ok', 'refused', 'error'];

/** Who ran a command, where, as typed, and how long it took until its outcome was known (the audit trail). */
export interface CommandContext {
  user: string;
  channel: string;
  text: string;
  latencyMs: number;
}

/** Told once per command. Must not throw. */
export type CommandObserver = (command: CommandName, outcome: CommandOutcome, ctx?: CommandContext) => void;

/** Adds one audit line per command to `inner` (who, channel, command and its text shortened, result, latency). */
export function auditCommands(inner: CommandObserver, audit: Audit): CommandObserver {
  return (command, outcome, ctx) => {
    inner(command, outcome, ctx);
    audit({
      audit: 'command',
      who: ctx?.user ?? 'unknown',
      ...(ctx?.channel ? { channel: ctx.channel } : {}),
      command,
      ...(ctx ? { text: shorten(ctx.text, 200) } : {}),
      result: outcome,
      latency_ms: ctx?.latencyMs ?? 0,
    });
  };
}
