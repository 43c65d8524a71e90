// MemorySlack (the demo's Slack, and pure tests') answers the lookups as the Web API client does against Slack: the
// same calls run against both, the client through the fake Slack server over HTTP. Covered: a root and a reply found
// by their metadata, the newest of two, none for another key; `sinceMs` (the crash-recovery lookup of a notice posted
// since an outage began); and the pages the client reads (one page of 200 here, for the history and a thread).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentMetadata, replyMetadata, type SlackApi } from '../../src/slack/api.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => {
  await fake.close();
});

type Adapter = [name: string, make: () => SlackApi];
const adapters: Adapter[] = [
  [
    'web',
    () => createWebSlackApi({ token: 'xoxb-contract', slackApiUrl: fake.apiUrl, historyPages: 1, threadPages: 1 }),
  ],
  ['memory', () => new MemorySlack({ historyLimit: 200, threadLimit: 200 })],
];

let channels = 0;
const channel = () => `C0CONTRACT${++channels}`;
const post = (api: SlackApi, ch: string, o: { key?: string; reply?: string; threadTs?: string } = {}) =>
  api.postMessage({
    channel: ch,
    text: 'x',
    ...(o.threadTs ? { threadTs: o.threadTs } : {}),
    ...(o.key ? { metadata: o.reply ? replyMetadata(o.key, o.reply) : incidentMetadata(o.key) } : {}),
  });
/** Resolves at the start of the next wall-clock second: Slack's ts (and the fake's) count seconds. */
const nextSecond = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));

describe.each(adapters)('%s Slack', (_name, make) => {
  it('finds a root and a reply by their metadata, the newest of two, none for another key', async () => {
    const api = make();
    const ch = channel();
    const root = (await post(api, ch, { key: 'node/node-7' })).ts;
    await post(api, ch, { key: 'node/node-8' });
    await post(api, ch, { key: 'node/node-7', reply: 'evidence', threadTs: root });
    const second = (await post(api, ch, { key: 'node/node-7', reply: 'evidence', threadTs: root })).ts;
    expect(await api.findRootByIncidentKey(ch, 'node/node-7')).toBe(root);
    expect(await api.findRootByIncidentKey(ch, 'node/node-9')).toBeUndefined();
    expect(await api.findThreadReply(ch, root, 'node/node-7', 'evidence')).toBe(second);
    expect(await api.findThreadReply(ch, root, 'node/node-7', 'change:1')).toBeUndefined();
  });

  it('a root posted before sinceMs is not found; one posted since is', async () => {
    const api = make();
    const ch = channel();
    await post(api, ch, { key: 'notice/before' });
    await nextSecond();
    const since = Math.floor(Date.now() / 1000) * 1000; // the fake's ts are whole seconds and a sequence number
    const after = (await post(api, ch, { key: 'notice/after' })).ts;
    expect(await api.findRootByIncidentKey(ch, 'notice/before', since)).toBeUndefined();
    expect(await api.findRootByIncidentKey(ch, 'notice/after', since)).toBe(after);
    expect(await api.findRootByIncidentKey(ch, 'notice/before')).toBeDefined();
  });

  it('reads as many pages as the client: a root or reply beyond them is not found', async () => {
    const api = make();
    const ch = channel();
    const root = (await post(api, ch, { key: 'rollout/a' })).ts;
    await post(api, ch, { key: 'rollout/a', reply: 'early', threadTs: root });
    for (let i = 0; i < 199; i++) await post(api, ch, { threadTs: root });
    await post(api, ch, { key: 'rollout/a', reply: 'late', threadTs: root });
    for (let i = 0; i < 200; i++) await post(api, ch);
    expect(await api.findRootByIncidentKey(ch, 'rollout/a')).toBeUndefined();
    expect(await api.findThreadReply(ch, root, 'rollout/a', 'early')).toBeDefined();
    expect(await api.findThreadReply(ch, root, 'rollout/a', 'late')).toBeUndefined();
  });
});
