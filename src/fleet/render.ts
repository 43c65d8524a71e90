// The fleet's own answers to a routed command: which cluster (a question listing the candidates), an unknown
// cluster name, a name no cluster has, and a cluster that is silent or did not pick the command up in time.
// Ephemeral, like the command's own answer would have been unless `public`. Every name shown is escaped.
import { respond, type CommandReply, type CommandResponse } from '../commands/message.js';
import {
  cutEscaped,
  decodeSlackEntities,
  SLACK_BLOCK_LIMIT,
  SLACK_FALLBACK_LIMIT,
  untrusted,
} from '../render/escape.js';
import { context, section } from '../render/slack-blocks.js';
import { formatAge } from '../domain/duration.js';
import type { Target } from './target.js';

const WHAT = { nodes: 'node', claims: 'claim', namespaces: 'namespace' } as const;

const list = (names: readonly string[]): string => names.map((n) => `\`${untrusted(n, 63)}\``).join(', ');

/** The reply when a command cannot be routed: a question, an unknown cluster, or a name no cluster has. */
export function renderUnrouted(t: Exclude<Target, { kind: 'cluster' }>, text: string, pub: boolean): CommandReply {
  const lines = unroutedLines(t, text);
  return reply(lines, pub, 'Add `@CLUSTER` at the end of the command to choose; `/rwx help` shows the syntax.');
}

function unroutedLines(t: Exclude<Target, { kind: 'cluster' }>, text: string): string[] {
  switch (t.kind) {
    case 'ask': {
      const where = t.about
        ? `${WHAT[t.about.what]} \`${untrusted(t.about.name, 120)}\` may be in ${list(t.candidates)}`
        : `this channel has no default cluster, and the fleet has ${list(t.candidates)}`;
      const example = t.candidates[0]
        ? `For example: \`/rwx ${untrusted(decodeSlackEntities(text).trim(), 200)} @${untrusted(t.candidates[0], 63)}\``
        : '';
      return [`:question: Which cluster? ${where}.`, example].filter((l) => l !== '');
    }
    case 'unknown-cluster':
      return [`:warning: No cluster \`${untrusted(t.name, 63)}\` in this fleet; the fleet has ${list(t.known)}.`];
    case 'nowhere':
      return [
        `:warning: No cluster of the fleet has ${WHAT[t.about.what]} \`${untrusted(t.about.name, 120)}\` ` +
          `(looked in ${list(t.known)}). Nothing was run.`,
      ];
  }
}

/**
 * The one sentence for a cluster whose bot does not answer: silent (no heartbeat) for `silentForMs`, never seen
 * (undefined), or a routed command or click that no worker took in that time. Commands and clicks both use it.
 */
export function notAnswered(cluster: string, silentForMs: number | undefined): string {
  const since = silentForMs === undefined ? 'has never answered' : `has not answered in ${formatAge(silentForMs)}`;
  return `${untrusted(cluster, 63)} ${since}: its bot is down or cannot reach Redis.`;
}

/** A cluster whose bot has been silent (no heartbeat) for `silentForMs`: nothing was run. */
export function renderSilent(cluster: string, silentForMs: number | undefined, pub: boolean): CommandReply {
  return reply(
    [`:red_circle: ${notAnswered(cluster, silentForMs)} Nothing was run there.`],
    pub,
    'Check its `rwx serve` pods (`kubectl -n rwx get pods` in that cluster) and their Redis connection.',
  );
}

/** A command that waited `waitedMs` on `cluster`'s queue without its worker taking it: withdrawn, not run. */
export function renderNotTaken(cluster: string, waitedMs: number, pub: boolean): CommandReply {
  return reply(
    [`:red_circle: ${notAnswered(cluster, waitedMs)} The command was withdrawn; nothing was run.`],
    pub,
    'Try again once its bot is back; `/rwx status` shows which clusters are answering.',
  );
}

function reply(lines: string[], pub: boolean, footer: string): CommandReply {
  const text = lines.join('\n');
  return { response: respond(text, [section(text), context(footer)], pub), failed: true };
}

/** An answer as a fleet member gives it: a first line saying which cluster answered. */
export function fromCluster(body: CommandResponse, cluster: string): CommandResponse {
  const who = `From cluster *${untrusted(cluster, 63)}*`;
  const blocks = body.blocks ? [context(who), ...body.blocks].slice(0, SLACK_BLOCK_LIMIT) : undefined;
  return { ...body, text: cutEscaped(`${who}\n${body.text}`, SLACK_FALLBACK_LIMIT), ...(blocks ? { blocks } : {}) };
}
