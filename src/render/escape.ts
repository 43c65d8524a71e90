// Slack mrkdwn treats &, < and > as control characters (links, mentions, entities). Every string that came from
// the cluster or a user goes through escapeSlack before it reaches a message, so a pod named `<!channel>` stays text.
// Both it and the terminal renderers also drop the characters that change how text reads without being seen.

/**
 * Characters that must never be echoed from untrusted text: C0 controls but tab and newline, DEL, C1 controls,
 * the bidirectional overrides, embeddings and isolates (U+202A-202E, U+2066-2069: "Trojan Source" text reads
 * differently than it is), the directional marks, zero-width spaces and joiners but U+200D (emoji sequences need
 * it), the line and paragraph separators and the byte-order mark.
 */
const UNSAFE_CHARS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** Removes the characters of UNSAFE_CHARS; the one place that list lives (Slack and terminal output use it). */
export function stripUnsafe(text: string): string {
  return text.replace(UNSAFE_CHARS, '');
}

/** Escapes &, < and > for Slack mrkdwn and plain_text and removes unsafe invisible characters (stripUnsafe). */
export function escapeSlack(text: string): string {
  return stripUnsafe(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack's per-text limit for section and context text. */
export const SLACK_TEXT_LIMIT = 3000;
/** Slack's per-message block limit. */
export const SLACK_BLOCK_LIMIT = 50;
/** Slack's header block plain_text limit. */
export const SLACK_HEADER_LIMIT = 150;

/**
 * Joins lines, keeping as many whole lines as fit in `limit` characters (after `wrap` is applied) and ending with
 * "...and N more" when some were left out. Lines longer than the limit on their own are cut.
 */
export function fitLines(
  lines: readonly string[],
  limit = SLACK_TEXT_LIMIT,
  wrap: (s: string) => string = (s) => s,
): string {
  const tail = (n: number): string => (n > 0 ? `\n...and ${n} more` : '');
  let kept = 0;
  while (kept < lines.length) {
    const text = wrap(lines.slice(0, kept + 1).join('\n'));
    if (text.length + tail(lines.length - kept - 1).length > limit) break;
    kept++;
  }
  if (kept === 0 && lines.length > 0) {
    // Not even one line fits: cut the first one so the reader still sees where the list starts.
    const room = limit - wrap('').length - tail(lines.length - 1).length;
    return wrap(truncate(lines[0] ?? '', room)) + tail(lines.length - 1);
  }
  return wrap(lines.slice(0, kept).join('\n')) + tail(lines.length - kept);
}

/** Cuts a string to at most `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return max <= 1 ? text.slice(0, Math.max(0, max)) : text.slice(0, max - 1) + '…';
}
