// Links between messages and channels: to a thread (a permalink Slack gave, else the archive link built from its
// channel and ts) and to a channel (`<#C0123ABCD>`). Every id is checked before it goes into mrkdwn.
import { escapeSlack } from './escape.js';

/** A thread to link: its channel and root ts, and the permalink when Slack gave one. */
export interface ThreadRef {
  channel?: string;
  threadTs?: string;
  permalink?: string;
}

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

/** The thread link: the permalink when it is a Slack https URL, else https://slack.com/archives/CHANNEL/pTS. */
export function threadLink(i: ThreadRef): string | undefined {
  if (i.permalink && /^https:\/\/[a-z0-9.-]+\.slack\.com\/[^\s<>|]*$/i.test(i.permalink)) return i.permalink;
  if (i.channel && i.threadTs && CHANNEL_ID.test(i.channel) && /^\d+\.\d+$/.test(i.threadTs)) {
    return `https://slack.com/archives/${i.channel}/p${i.threadTs.replace('.', '')}`;
  }
  return undefined;
}

/** A channel as Slack shows it to each reader: `<#C0123ABCD>` for an ID, `#name` (escaped) for a name. */
export function channelMention(channel: string): string {
  return CHANNEL_ID.test(channel) ? `<#${channel}>` : `#${escapeSlack(channel.replace(/^#/, ''))}`;
}

/** "<#C0123ABCD> (<link|its thread>)", or only the channel while the thread is not known. */
export function threadIn(t: { channel: string; threadTs?: string }, label = 'its thread'): string {
  const link = threadLink(t);
  return `${channelMention(t.channel)}${link ? ` (<${link}|${label}>)` : ''}`;
}

/**
 * The line of a root in a team channel (RWX_TEAM_CHANNELS): where the incident's own thread is, and that the
 * buttons act on the incident, so every channel's root shows the same acknowledgement, mute and resolution.
 */
export function parentThreadLine(parent: { channel?: string; threadTs?: string }): string {
  const where = parent.channel ? threadIn({ ...parent, channel: parent.channel }) : 'the incident channel';
  const thread = parent.threadTs ? '' : ' (its thread is not posted yet)';
  return (
    `:link: Posted here for your team's namespaces. The incident's thread is in ${where}${thread}; ` +
    'Acknowledge, Mute and Resolve here act on the incident in every channel.'
  );
}

/** The reply in the incident channel's thread naming a team channel its root was posted in, with a link to it. */
export function teamToldLine(team: { channel: string; threadTs: string }): string {
  return `:busts_in_silhouette: Also posted in ${threadIn(team)}, for a team whose namespaces are affected.`;
}

/**
 * The reply in the incident channel's thread when a team channel refused the team's root (the bot is not in it):
 * who must do what. The team's root follows once the bot is invited (the job asks again every few minutes).
 */
export function teamRefusedLine(channel: string): string {
  return (
    `:warning: Could not post in ${channelMention(channel)} for a team whose namespaces are affected: the bot is ` +
    'not in that channel. Invite it there (`/invite @rwx`); the team’s thread follows within minutes.'
  );
}
