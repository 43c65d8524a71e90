// `/rwx status`: the open incidents, each with its verdict and a link to its Slack thread.
import { formatAge as age } from '../domain/duration.js';
import type { Verdict } from '../domain/incident.js';
import { untrusted } from './escape.js';
import { context, respond, section, MAX_BLOCKS, type Block, type CommandReply } from './message.js';

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
}

const VERDICT: Record<Verdict, string> = {
  FOLLOWS_ROLLOUT: 'follows a rollout',
  FOLLOWS_NODE: 'follows a node',
  UNEXPLAINED: 'unexplained',
  NOT_STORAGE: 'not storage',
};

/** The thread link: the permalink when it is a Slack https URL, else https://slack.com/archives/CHANNEL/pTS. */
export function threadLink(i: Pick<OpenIncident, 'channel' | 'threadTs' | 'permalink'>): string | undefined {
  if (i.permalink && /^https:\/\/[a-z0-9.-]+\.slack\.com\/[^\s<>|]*$/i.test(i.permalink)) return i.permalink;
  if (i.channel && i.threadTs && /^[CGD][A-Z0-9]{2,}$/.test(i.channel) && /^\d+\.\d+$/.test(i.threadTs)) {
    return `https://slack.com/archives/${i.channel}/p${i.threadTs.replace('.', '')}`;
  }
  return undefined;
}

/** Renders the open incidents, newest first, within Slack's block limit. */
export function renderStatus(incidents: readonly OpenIncident[], now: number, pub: boolean): CommandReply {
  if (incidents.length === 0) {
    const text = ':large_green_circle: No open storage incidents.';
    return { response: respond(text, [section(text)], pub) };
  }
  const sorted = [...incidents].sort((a, b) => (b.openedAt ?? 0) - (a.openedAt ?? 0) || a.key.localeCompare(b.key));
  const room = MAX_BLOCKS - 2;
  const shown = sorted.slice(0, room);
  const lines = shown.map((i) => line(i, now));
  const head = `*${incidents.length} open incident${incidents.length === 1 ? '' : 's'}*`;
  const blocks: Block[] = [section(head), ...lines.map((l) => section(l))];
  if (sorted.length > shown.length) blocks.push(context(`…and ${sorted.length - shown.length} more`));
  return { response: respond([head, ...lines].join('\n'), blocks, pub) };
}

function line(i: OpenIncident, now: number): string {
  const link = threadLink(i);
  const title = untrusted(i.title, 150);
  const parts = [link ? `<${link}|${title}>` : `${title} (not posted yet)`, `_${VERDICT[i.verdict]}_`];
  if (i.openedAt !== undefined) parts.push(`open ${age(now - i.openedAt)}`);
  if (i.acknowledgedBy && /^[UW][A-Z0-9]{2,}$/.test(i.acknowledgedBy)) parts.push(`ack'd by <@${i.acknowledgedBy}>`);
  if (i.mutedUntil !== undefined && i.mutedUntil > now) parts.push(`muted ${age(i.mutedUntil - now)} more`);
  return `• ${parts.join(' · ')}`;
}

