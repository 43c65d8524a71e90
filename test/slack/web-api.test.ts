// The WebClient adapter against the fake Slack over real HTTP: arguments as Slack receives them, and errors mapped
// to RwxError codes with the right retryability.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { incidentMetadata } from '../../src/slack/api.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import { type FakeSlack, startFakeSlack } from '../support/fake-slack.js';

const TOKEN = 'xoxb-secret-token-123';
let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());
const api = (): ReturnType<typeof createWebSlackApi> => createWebSlackApi({ token: TOKEN, slackApiUrl: fake.apiUrl });

describe('createWebSlackApi', () => {
  it('posts with metadata, finds the root by key, updates it, replies in thread', async () => {
    const slack = api();
    await slack.postMessage({ channel: 'C1', text: 'other' });
    const { ts } = await slack.postMessage({ channel: 'C1', text: 'root', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }], metadata: incidentMetadata('node/n1') });
    await slack.postMessage({ channel: 'C1', text: 'later', metadata: incidentMetadata('node/n2') });
    await slack.postMessage({ channel: 'C1', text: 'reply', threadTs: ts });
    expect(fake.callsOf('chat.postMessage')[1]).toMatchObject({ token: TOKEN, args: { channel: 'C1', metadata: { event_type: 'rwx_incident', event_payload: { key: 'node/n1' } } } });
    expect(await slack.findRootByIncidentKey('C1', 'node/n1')).toBe(ts);
    expect(await slack.findRootByIncidentKey('C1', 'node/none')).toBeUndefined();
    expect(fake.callsOf('conversations.history')[0]?.args.include_all_metadata).toBe('true');
    await slack.update({ channel: 'C1', ts, text: 'edited' });
    expect(fake.roots('C1').find((m) => m.ts === ts)?.text).toBe('edited');
    expect(fake.replies(ts)).toHaveLength(1);
  });

  it('pages through history to find an older root', async () => {
    const slack = createWebSlackApi({ token: TOKEN, slackApiUrl: fake.apiUrl, historyPages: 3 });
    const { ts } = await slack.postMessage({ channel: 'C1', text: 'root', metadata: incidentMetadata('k') });
    for (let i = 0; i < 250; i++) fake.messages.push({ channel: 'C1', ts: `${9_000_000_000 + i}.000001`, text: 'noise', edits: 0 });
    expect(await slack.findRootByIncidentKey('C1', 'k')).toBe(ts);
    expect(fake.callsOf('conversations.history')).toHaveLength(2);
  });

  it('uploads a file in three steps', async () => {
    const { fileId } = await api().uploadFile({ channel: 'C1', threadTs: '1.1', filename: 'report.txt', content: 'hello report' });
    expect(fake.files.get(fileId)?.bytes?.toString()).toBe('hello report');
    expect(fake.completedUploads[0]).toMatchObject({ channel_id: 'C1', thread_ts: '1.1', files: [{ id: fileId, title: 'report.txt' }] });
  });

  it('posts ephemeral messages', async () => {
    await api().postEphemeral({ channel: 'C1', user: 'U1', text: 'only you' });
    expect(fake.callsOf('chat.postEphemeral')[0]?.args).toMatchObject({ channel: 'C1', user: 'U1', text: 'only you' });
  });

  it.each([
    // 429 -> rate limited, retryable, Retry-After carried
    ['429', (f: FakeSlack) => f.rateLimit('chat.postMessage', 1, 7), { code: 'SLACK_RATE_LIMITED', retryable: true, retryAfterSeconds: 7 }],
    // 500 -> Slack's fault, retryable
    ['500', (f: FakeSlack) => f.serverError('chat.postMessage'), { code: 'SLACK_API', retryable: true }],
    // invalid_auth -> ours, not retryable
    ['invalid_auth', (f: FakeSlack) => f.platformError('chat.postMessage', 'invalid_auth'), { code: 'SLACK_API', retryable: false, message: 'chat.postMessage: invalid_auth' }],
    // message_not_found -> NOT_FOUND: the root was deleted
    ['message_not_found', (f: FakeSlack) => f.platformError('chat.postMessage', 'message_not_found'), { code: 'NOT_FOUND', retryable: false }],
    // channel_not_found -> ours, not retryable
    ['channel_not_found', (f: FakeSlack) => f.platformError('chat.postMessage', 'channel_not_found'), { code: 'SLACK_API', retryable: false }],
  ])('maps %s', async (_name, inject, want) => {
    inject(fake);
    const err = await api().postMessage({ channel: 'C1', text: 'x' }).catch((e: unknown) => e);
    expect(err).toMatchObject(want);
    expect(String((err as Error).message)).not.toContain(TOKEN);
  });

  it('maps an unreachable Slack to a retryable SLACK_API error', async () => {
    const slack = createWebSlackApi({ token: TOKEN, slackApiUrl: 'http://127.0.0.1:1/api/' });
    await expect(slack.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({ code: 'SLACK_API', retryable: true });
  });
});
