// Escaping and shortening for everything shown in Slack. escapeSlack is the project's one escaper
// (src/render/escape.ts); this adds what slash commands need on top: decoding the entities Slack puts in command
// text, and code-point-safe shortening of untrusted text before it is escaped.
import { escapeSlack, stripUnsafe } from '../render/escape.js';

export { escapeSlack, stripUnsafe };

/** Decodes the three entities Slack encodes in slash-command text, so parsing sees what the user typed. */
export function decodeSlackEntities(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Cuts `s` to at most `max` characters (code points, so no emoji is split), adding "…" when cut. */
export function shorten(s: string, max: number): string {
  if (s.length <= max) return s;
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  return `${cps.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Untrusted text for display: shortened first (so an entity is never cut in half), then escaped. */
export function untrusted(s: string, max = 200): string {
  return escapeSlack(shorten(s, max));
}
