// The two Slack Web API calls only slash commands need (usergroups.users.list, conversations.open), behind the
// small interfaces authorize.ts and queue.ts own, plus the report uploader over the project's SlackApi.
// `client` is anything with WebClient's apiCall (Bolt's app.client), so no new Slack client is created here.
import { webApi } from '@slack/bolt';
import { RwxError } from '../errors.js';
import type { SlackApi } from '../slack/api.js';
import { mapSlackError } from '../slack/web-api.js';
import type { UsergroupDirectory } from './authorize.js';
import type { ReportUploader } from './queue.js';

/** The part of @slack/web-api's WebClient used here. */
export interface ApiCaller {
  apiCall(method: string, args?: Record<string, unknown>): Promise<unknown>;
}

/**
 * A WebClient that fails fast: no retries, rate limits rejected at once; `logger` receives its own log lines. Bolt's own app.client retries for
 * minutes, which would hold a slash command past Slack's 3 seconds; a refusal now is better than none.
 */
export function fastClient(token: string, slackApiUrl?: string, logger?: webApi.WebClientOptions['logger']): ApiCaller {
  return new webApi.WebClient(token, {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    ...(logger ? { logger } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 2500,
  });
}

async function call<T>(client: ApiCaller, method: string, args: Record<string, unknown>): Promise<T> {
  try {
    return (await client.apiCall(method, args)) as T;
  } catch (e) {
    throw mapSlackError(method, e);
  }
}

/** usergroups.users.list (needs the usergroups:read scope). */
export function webUsergroupDirectory(client: ApiCaller): UsergroupDirectory {
  return {
    async usersOf(usergroup) {
      const res = await call<{ users?: unknown }>(client, 'usergroups.users.list', { usergroup });
      if (!Array.isArray(res.users))
        throw new RwxError('SLACK_API', 'usergroups.users.list: response has no users', { retryable: false });
      return res.users.filter((u): u is string => typeof u === 'string');
    },
  };
}

/**
 * Uploads full reports: public replies share the file into the command's channel; private ones into the bot's
 * DM with the user (conversations.open, im:write), so nobody else sees a report the user asked for privately.
 */
export function slackReportUploader(slack: Pick<SlackApi, 'uploadFile'>, client: ApiCaller): ReportUploader {
  return {
    async upload(target, file) {
      let channel = target.channelId;
      if (!target.public && !channel.startsWith('D')) {
        const res = await call<{ channel?: { id?: string } }>(client, 'conversations.open', { users: target.userId });
        const id = res.channel?.id;
        if (!id)
          throw new RwxError('SLACK_API', 'conversations.open: response has no channel id', { retryable: false });
        channel = id;
      }
      await slack.uploadFile({ channel, filename: file.filename, title: file.title, content: file.content });
    },
  };
}
