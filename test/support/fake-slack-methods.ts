// The Web API methods the fake Slack answers, on the state it keeps (messages with their metadata, uploads, DMs,
// user groups). Faults are fake-slack.ts's business; this answers a call that got through.

/** A message as the fake stores it. */
export interface FakeMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  /** A thread reply posted with reply_broadcast: also shown in the channel (and its history). */
  broadcast?: boolean;
  edits: number;
}

/** The state the methods read and change. */
export interface FakeSlackState {
  readonly messages: FakeMessage[];
  readonly files: Map<string, { filename: string; bytes?: Buffer }>;
  readonly completedUploads: Record<string, unknown>[];
  readonly dms: Map<string, string[]>;
  readonly usergroups: Record<string, string[]>;
  readonly socketModeUrl: string;
  readonly origin: string;
  /** A new, unique, increasing message ts. */
  nextTs(): string;
  /** A new number for ids (files). */
  nextId(): number;
}

/** Slack's answer to `method` with `a` (always an object with `ok`). */
export function answerMethod(
  slack: FakeSlackState,
  method: string,
  a: Record<string, unknown>,
): Record<string, unknown> {
  const str = (k: string): string | undefined => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
  switch (method) {
    case 'auth.test':
      return {
        ok: true,
        url: 'https://fake.slack.test/',
        team: 'fake',
        user: 'rwx',
        team_id: 'T0FAKE',
        user_id: 'U0BOT',
        bot_id: 'B0BOT',
      };
    case 'chat.postMessage': {
      const channel = str('channel');
      if (!channel) return { ok: false, error: 'channel_not_found' };
      const ts = slack.nextTs();
      const m: FakeMessage = { channel, ts, text: str('text') ?? '', edits: 0 };
      if (str('thread_ts')) m.thread_ts = str('thread_ts');
      if (m.thread_ts && (a.reply_broadcast === true || a.reply_broadcast === 'true')) m.broadcast = true;
      if (Array.isArray(a.blocks)) m.blocks = a.blocks;
      if (a.metadata && typeof a.metadata === 'object') m.metadata = a.metadata as FakeMessage['metadata'];
      slack.messages.push(m);
      return { ok: true, channel, ts, message: { text: m.text, ts } };
    }
    case 'chat.update': {
      const m = slack.messages.find((x) => x.channel === str('channel') && x.ts === str('ts'));
      if (!m) return { ok: false, error: 'message_not_found' };
      m.text = str('text') ?? m.text;
      if (Array.isArray(a.blocks)) m.blocks = a.blocks;
      m.edits++;
      return { ok: true, channel: m.channel, ts: m.ts };
    }
    case 'chat.getPermalink': {
      // Like Slack's: a thread reply's link names its thread.
      const m = slack.messages.find((x) => x.channel === str('channel') && x.ts === str('message_ts'));
      if (!m) return { ok: false, error: str('channel') ? 'message_not_found' : 'channel_not_found' };
      const link = `https://fake.slack.com/archives/${m.channel}/p${m.ts.replace('.', '')}`;
      const thread = m.thread_ts ? `?thread_ts=${m.thread_ts}&cid=${m.channel}` : '';
      return { ok: true, channel: m.channel, permalink: link + thread };
    }
    case 'chat.postEphemeral':
      return { ok: true, message_ts: slack.nextTs() };
    case 'conversations.history': {
      const oldest = Number(str('oldest') ?? '0');
      const withMeta = a.include_all_metadata === true || a.include_all_metadata === 'true';
      // Roots, and thread replies broadcast to the channel (with their thread_ts, as Slack serves them).
      const list = slack.messages
        .filter(
          (m) => m.channel === str('channel') && (m.thread_ts === undefined || m.broadcast) && Number(m.ts) >= oldest,
        )
        .reverse();
      return messagePage(list, Number(a.limit ?? 100) || 100, str('cursor'), (m) => ({
        type: 'message',
        ts: m.ts,
        ...(m.thread_ts ? { thread_ts: m.thread_ts, subtype: 'thread_broadcast' } : {}),
        text: m.text,
        ...(m.blocks ? { blocks: m.blocks } : {}),
        ...(withMeta && m.metadata ? { metadata: m.metadata } : {}),
      }));
    }
    case 'conversations.replies': {
      // The parent first, then its replies, oldest first (as Slack serves them); thread_not_found when the
      // parent is not there.
      const channel = str('channel');
      const ts = str('ts');
      const parent = slack.messages.find((m) => m.channel === channel && m.ts === ts && m.thread_ts === undefined);
      if (!parent) return { ok: false, error: 'thread_not_found' };
      const withMeta = a.include_all_metadata === true || a.include_all_metadata === 'true';
      const list = [parent, ...slack.messages.filter((m) => m.channel === channel && m.thread_ts === ts)];
      return messagePage(list, Number(a.limit ?? 1000) || 1000, str('cursor'), (m) => ({
        type: 'message',
        ts: m.ts,
        thread_ts: ts,
        text: m.text,
        ...(m.blocks ? { blocks: m.blocks } : {}),
        ...(withMeta && m.metadata ? { metadata: m.metadata } : {}),
      }));
    }
    case 'files.getUploadURLExternal': {
      const id = `F${slack.nextId()}`;
      slack.files.set(id, { filename: str('filename') ?? 'file' });
      return { ok: true, upload_url: `${slack.origin}/upload/${id}`, file_id: id };
    }
    case 'files.completeUploadExternal':
      slack.completedUploads.push(a);
      return { ok: true, files: Array.isArray(a.files) ? a.files : [] };
    case 'usergroups.users.list': {
      const users = slack.usergroups[str('usergroup') ?? ''];
      return users ? { ok: true, users } : { ok: false, error: 'no_such_subteam' };
    }
    case 'conversations.open': {
      // One user: their DM with the bot ("D" + the user id's tail, stable across calls); several: a group DM.
      const users = (str('users') ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      if (users.length === 0 && !str('channel')) return { ok: false, error: 'users_list_not_supplied' };
      if (users.some((u) => !/^[UW][A-Z0-9]+$/.test(u))) return { ok: false, error: 'user_not_found' };
      const id =
        str('channel') ?? (users.length === 1 ? `D${users[0]!.slice(1)}` : `G${users.map((u) => u.slice(1)).join('')}`);
      const already = slack.dms.has(id);
      slack.dms.set(id, users);
      return { ok: true, ...(already ? { already_open: true } : {}), channel: { id } };
    }
    case 'apps.connections.open':
      return { ok: true, url: slack.socketModeUrl };
    default:
      return { ok: false, error: 'unknown_method' };
  }
}

/** One page of `list` as Slack pages history and replies: `cursor` is the offset of the next page. */
function messagePage(
  list: readonly FakeMessage[],
  limit: number,
  cursor: string | undefined,
  shape: (m: FakeMessage) => Record<string, unknown>,
): Record<string, unknown> {
  const start = Number(cursor ?? '0') || 0;
  const more = start + limit < list.length;
  return {
    ok: true,
    messages: list.slice(start, start + limit).map(shape),
    has_more: more,
    response_metadata: { next_cursor: more ? String(start + limit) : '' },
  };
}
