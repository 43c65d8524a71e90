// A slash command as Slack sends it to a bot in HTTP mode: the form fields of `/rwx TEXT` from one user in one
// channel, POSTed to the bot's /slack/events and signed with the app's signing secret (v0 HMAC-SHA256 of
// "v0:TS:BODY"). The answer arrives later on `responseUrl` (the fake Slack's, so tests read it there).
import { createHmac, randomBytes } from 'node:crypto';

/** What one signed `/rwx` request needs. */
export interface SlashCommand {
  /** The bot's Slack endpoint, e.g. http://127.0.0.1:PORT/slack/events. */
  url: string;
  secret: string;
  channel: string;
  text: string;
  /** Where the bot answers (FakeSlack.responseUrl(id)). */
  responseUrl: string;
  user?: string;
  /** false: no signature headers at all (what the bot must refuse). Default true. */
  signed?: boolean;
}

/** The form fields Slack sends for `/rwx TEXT` from `user` (default U0ALICE) in `channel`, answered on `responseUrl`. */
export function slashFields(
  c: Pick<SlashCommand, 'channel' | 'text' | 'responseUrl' | 'user'>,
): Record<string, string> {
  return {
    token: 'legacy',
    team_id: 'T0FAKE',
    team_domain: 'fake',
    channel_id: c.channel,
    channel_name: 'incidents',
    user_id: c.user ?? 'U0ALICE',
    user_name: 'alice',
    command: '/rwx',
    text: c.text,
    api_app_id: 'A0RWX',
    trigger_id: randomBytes(8).toString('hex'),
    response_url: c.responseUrl,
  };
}

/** Signs a body the way Slack does: v0=HMAC-SHA256(secret, "v0:ts:body"). */
export function sign(secret: string, ts: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
}

/** POSTs the command, signed now unless told not to; resolves with the bot's HTTP acknowledgement. */
export async function postSlashCommand(c: SlashCommand): Promise<{ status: number; body: string }> {
  const body = new URLSearchParams(slashFields(c)).toString();
  const ts = Math.floor(Date.now() / 1000);
  const res = await fetch(c.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(c.signed === false
        ? {}
        : { 'x-slack-request-timestamp': String(ts), 'x-slack-signature': sign(c.secret, ts, body) }),
    },
    body,
  });
  return { status: res.status, body: await res.text() };
}
