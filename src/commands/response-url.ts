// Posting a reply to a slash command's response_url. Slack accepts up to five posts within 30 minutes of the
// command; the URL arrives in a signed (HTTP) or authenticated (Socket Mode) request, and is still checked against
// an allowed origin before we send anything to it, so a bug elsewhere can never turn the bot into a web client for
// arbitrary URLs.
import { RwxError } from '../errors.js';
import type { CommandResponse } from './message.js';

/** Sends a response to a response_url. Throws RwxError SLACK_API (retryable on 5xx and network errors). */
export interface ResponseSender {
  send(responseUrl: string, body: CommandResponse): Promise<void>;
}

/** Whether a response_url may be posted to: https on *.slack.com, or one of `extraOrigins` (a fake's origin). */
export function responseUrlAllowed(url: string, extraOrigins: readonly string[] = []): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (extraOrigins.includes(u.origin)) return true;
  return u.protocol === 'https:' && (u.hostname === 'hooks.slack.com' || u.hostname.endsWith('.slack.com'));
}

/** A ResponseSender over fetch. `extraOrigins`: origins allowed besides Slack's (SLACK_API_URL's, in tests). */
export function fetchResponseSender(
  opts: { extraOrigins?: readonly string[]; timeoutMs?: number } = {},
): ResponseSender {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return {
    async send(responseUrl, body) {
      if (!responseUrlAllowed(responseUrl, opts.extraOrigins)) {
        throw new RwxError('SLACK_API', 'response_url is not a Slack URL; not posting to it', { retryable: false });
      }
      let res: Response;
      try {
        res = await fetch(responseUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        throw new RwxError('SLACK_API', 'response_url: request failed', { cause: e, retryable: true });
      }
      // Slack answers 404 "expired_url" / "used_url" when the 30 minutes or five uses are over: not retryable.
      if (!res.ok)
        throw new RwxError('SLACK_API', `response_url: HTTP ${res.status}`, {
          retryable: res.status >= 500 || res.status === 429,
        });
      await res.body?.cancel();
    },
  };
}
