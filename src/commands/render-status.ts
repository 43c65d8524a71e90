// `/rwx status`: the open incidents, each with its verdict and a link to its Slack thread, then the resolved ones
// whose thread still waits for a missed CronJob to complete a run.
import { formatAge as age } from '../domain/duration.js';
import type { BlindSpot, Verdict } from '../domain/incident.js';
import { blindSentence } from '../advise/blind.js';
import { untrusted, SLACK_BLOCK_LIMIT } from '../render/escape.js';
import { respond, type TextBlock, type CommandReply } from './message.js';
import { context, section } from '../render/slack-blocks.js';
import { threadLink } from '../render/slack-links.js';

export { threadLink } from '../render/slack-links.js';

/** What /rwx status shows of one open incident (mapped from the incident store's record). */
export interface OpenIncident {
  key: string;
  title: string;
  verdict: Verdict;
  /** Channel ID and root message ts of the incident thread, when it has been posted. */
  channel?: string;
  threadTs?: string;
  /** chat.getPermalink result, preferred over the constructed archive link when present. */
  permalink?: string;
  /** When the incident opened (epoch ms). */
  openedAt?: number;
  /** Who acknowledged it, if anyone (a Slack user ID). */
  acknowledgedBy?: string;
  /** Muted until (epoch ms). */
  mutedUntil?: number;
  /** Set when the incident is resolved and its thread waits for these CronJobs ("namespace/name") until `until`. */
  followingUp?: { cronJobs: string[]; until?: number };
  /** The fleet cluster it belongs to (src/fleet), when several clusters share the app. */
  cluster?: string;
}

/** Whether a fleet cluster's bot is answering (src/fleet/heartbeat.ts), for a status grouped by cluster. */
export interface ClusterLiveness {
  name: string;
  silentForMs: number;
  silent: boolean;
}

const VERDICT: Record<Verdict, string> = {
  FOLLOWS_ROLLOUT: 'follows a rollout',
  FOLLOWS_NODE: 'follows a node',
  UNEXPLAINED: 'unexplained',
  NOT_STORAGE: 'not storage',
};

/**
 * Renders the open incidents, newest first, within Slack's block limit. With `blind` (what the bot cannot read
 * now) the answer is UNKNOWN first: the list is what it last recorded, and "none" is not known to be none.
 */
export function renderStatus(
  incidents: readonly OpenIncident[],
  now: number,
  pub: boolean,
  blind: readonly BlindSpot[] = [],
): CommandReply {
  const open = incidents.filter((i) => !i.followingUp).length;
  const unknown = blind.length === 0 ? undefined : blindHead(incidents.length === 0, blind);
  if (incidents.length === 0) {
    const text = unknown ?? ':large_green_circle: No open storage incidents.';
    return { response: respond(text, [section(text)], pub) };
  }
  const following = incidents.length - open;
  const head =
    (open === 0
      ? ':large_green_circle: No open storage incidents'
      : `*${open} open incident${open === 1 ? '' : 's'}*`) +
    (following > 0 ? `; ${following} resolved, waiting for a CronJob to complete a run` : '');
  const heads = unknown ? [unknown, head] : [head];
  const sorted = sortForStatus(incidents);
  const room = SLACK_BLOCK_LIMIT - heads.length - 1; // the head lines and a "...and N more"
  const lines = sorted.slice(0, room).map((i) => line(i, now));
  const blocks: TextBlock[] = [...heads, ...lines].map((l) => section(l));
  if (sorted.length > lines.length) blocks.push(context(`…and ${sorted.length - lines.length} more`));
  return { response: respond([...heads, ...lines].join('\n'), blocks, pub) };
}

// The UNKNOWN line of a status the bot cannot vouch for (blind.ts says what is unread and what that leaves open).
function blindHead(none: boolean, blind: readonly BlindSpot[]): string {
  const what = none
    ? 'no open storage incident is recorded, but the bot cannot see the cluster now, so there may be one.'
    : 'the bot cannot see the cluster now; the incidents below are as it last recorded them.';
  return `:grey_question: *UNKNOWN*: ${what} ${untrusted(blindSentence(blind), 1500)}`;
}

/**
 * The fleet's status: one group per cluster (only `only` when given), each headed by whether its bot answers (a
 * silent one is said to be, and its incidents are shown as it last recorded them), then its incidents as
 * renderStatus lists them. Within Slack's block limit.
 */
export function renderFleetStatus(
  incidents: readonly OpenIncident[],
  clusters: readonly ClusterLiveness[],
  now: number,
  pub: boolean,
  only?: string,
): CommandReply {
  const names = [...new Set([...clusters.map((c) => c.name), ...incidents.flatMap((i) => i.cluster ?? [])])]
    .filter((n) => only === undefined || n === only)
    .sort();
  const lines: string[] = [];
  for (const name of names) {
    const mine = sortForStatus(incidents.filter((i) => i.cluster === name));
    const c = clusters.find((x) => x.name === name);
    const open = mine.filter((i) => !i.followingUp).length;
    const state = !c
      ? ':red_circle: no heartbeat: its bot is down or cannot reach Redis'
      : c.silent
        ? `:red_circle: silent for ${age(c.silentForMs)}: its bot is down or cannot reach Redis; its incidents as last recorded`
        : ':large_green_circle: answering';
    lines.push(`*${untrusted(name, 63)}* · ${state} · ${open === 0 ? 'no open incidents' : `${open} open`}`);
    lines.push(...mine.map((i) => line(i, now)));
  }
  if (names.length === 0) lines.push(only ? `No cluster \`${untrusted(only, 63)}\` in this fleet.` : 'No cluster.');
  const room = SLACK_BLOCK_LIMIT - 1;
  const blocks: TextBlock[] = lines.slice(0, room).map((l) => section(l));
  if (lines.length > room) blocks.push(context(`…and ${lines.length - room} more lines`));
  return { response: respond(lines.join('\n'), blocks, pub) };
}

// Open ones first (newest first), then those only followed up.
function sortForStatus(incidents: readonly OpenIncident[]): OpenIncident[] {
  return [...incidents].sort(
    (a, b) =>
      Number(!!a.followingUp) - Number(!!b.followingUp) ||
      (b.openedAt ?? 0) - (a.openedAt ?? 0) ||
      a.key.localeCompare(b.key),
  );
}

function line(i: OpenIncident, now: number): string {
  const link = threadLink(i);
  const title = untrusted(i.title, 150);
  // A link's & must be an entity too (a thread permalink carries ?thread_ts=...&cid=...).
  const parts = [link ? `<${link.replace(/&/g, '&amp;')}|${title}>` : `${title} (not posted yet)`];
  if (i.followingUp) {
    const names = i.followingUp.cronJobs.map((c) => untrusted(c, 120)).join(', ');
    const left =
      i.followingUp.until !== undefined && i.followingUp.until > now ? ` (${age(i.followingUp.until - now)} more)` : '';
    return `• ${[...parts, '_resolved_', `waiting for CronJob ${names} to complete a run${left}`].join(' · ')}`;
  }
  parts.push(`_${VERDICT[i.verdict]}_`);
  if (i.openedAt !== undefined) parts.push(`open ${age(now - i.openedAt)}`);
  if (i.acknowledgedBy && /^[UW][A-Z0-9]{2,}$/.test(i.acknowledgedBy)) parts.push(`ack'd by <@${i.acknowledgedBy}>`);
  if (i.mutedUntil !== undefined && i.mutedUntil > now) parts.push(`muted ${age(i.mutedUntil - now)} more`);
  return `• ${parts.join(' · ')}`;
}
