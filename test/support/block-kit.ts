// Block Kit checks for a message as posted (chat.postMessage / chat.update arguments): Slack's limits
// (https://api.slack.com/reference/block-kit/blocks), and what escaping must guarantee. Written from Slack's
// documentation, not from the renderers, so it can disagree with them: it returns every problem found.

/** Slack's limits the checks apply. */
export const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  contextText: 3000,
  contextElements: 10,
  headerText: 150,
  buttonText: 75,
  buttonUrl: 3000,
  actionsElements: 25,
  fallbackText: 4000,
} as const;

// The only things a '<' may open in our mrkdwn: a user or user group mention, a channel (by ID), a date, an
// http(s) link.
const CONTROL =
  /^<(@[UW][A-Z0-9]+|!subteam\^S[A-Z0-9]+|#[CGD][A-Z0-9]+|!date\^\d+\^[^|>]+\|[^<>]+|https?:\/\/[^\s<>|]+\|[^<>]*)>/;

/** Problems of one piece of text: an & that is not an entity, a < that opens anything but our control sequences. */
export function textProblems(text: string, where: string, mrkdwn: boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '&' && !/^&(amp|lt|gt);/.test(text.slice(i))) out.push(`${where}: unescaped & at ${i}`);
    if (c === '<') {
      const m = mrkdwn ? CONTROL.exec(text.slice(i)) : null;
      if (!m) out.push(`${where}: unescaped < at ${i}: ${JSON.stringify(text.slice(i, i + 40))}`);
      else i += m[0].length - 1;
    }
  }
  if (mrkdwn && (text.match(/```/g) ?? []).length % 2 !== 0) out.push(`${where}: unbalanced code fence`);
  return out;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});
const textOf = (v: unknown): { type?: unknown; text: string } => {
  const t = obj(v);
  return { type: t.type, text: typeof t.text === 'string' ? t.text : '' };
};

/** Every problem of one message (its `text` and `blocks` as sent); empty when it passes. */
export function blockKitProblems(message: { text?: unknown; blocks?: unknown }, label = 'message'): string[] {
  const out: string[] = [];
  const fallback = typeof message.text === 'string' ? message.text : '';
  if (fallback.trim() === '') out.push(`${label}: no fallback text`);
  if (fallback.length > LIMITS.fallbackText) out.push(`${label}: fallback text ${fallback.length} > 4000`);
  out.push(...textProblems(fallback, `${label} text`, true));
  const blocks = Array.isArray(message.blocks) ? message.blocks : [];
  if (blocks.length > LIMITS.blocks) out.push(`${label}: ${blocks.length} blocks > 50`);
  const actionIds = new Set<string>();
  blocks.forEach((raw, i) => {
    const b = obj(raw);
    const where = `${label} block ${i} (${String(b.type)})`;
    switch (b.type) {
      case 'header': {
        const t = textOf(b.text);
        if (t.type !== 'plain_text') out.push(`${where}: header text is not plain_text`);
        if (t.text.length > LIMITS.headerText) out.push(`${where}: header ${t.text.length} > 150`);
        out.push(...textProblems(t.text, where, false));
        break;
      }
      case 'section': {
        const t = textOf(b.text);
        if (t.text.length > LIMITS.sectionText) out.push(`${where}: section text ${t.text.length} > 3000`);
        if (t.text.length === 0) out.push(`${where}: empty section text`);
        out.push(...textProblems(t.text, where, t.type === 'mrkdwn'));
        break;
      }
      case 'context': {
        const els = Array.isArray(b.elements) ? b.elements : [];
        if (els.length > LIMITS.contextElements) out.push(`${where}: ${els.length} elements > 10`);
        for (const e of els) {
          const t = textOf(e);
          if (t.text.length > LIMITS.contextText) out.push(`${where}: context text ${t.text.length} > 3000`);
          out.push(...textProblems(t.text, where, t.type === 'mrkdwn'));
        }
        break;
      }
      case 'actions': {
        const els = Array.isArray(b.elements) ? b.elements : [];
        if (els.length > LIMITS.actionsElements) out.push(`${where}: ${els.length} elements > 25`);
        for (const raw of els) {
          const e = obj(raw);
          const t = textOf(e.text);
          if (t.text.length > LIMITS.buttonText) out.push(`${where}: button text ${t.text.length} > 75`);
          out.push(...textProblems(t.text, where, false));
          const id = typeof e.action_id === 'string' ? e.action_id : '';
          if (!id) out.push(`${where}: button without action_id`);
          if (actionIds.has(id)) out.push(`${where}: action_id ${id} used twice`);
          actionIds.add(id);
          if (e.url !== undefined && (typeof e.url !== 'string' || !/^https:\/\//.test(e.url) || e.url.length > 3000))
            out.push(`${where}: button url is not an https URL of at most 3000 characters`);
        }
        break;
      }
      case 'divider':
        break;
      default:
        out.push(`${where}: a block type the checks do not know`);
    }
  });
  return out;
}
