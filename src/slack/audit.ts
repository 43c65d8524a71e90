// The audit trail: one structured log line per slash command, button click and message the bot posts or edits,
// saying who, where, what, which incident, the result and how long it took. Never a token, never a message body
// (it may quote cluster data at length); command text only shortened, as the user typed it.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { SlackApi } from './api.js';
import { instrumentSlack } from './instrument.js';

/** One audited event. `who` is a Slack user ID, or "bot" for the bot's own messages. */
export interface AuditLine {
  audit: 'command' | 'action' | 'message';
  who: string;
  channel?: string;
  /** The slash command by name (triage, drain...), with its text. */
  command?: string;
  text?: string;
  /** The button (action_id) or the Web API method that posted or edited a message. */
  action?: string;
  incident?: string;
  /** ok / done / already / refused / error, or the error code of a failed call. */
  result: string;
  latency_ms: number;
  /** The message posted or edited. */
  ts?: string;
}

/** Where audit lines go. Must not throw. */
export type Audit = (line: AuditLine) => void;

/** Audit lines as pino info lines (the fields at the top level, message "audit <kind>"). */
export function pinoAudit(log: Logger): Audit {
  return (line) => log.info(line, `audit ${line.audit}`);
}

/** Milliseconds since `start` (performance.now()), rounded: what latency_ms reports. */
export function elapsed(start: number): number {
  return Math.round(performance.now() - start);
}

const POSTS = new Set<keyof SlackApi>(['postMessage', 'update', 'postEphemeral', 'uploadFile']);
const METHOD: Partial<Record<keyof SlackApi, string>> = {
  postMessage: 'chat.postMessage',
  update: 'chat.update',
  postEphemeral: 'chat.postEphemeral',
  uploadFile: 'files.upload',
};

/** A SlackApi that writes one audit line for every message posted or edited through it (look-ups are not). */
export function auditSlack(inner: SlackApi, audit: Audit): SlackApi {
  return instrumentSlack(inner, (method, outcome, call) => {
    if (!POSTS.has(method) || !call) return;
    const args = (call.args[0] ?? {}) as { channel?: string; ts?: string; threadTs?: string };
    const ts = (call.result as { ts?: string } | undefined)?.ts ?? args.ts;
    const incident = incidentOf(call.args[0]);
    audit({
      audit: 'message',
      who: 'bot',
      ...(args.channel ? { channel: args.channel } : {}),
      action: METHOD[method] ?? method,
      ...(incident ? { incident } : {}),
      result: outcome,
      latency_ms: call.ms,
      ...(ts ? { ts } : {}),
    });
  });
}

// The incident a message belongs to: its metadata key (roots and replies), else the key the root's buttons carry
// (an edit of the root has no metadata).
function incidentOf(args: unknown): string | undefined {
  const a = args as { metadata?: { event_payload?: { key?: unknown } }; blocks?: unknown[] } | undefined;
  const key = a?.metadata?.event_payload?.key;
  if (typeof key === 'string') return key;
  for (const b of a?.blocks ?? []) {
    const els = (b as { type?: string; elements?: { type?: string; value?: unknown }[] }).elements;
    if ((b as { type?: string }).type !== 'actions' || !els) continue;
    const v = els.find((e) => e.type === 'button' && typeof e.value === 'string')?.value;
    if (typeof v === 'string') return v;
  }
  return undefined;
}
