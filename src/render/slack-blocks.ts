// The small slice of Block Kit the bot emits, with builders that escape and respect Slack's limits, and the
// formatting helpers shared by the root, thread and resolution renderers.
import { createHash } from 'node:crypto';
import { formatAge } from '../domain/duration.js';
import {
  SLACK_BLOCK_LIMIT,
  SLACK_FALLBACK_LIMIT,
  SLACK_HEADER_LIMIT,
  SLACK_TEXT_LIMIT,
  cutEscaped,
  escapeSlack,
  fitEscaped,
  fitLines,
} from './escape.js';

/** One Block Kit block (kept loose: we only build a handful of shapes). */
export interface Block {
  type: string;
  [field: string]: unknown;
}

/** A header block: plain text, larger and bold. */
export type HeaderBlock = { type: 'header'; text: { type: 'plain_text'; text: string; emoji?: boolean } };
/** A section block of mrkdwn text. */
export type SectionBlock = { type: 'section'; text: { type: 'mrkdwn'; text: string } };
/** A context block (small grey text). */
export type ContextBlock = { type: 'context'; elements: { type: 'mrkdwn'; text: string }[] };
/** A divider. */
export type DividerBlock = { type: 'divider' };
/** The text blocks a command reply is made of (a narrower Block: no buttons, no images). */
export type TextBlock = HeaderBlock | SectionBlock | ContextBlock | DividerBlock;

/** A message ready for chat.postMessage / chat.update: fallback text plus blocks. */
export interface SlackMessage {
  text: string;
  blocks: Block[];
}

/** Ack / mute / resolve state shown on the root; the incident record carries these fields. */
export interface IncidentState {
  ack?: { user: string; at: number };
  muteUntil?: number;
  resolvedAt?: number;
  resolvedBy?: string;
  /** Since when the bot cannot see the cluster (the root may be out of date): an open root says so. */
  staleSince?: number;
}

/** Action ids of the root's buttons; the Bolt app routes on these (the link buttons are only acknowledged). */
export const ACTION_IDS = {
  ack: 'rwx_ack',
  mute1h: 'rwx_mute_1h',
  mute4h: 'rwx_mute_4h',
  resolve: 'rwx_resolve',
  runbook: 'rwx_link_runbook',
  dashboard: 'rwx_link_dashboard',
} as const;

/** A header block from raw (untrusted) text: cut to Slack's 150 characters on the raw text, then escaped. */
export function header(text: string): HeaderBlock {
  return { type: 'header', text: { type: 'plain_text', text: fitEscaped(text, SLACK_HEADER_LIMIT), emoji: true } };
}

/** A mrkdwn section from already-escaped text, cut to 3000 characters (on a line boundary when it can). */
export function section(mrkdwn: string): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: cutEscaped(mrkdwn, SLACK_TEXT_LIMIT) } };
}

/** A section listing already-escaped lines, keeping whole lines and ending with "...and N more". */
export function listSection(title: string, lines: readonly string[]): SectionBlock {
  const head = title ? `${title}\n` : '';
  return section(head + fitLines(lines, SLACK_TEXT_LIMIT - head.length));
}

/** A section holding a preformatted table (already escaped rows), "...and N more" outside the code fence. */
export function preSection(title: string, rows: readonly string[]): SectionBlock {
  const head = title ? `${title}\n` : '';
  return section(head + fitLines(rows, SLACK_TEXT_LIMIT - head.length, (s) => '```' + s + '```'));
}

/** A context block (small grey text) from already-escaped mrkdwn. */
export function context(mrkdwn: string): ContextBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: cutEscaped(mrkdwn, SLACK_TEXT_LIMIT) }] };
}

/** A message's fallback text (notifications, screen readers) from raw text: cut on the raw text, then escaped. */
export function fallbackText(raw: string): string {
  return fitEscaped(raw, SLACK_FALLBACK_LIMIT);
}

/** Keeps at most 50 blocks: the last kept block says how many were left out. */
export function capBlocks(blocks: Block[]): Block[] {
  if (blocks.length <= SLACK_BLOCK_LIMIT) return blocks;
  const kept = blocks.slice(0, SLACK_BLOCK_LIMIT - 1);
  return [...kept, context(`...and ${blocks.length - kept.length} more`)];
}

/** A Slack user mention for an id that came from Slack (escaped all the same). */
export function mention(user: string): string {
  return /^[UW][A-Z0-9]+$/.test(user) ? `<@${user}>` : escapeSlack(user);
}

/**
 * A time as a Slack date, `<!date^UNIX^{date_short_pretty} {time}|2026-11-30 06:40 UTC>`: each reader sees it in
 * their own time zone ("Today 07:40"), and clients that cannot format it show the UTC fallback. The one time format
 * of every Slack message. From epoch ms or an RFC 3339 string; "unknown" when unparseable.
 */
export function slackDate(at: number | string | undefined): string {
  const ms = typeof at === 'string' ? Date.parse(at) : at;
  if (ms === undefined || !Number.isFinite(ms)) return 'unknown';
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} {time}|${utcTime(ms)}>`;
}

/** "2026-11-30 06:40 UTC": the fallback of slackDate, for text that is not mrkdwn. */
export function utcTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

// An RFC 3339 UTC time as the correlator writes it into a summary or an explanation.
const RFC3339 = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g;

/** Text (escaped or not) with every RFC 3339 time in it shown as a Slack date (slackDate). */
export function slackDates(text: string): string {
  return text.replace(RFC3339, (t) => slackDate(t));
}

/** Text with every RFC 3339 time in it as "2026-11-30 06:40 UTC" (utcTime): for fallback text. */
export function utcDates(text: string): string {
  return text.replace(RFC3339, (t) => utcTime(Date.parse(t)));
}

/** An age like kubectl prints it, from seconds; "?" when unknown. */
export function formatSeconds(seconds: number | undefined): string {
  return seconds === undefined || !Number.isFinite(seconds) ? '?' : formatAge(seconds * 1000);
}

/** "n thing" / "n things". */
export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}

/** sha256 (hex) of a value's JSON: the "last sent hash" of a rendered message. */
export function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
