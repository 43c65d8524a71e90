// Which OAuth scope each Slack Web API method the bot calls needs. test/deploy/slack-app.test.ts greps src/
// for every method called and fails when one is missing here, and fails when a bot scope listed here is missing
// from deploy/slack-app-manifest.yaml: the manifest asks for exactly what the code uses.

/** Which token a method is called with. */
export type TokenKind = 'bot' | 'app' | 'none';

/** The scopes one method needs. */
export interface MethodScopes {
  token: TokenKind;
  /** Every scope listed must be granted (some cover different channel types of the same call). */
  scopes: readonly string[];
  /**
   * Reads the incident channel: the one history scope of that channel's type (channels:history for a public
   * channel, groups:history for a private one), not both. Least privilege: see docs/slack-app.md.
   */
  channelScope?: { public: string; private: string };
  /** Why, when it is not obvious. */
  note?: string;
}

/** The incident channel's type, which decides the history scope. */
export type ChannelType = 'public' | 'private';

const HISTORY = { public: 'channels:history', private: 'groups:history' } as const;

/** Every Slack Web API method the bot calls, with the scopes it needs. */
export const SLACK_METHOD_SCOPES: Readonly<Record<string, MethodScopes>> = Object.freeze({
  'auth.test': { token: 'bot', scopes: [], note: 'Bolt calls it at start to learn the bot user ID' },
  'apps.connections.open': {
    token: 'app',
    scopes: ['connections:write'],
    note: 'Socket Mode, with the xapp- app-level token',
  },
  'chat.postMessage': {
    token: 'bot',
    scopes: ['chat:write'],
    note: 'incident roots and thread replies; the bot must be in the channel',
  },
  'chat.update': { token: 'bot', scopes: ['chat:write'], note: 'edits the incident root' },
  'chat.postEphemeral': { token: 'bot', scopes: ['chat:write'], note: 'refusals and private answers' },
  'chat.getPermalink': {
    token: 'bot',
    scopes: [],
    note: '/rwx status links each thread; "No scope required" for bot tokens (api.slack.com/methods/chat.getPermalink)',
  },
  'conversations.history': {
    token: 'bot',
    scopes: [],
    channelScope: HISTORY,
    note: 'finds an incident root by its metadata after a crash mid-post or a Redis loss, oldest bounded by the record',
  },
  'conversations.replies': {
    token: 'bot',
    scopes: [],
    channelScope: HISTORY,
    note: 'finds a thread reply by its metadata after a crash mid-post, so it is not posted twice',
  },
  'conversations.open': { token: 'bot', scopes: ['im:write'], note: 'DM for a full triage report asked for privately' },
  'files.getUploadURLExternal': { token: 'bot', scopes: ['files:write'], note: 'full triage report as a file' },
  'files.completeUploadExternal': { token: 'bot', scopes: ['files:write'] },
  'files.upload': { token: 'bot', scopes: ['files:write'], note: 'retired by Slack; named only as a metrics label' },
  'usergroups.users.list': { token: 'bot', scopes: ['usergroups:read'], note: 'RWX_ALLOWED_USERGROUPS membership' },
} satisfies Record<string, MethodScopes>);

/** Bot scopes that no Web API method needs but a feature does. */
export const FEATURE_SCOPES: Readonly<Record<string, string>> = Object.freeze({
  commands: 'the /rwx slash command',
});

/** The sorted, de-duplicated bot scopes the app must request for an incident channel of type `channel`. */
export function requiredBotScopes(channel: ChannelType = 'public'): string[] {
  const all = new Set<string>(Object.keys(FEATURE_SCOPES));
  for (const m of Object.values(SLACK_METHOD_SCOPES)) {
    if (m.token !== 'bot') continue;
    for (const s of m.scopes) all.add(s);
    if (m.channelScope) all.add(m.channelScope[channel]);
  }
  return [...all].sort();
}
