// `/rwx help` and the usage shown for malformed commands. Always ephemeral: help is for the person asking.
import { escapeSlack } from '../render/escape.js';
import { respond, type CommandReply } from './message.js';
import { context, section } from '../render/slack-blocks.js';
import { PROOF_LINE } from '../render/slack-proof.js';

/** The usage lines, one per command form (mrkdwn). */
export const USAGE_LINES: readonly string[] = [
  '`/rwx triage` — every ReadWriteMany claim in the cluster, by failure strand',
  '`/rwx triage NAMESPACE` · `/rwx triage NAMESPACE/CLAIM` · `/rwx triage node NODE` · `/rwx triage driver DRIVER`',
  '`/rwx drain NODE` — is it safe to drain NODE? BLOCK, CAUTION or OK, with what to do instead',
  "`/rwx node NODE` — the node agent's report for NODE: CSI mounts the host cannot see, orphaned staged volumes, mount options",
  '`/rwx status` — open incidents, their verdict and a link to each thread',
  '`/rwx help` — this text',
  '`@CLUSTER` as the last word names the cluster a command is about, where several share this app: `/rwx drain node-19 @prod-eu-1`',
];

/** Said here, and once per channel in a thread (render/slack-proof.ts), not in every incident root. */
export { PROOF_LINE };

const FOOTER =
  'Answers are visible only to you; add `public` at the end to post in the channel. ' +
  'Read-only: nothing here changes the cluster.';

/** The reply to `/rwx help`. */
export function renderHelp(): CommandReply {
  const text = ['*/rwx* — RWX / CSI storage triage', ...USAGE_LINES].join('\n');
  return { response: respond(`${text}\n${PROOF_LINE}`, [section(text), context(PROOF_LINE), context(FOOTER)], false) };
}

/** The reply to a malformed command: the one-line reason (untrusted parts escaped here) and the usage. */
export function renderUsage(error: string): CommandReply {
  const reason = `:warning: ${escapeSlack(error)}`;
  const text = [reason, '', 'Usage:', ...USAGE_LINES].join('\n');
  return {
    response: respond(text, [section(reason), section(['Usage:', ...USAGE_LINES].join('\n')), context(FOOTER)], false),
  };
}
