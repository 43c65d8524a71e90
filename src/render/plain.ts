// Slack mrkdwn as a reader sees it, in plain lines: Slack's own markup rendered (a date shows its UTC fallback, a
// user group its id, a link its text and URL), emoji codes as emoji, entities decoded, *bold* and `code` markers
// dropped, code fences as indented lines. The terminal Slack of `rwx demo` prints this, and the thread's budgets
// count it: one rule for what "visible" means.

/** The emoji codes the bot writes, as a terminal shows them. */
export const EMOJI: Readonly<Record<string, string>> = {
  ':rotating_light:': '🚨',
  ':no_entry:': '⛔',
  ':warning:': '⚠️',
  ':white_check_mark:': '✅',
  ':eyes:': '👀',
  ':mute:': '🔇',
  ':grey_question:': '❔',
  ':information_source:': 'ℹ️',
  ':large_green_circle:': '🟢',
  ':red_circle:': '🔴',
  ':hourglass_flowing_sand:': '⏳',
  ':hourglass:': '⌛',
  ':link:': '🔗',
};

/**
 * Slack's markup first (dates show their UTC fallback, a user group its id, a link its text and URL), then emoji
 * codes and entities; what came from the cluster is escaped, so every < here is ours.
 */
export function unescapeMrkdwn(s: string): string {
  return s
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
    .replace(/<!subteam\^([A-Z0-9]+)>/g, '@$1')
    .replace(/<(https?:[^|>]+)\|([^>]*)>/g, '$2 ($1)')
    .replace(/:[a-z_]+:/g, (m) => EMOJI[m] ?? m)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Unescaped mrkdwn (unescapeMrkdwn) as lines: code fences become indented lines, *bold* and `code` markers go. */
export function plainLines(s: string): string[] {
  const out: string[] = [];
  let inCode = false;
  for (const raw of s.split('\n')) {
    const fences = (raw.match(/```/g) ?? []).length;
    const line = raw.replace(/```/g, '');
    const code = inCode || fences > 0;
    out.push(code ? `  ${line}` : line.replace(/\*([^*\n]+)\*/g, '$1').replace(/`([^`\n]+)`/g, '$1'));
    if (fences % 2 === 1) inCode = !inCode;
  }
  return out;
}

/** The characters a reader sees of escaped mrkdwn `s` (newlines not counted). */
export function visibleLength(s: string): number {
  return plainLines(unescapeMrkdwn(s)).reduce((n, l) => n + Array.from(l).length, 0);
}

/**
 * The first of `lines` (escaped mrkdwn) that fit in `room` visible characters, whole, then "...and N more" for the
 * others; empty when not one line fits. Never a line cut mid-word.
 */
export function fitVisible(lines: readonly string[], room: number): string {
  const tail = (n: number): string => (n > 0 ? `\n...and ${n} more` : '');
  let kept = 0;
  let used = 0;
  for (const l of lines) {
    const after = used + visibleLength(l);
    if (after + tail(lines.length - kept - 1).length > room) break;
    used = after;
    kept++;
  }
  return kept === 0 ? '' : lines.slice(0, kept).join('\n') + tail(lines.length - kept);
}
