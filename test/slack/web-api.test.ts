// The WebClient adapter against the fake Slack over real HTTP: arguments as Slack receives them, and errors mapped
// to RwxError codes with the right retryability.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { incidentMetadata, replyMetadata } from '../../src/slack/api.js';
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
    const { ts } = await slack.postMessage({
      channel: 'C1',
      text: 'root',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }],
      metadata: incidentMetadata('node/n1'),
    });
    await slack.postMessage({ channel: 'C1', text: 'later', metadata: incidentMetadata('node/n2') });
    await slack.postMessage({ channel: 'C1', text: 'reply', threadTs: ts });
    expect(fake.callsOf('chat.postMessage')[1]).toMatchObject({
      token: TOKEN,
      args: { channel: 'C1', metadata: { event_type: 'rwx_incident', event_payload: { key: 'node/n1' } } },
    });
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
    for (let i = 0; i < 250; i++)
      fake.messages.push({ channel: 'C1', ts: `${9_000_000_000 + i}.000001`, text: 'noise', edits: 0 });
    expect(await slack.findRootByIncidentKey('C1', 'k')).toBe(ts);
    expect(fake.callsOf('conversations.history')).toHaveLength(2);
  });

  it('finds a thread reply by incident key and reply id, and nothing in a thread without it', async () => {
    const slack = api();
    const { ts } = await slack.postMessage({ channel: 'C1', text: 'root', metadata: incidentMetadata('k') });
    const { ts: other } = await slack.postMessage({
      channel: 'C1',
      text: 'another root',
      metadata: incidentMetadata('k2'),
    });
    await slack.postMessage({ channel: 'C1', threadTs: ts, text: 'no metadata' });
    const { ts: evidence } = await slack.postMessage({
      channel: 'C1',
      threadTs: ts,
      text: 'evidence',
      metadata: replyMetadata('k', 'evidence'),
    });
    await slack.postMessage({
      channel: 'C1',
      threadTs: ts,
      text: 'other incident',
      metadata: replyMetadata('k2', 'change:1'),
    });
    await slack.postMessage({
      channel: 'C1',
      threadTs: other,
      text: 'same id, other thread',
      metadata: replyMetadata('k', 'change:1'),
    });
    expect(fake.callsOf('chat.postMessage')[3]?.args.metadata).toEqual({
      event_type: 'rwx_incident',
      event_payload: { key: 'k', reply: 'evidence' },
    });
    expect(await slack.findThreadReply('C1', ts, 'k', 'evidence')).toBe(evidence);
    expect(fake.callsOf('conversations.replies')[0]?.args).toMatchObject({
      channel: 'C1',
      ts,
      include_all_metadata: 'true',
    });
    // Another id, another incident's reply with that id, the same id in another thread: none is this reply.
    expect(await slack.findThreadReply('C1', ts, 'k', 'change:1')).toBeUndefined();
    expect(await slack.findThreadReply('C1', ts, 'k2', 'evidence')).toBeUndefined();
    // The root itself never counts as a reply, and a reply never as a root.
    expect(await slack.findThreadReply('C1', other, 'k2', 'change:1')).toBeUndefined();
    expect(await slack.findRootByIncidentKey('C1', 'k')).toBe(ts);
    // A thread whose root is gone has no reply in it.
    expect(await slack.findThreadReply('C1', '1.000001', 'k', 'evidence')).toBeUndefined();
  });

  it('pages through a long thread and returns the newest match', async () => {
    const slack = createWebSlackApi({ token: TOKEN, slackApiUrl: fake.apiUrl, threadPages: 3 });
    const { ts } = await slack.postMessage({ channel: 'C1', text: 'root', metadata: incidentMetadata('k') });
    await slack.postMessage({ channel: 'C1', threadTs: ts, text: 'first copy', metadata: replyMetadata('k', 'r') });
    for (let i = 0; i < 250; i++)
      fake.messages.push({ channel: 'C1', ts: `${9_000_000_000 + i}.000001`, thread_ts: ts, text: 'noise', edits: 0 });
    const { ts: newest } = await slack.postMessage({
      channel: 'C1',
      threadTs: ts,
      text: 'second copy',
      metadata: replyMetadata('k', 'r'),
    });
    expect(await slack.findThreadReply('C1', ts, 'k', 'r')).toBe(newest);
    expect(fake.callsOf('conversations.replies')).toHaveLength(2);
    // The bound holds: one page read, no match beyond it.
    const short = createWebSlackApi({ token: TOKEN, slackApiUrl: fake.apiUrl, threadPages: 1 });
    expect(await short.findThreadReply('C1', ts, 'k', 'r')).toBe(fake.replies(ts)[0]!.ts);
    expect(fake.callsOf('conversations.replies')).toHaveLength(3);
  });

  it('uploads a file in three steps', async () => {
    const { fileId } = await api().uploadFile({
      channel: 'C1',
      threadTs: '1.1',
      filename: 'report.txt',
      content: 'hello report',
    });
    expect(fake.files.get(fileId)?.bytes?.toString()).toBe('hello report');
    expect(fake.completedUploads[0]).toMatchObject({
      channel_id: 'C1',
      thread_ts: '1.1',
      files: [{ id: fileId, title: 'report.txt' }],
    });
  });

  it('posts ephemeral messages', async () => {
    await api().postEphemeral({ channel: 'C1', user: 'U1', text: 'only you' });
    expect(fake.callsOf('chat.postEphemeral')[0]?.args).toMatchObject({ channel: 'C1', user: 'U1', text: 'only you' });
  });

  it.each([
    // 429 -> rate limited, retryable, Retry-After carried
    [
      '429',
      (f: FakeSlack) => f.rateLimit('chat.postMessage', 1, 7),
      { code: 'SLACK_RATE_LIMITED', retryable: true, retryAfterSeconds: 7 },
    ],
    // 500 -> Slack's fault, retryable
    ['500', (f: FakeSlack) => f.serverError('chat.postMessage'), { code: 'SLACK_API', retryable: true }],
    // invalid_auth -> ours, not retryable
    [
      'invalid_auth',
      (f: FakeSlack) => f.platformError('chat.postMessage', 'invalid_auth'),
      { code: 'SLACK_API', retryable: false, message: 'chat.postMessage: invalid_auth' },
    ],
    // message_not_found -> NOT_FOUND: the root was deleted
    [
      'message_not_found',
      (f: FakeSlack) => f.platformError('chat.postMessage', 'message_not_found'),
      { code: 'NOT_FOUND', retryable: false },
    ],
    // channel_not_found, not_in_channel -> the bot cannot use the channel (named): not retryable, the worker waits
    [
      'channel_not_found',
      (f: FakeSlack) => f.platformError('chat.postMessage', 'channel_not_found'),
      { code: 'SLACK_CHANNEL', retryable: false, message: 'chat.postMessage: channel_not_found (channel C1)' },
    ],
    [
      'not_in_channel',
      (f: FakeSlack) => f.leave('C1'),
      { code: 'SLACK_CHANNEL', retryable: false, message: 'chat.postMessage: not_in_channel (channel C1)' },
    ],
  ])('maps %s', async (_name, inject, want) => {
    inject(fake);
    const err = await api()
      .postMessage({ channel: 'C1', text: 'x' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject(want);
    expect(String((err as Error).message)).not.toContain(TOKEN);
  });

  it('maps an unreachable Slack to a retryable SLACK_API error', async () => {
    const slack = createWebSlackApi({ token: TOKEN, slackApiUrl: 'http://127.0.0.1:1/api/' });
    await expect(slack.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({
      code: 'SLACK_API',
      retryable: true,
    });
  });

  it('gives up on a call Slack never answers after requestTimeoutMs (RWX_SLACK_REQUEST_TIMEOUT): retryable', async () => {
    fake.hang('chat.update', 1);
    const slack = createWebSlackApi({ token: TOKEN, slackApiUrl: fake.apiUrl, requestTimeoutMs: 300 });
    const t0 = Date.now();
    const err = await slack.update({ channel: 'C1', ts: '1.000001', text: 'x' }).catch((e: unknown) => e);
    const took = Date.now() - t0;
    expect(err).toMatchObject({ code: 'SLACK_API', retryable: true });
    expect(String((err as Error).message)).toMatch(/^chat\.update: request failed/);
    expect(took).toBeGreaterThanOrEqual(290); // the deadline, not an earlier failure
    expect(took).toBeLessThan(5_000); // and not the 10 s default
    expect(fake.answered('hung')).toHaveLength(1);
  });

  it('links a message (chat.getPermalink), and says NOT_FOUND for one that is gone', async () => {
    const slack = api();
    const { ts } = await slack.postMessage({ channel: 'C1', text: 'root', metadata: incidentMetadata('k') });
    expect(await slack.permalink('C1', ts)).toBe(`https://fake.slack.com/archives/C1/p${ts.replace('.', '')}`);
    expect(fake.callsOf('chat.getPermalink')[0]?.args).toMatchObject({ channel: 'C1', message_ts: ts });
    await expect(slack.permalink('C1', '1.000001')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('sends reply_broadcast only for a thread reply that asks, and the broadcast is never taken for a root', async () => {
    const slack = api();
    const { ts } = await slack.postMessage({ channel: 'C1', text: 'root', replyBroadcast: true });
    await slack.postMessage({ channel: 'C1', text: 'quiet', threadTs: ts });
    await slack.postMessage({
      channel: 'C1',
      text: 'resolved',
      threadTs: ts,
      replyBroadcast: true,
      metadata: replyMetadata('k', 'resolution'),
    });
    expect(fake.callsOf('chat.postMessage').map((c) => c.args.reply_broadcast)).toEqual([undefined, undefined, 'true']);
    // Slack shows the broadcast reply in the channel's history too (thread_ts set): it is not the incident's root.
    expect(await slack.findRootByIncidentKey('C1', 'k')).toBeUndefined();
  });
});
