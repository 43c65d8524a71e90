// The one module for Slack text: escaping, Block Kit limits and cutting text to them. Every string that came from
// the cluster or a user goes through escapeSlack before it reaches a message, so a pod named `<!channel>` stays text
// and an event message holding ``` cannot close the code block it is shown in.
// Both it and the terminal renderers also drop the characters that change how text reads without being seen.
// Two kinds of cut, never mixed: raw text is cut BEFORE it is escaped (shorten, untrusted, fitEscaped), so an entity
// is never cut in half; text that is already escaped is cut by cutEscaped, which backs off to before any entity.

/** Slack's per-text limit for section and context text. */
export const SLACK_TEXT_LIMIT = 3000;
/** Slack's per-message block limit. */
export const SLACK_BLOCK_LIMIT = 50;
/** Slack's header block plain_text limit. */
export const SLACK_HEADER_LIMIT = 150;
/** Longest top-level fallback `text` the bot sends, well under Slack's 40k truncation. */
export const SLACK_FALLBACK_LIMIT = 3000;

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

/**
 * What a backtick in untrusted text becomes: U+02CB MODIFIER LETTER GRAVE ACCENT, which reads like one but is not
 * mrkdwn. Slack has no escape for a backtick, and a code fence or inline code span ends at the first one it meets.
 */
export const BACKTICK_STANDIN = '\u02cb';

/**
 * Escapes &, < and > for Slack mrkdwn and plain_text (headers included: one rule for every text object), replaces
 * backticks (BACKTICK_STANDIN) and removes unsafe invisible characters (stripUnsafe).
 */
export function escapeSlack(text: string): string {
  return stripUnsafe(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/`/g, BACKTICK_STANDIN);
}

/** Decodes the three entities Slack encodes in slash-command text, so parsing sees what the user typed. */
export function decodeSlackEntities(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Cuts raw `s` to at most `max` characters (code points, so no emoji is split), adding "…" when cut. */
export function shorten(s: string, max: number): string {
  if (s.length <= max) return s;
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  return max <= 0 ? '' : `${cps.slice(0, max - 1).join('')}…`;
}

/** Untrusted text for display: shortened to `max` raw characters first (so no entity is cut), then escaped. */
export function untrusted(s: string, max = 200): string {
  return escapeSlack(shorten(s, max));
}

/** Raw text escaped so that the result is at most `max` characters: the cut is made on the raw code points. */
export function fitEscaped(raw: string, max: number): string {
  const whole = escapeSlack(raw);
  if (whole.length <= max) return whole;
  let out = '';
  for (const cp of raw) {
    const next = escapeSlack(cp);
    if (out.length + next.length + 1 > max) break;
    out += next;
  }
  return max <= 0 ? '' : `${out}…`;
}

/**
 * Cuts already-escaped text to at most `max` characters, preferring the last full line, never inside an entity
 * (`&lt;` is kept whole or dropped) nor inside an emoji, and marks the cut with "…" on a line of its own.
 */
export function cutEscaped(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < 2) return '';
  const room = max - 2;
  let cut = text.lastIndexOf('\n', room);
  if (cut < room / 2) cut = room;
  // Do not split a surrogate pair.
  if (cut > 0 && /[\uD800-\uDBFF]/.test(text.charAt(cut - 1))) cut--;
  let head = text.slice(0, cut);
  const amp = head.lastIndexOf('&');
  if (amp >= 0 && !head.slice(amp).includes(';')) head = head.slice(0, amp); // do not leave "&am"
  return `${head}\n…`;
}

/**
 * Joins already-escaped lines, keeping as many whole lines as fit in `limit` characters (after `wrap` is applied)
 * and ending with "...and N more" when some were left out. A first line longer than the limit on its own is cut.
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
    return wrap(cutEscaped(lines[0] ?? '', room)) + tail(lines.length - 1);
  }
  return wrap(lines.slice(0, kept).join('\n')) + tail(lines.length - kept);
}
