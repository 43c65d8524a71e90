// The Bolt app over real transports: signed HTTP requests to /slack/events, and Socket Mode through a fake
// apps.connections.open + ws server. Button clicks act on real incident records (in-memory store).
import { createHmac } from 'node:crypto';
import { LogLevel } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { createIncidentActions } from '../../src/notify/actions.js';
import { DEFAULT_TIMERS } from '../../src/notify/decide.js';
import { DEFAULT_MESSAGE_OPTIONS } from '../../src/notify/deps.js';
import { recordEvaluation } from '../../src/notify/record.js';
import { type StepDeps, processIncident } from '../../src/notify/steps-run.js';
import { MemoryIncidentStore } from '../support/memory-store.js';
import { ACTION_IDS } from '../../src/render/slack-blocks.js';
import type { AuditLine } from '../../src/slack/audit.js';
import { type SlackApp, createSlackApp } from '../../src/slack/app.js';
import { MemorySlack } from '../../src/slack/memory-slack.js';
import { type FakeSlack, startFakeSlack } from '../support/fake-slack.js';
import { type FakeSocketMode, startFakeSocketMode } from '../support/fake-socket-mode.js';
import { FIXTURE_NOW, rolloutIncident } from '../render/incident-fixtures.js';

const SECRET = 'test-signing-secret';
// Socket Mode logs a WebSocket error when the test tears the fake server down; keep test output clean.
const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};
const KEY = 'rollout/kube-system/ebs-csi-node@2';
let fake: FakeSlack;
let deps: StepDeps;
let slack: MemorySlack;
let built: SlackApp | undefined;

beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(() => fake.close());
beforeEach(async () => {
  fake.reset();
  const clock = new ManualClock(FIXTURE_NOW);
  slack = new MemorySlack();
  deps = {
    store: new MemoryIncidentStore(clock),
    slack,
    messages: DEFAULT_MESSAGE_OPTIONS,
    timers: { ...DEFAULT_TIMERS, groupWait: 0 },
    clock,
    lockTtlMs: 30_000,
    closedTtlMs: 86_400_000,
  };
  await recordEvaluation({ store: deps.store, channel: 'C1', groupWait: 0 }, [rolloutIncident()], clock.now());
  await processIncident(deps, KEY);
});
afterEach(async () => {
  await built?.stop();
  built = undefined;
});

function click(actionId: string, user = 'U1ALICE', responseId = 'r1'): Record<string, unknown> {
  return {
    type: 'block_actions',
    team: { id: 'T0FAKE', domain: 'fake' },
    user: { id: user, username: 'alice', team_id: 'T0FAKE' },
    api_app_id: 'A0FAKE',
    token: 'legacy',
    trigger_id: 't1',
    container: { type: 'message', message_ts: '1.1', channel_id: 'C1', is_ephemeral: false },
    channel: { id: 'C1', name: 'incidents' },
    response_url: fake.responseUrl(responseId),
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: 'rwx_incident_actions',
        value: KEY,
        action_ts: '1.2',
        text: { type: 'plain_text', text: 'x' },
      },
    ],
  };
}

async function post(
  port: number,
  payload: unknown,
  opts: { secret?: string; ageSeconds?: number } = {},
): Promise<number> {
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const ts = String(Math.floor(Date.now() / 1000) - (opts.ageSeconds ?? 0));
  const sig =
    'v0=' +
    createHmac('sha256', opts.secret ?? SECRET)
      .update(`v0:${ts}:${body}`)
      .digest('hex');
  const res = await fetch(`http://127.0.0.1:${port}/slack/events`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': ts,
      'x-slack-signature': sig,
    },
  });
  return res.status;
}

let audited: AuditLine[] = [];
async function startHttp(authorize?: (u: string) => Promise<boolean>): Promise<number> {
  audited = [];
  built = createSlackApp({
    botToken: 'xoxb-test',
    signingSecret: SECRET,
    port: 0,
    slackApiUrl: fake.apiUrl,
    actions: createIncidentActions(deps),
    clock: deps.clock,
    audit: (l) => audited.push(l),
    ...(authorize ? { authorize } : {}),
  });
  await built.start();
  return built.port!;
}

describe('createSlackApp (HTTP)', () => {
  it('a signed Acknowledge click is recorded and shown; the double click only gets an ephemeral note', async () => {
    const port = await startHttp();
    expect(await post(port, click(ACTION_IDS.ack))).toBe(200);
    await expect
      .poll(async () => (await deps.store.get(KEY))?.buttons.ack?.user, { timeout: 5000, interval: 10 })
      .toBe('U1ALICE');
    await expect
      .poll(() => JSON.stringify(slack.roots()[0]?.blocks), { timeout: 5000, interval: 10 })
      .toContain('Acknowledged by <@U1ALICE>');
    expect(await post(port, click(ACTION_IDS.ack, 'U2BOB', 'r2'))).toBe(200);
    await expect.poll(() => fake.responses.get('r2')?.length ?? 0, { timeout: 5000, interval: 10 }).toBe(1);
    expect(fake.responses.get('r2')?.[0]).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('Already acknowledged by <@U1ALICE>'),
    });
    expect((await deps.store.get(KEY))?.buttons.ack?.user).toBe('U1ALICE');
  });

  it('each click leaves one audit line, and Acknowledge/Mute/Resolve a line in the thread saying who and when', async () => {
    const port = await startHttp();
    const root = slack.roots()[0]!.ts;
    const before = slack.replies(root).length;
    for (const [i, action] of [ACTION_IDS.ack, ACTION_IDS.ack, ACTION_IDS.mute1h, ACTION_IDS.resolve].entries()) {
      expect(await post(port, click(action, 'U1ALICE', `r${i}`))).toBe(200);
      await expect.poll(() => audited.length, { timeout: 5000, interval: 10 }).toBe(i + 1);
    }
    expect(audited.map((l) => [l.audit, l.who, l.channel, l.action, l.incident, l.result])).toEqual([
      ['action', 'U1ALICE', 'C1', ACTION_IDS.ack, KEY, 'done'],
      ['action', 'U1ALICE', 'C1', ACTION_IDS.ack, KEY, 'already'], // the double click changes nothing
      ['action', 'U1ALICE', 'C1', ACTION_IDS.mute1h, KEY, 'done'],
      ['action', 'U1ALICE', 'C1', ACTION_IDS.resolve, KEY, 'done'],
    ]);
    for (const l of audited) expect(l.latency_ms).toBeGreaterThanOrEqual(0);
    const at = `<!date^${Math.floor(FIXTURE_NOW / 1000)}^{date_short_pretty} {time}|`;
    const notes = slack
      .replies(root)
      .slice(before)
      .map((m) => m.text)
      .filter((t) => /^:(eyes|mute|white_check_mark):/.test(t));
    expect(notes).toEqual([
      expect.stringMatching(new RegExp(`^:eyes: Acknowledged by <@U1ALICE> at ${escapeRe(at)}`)),
      expect.stringMatching(/^:mute: Muted by <@U1ALICE> at <!date\^.* until <!date\^/),
      expect.stringMatching(/^:white_check_mark: Resolved by <@U1ALICE> at <!date\^/),
    ]);
  });

  it('refused clicks are audited as refused', async () => {
    await startHttp(async () => false);
    const port = built!.port!;
    expect(await post(port, click(ACTION_IDS.resolve, 'U9EVE'))).toBe(200);
    await expect.poll(() => audited[0]?.result, { timeout: 5000, interval: 10 }).toBe('refused');
    expect(audited[0]).toMatchObject({ who: 'U9EVE', action: ACTION_IDS.resolve, incident: KEY });
  });

  it('Mute 4h and Resolve are recorded', async () => {
    const port = await startHttp();
    expect(await post(port, click(ACTION_IDS.mute4h))).toBe(200);
    await expect
      .poll(async () => (await deps.store.get(KEY))?.buttons.mute?.until, { timeout: 5000, interval: 10 })
      .toBe(FIXTURE_NOW + 4 * 3_600_000);
    expect(await post(port, click(ACTION_IDS.resolve))).toBe(200);
    await expect
      .poll(async () => (await deps.store.get(KEY))?.buttons.resolved?.by, { timeout: 5000, interval: 10 })
      .toBe('U1ALICE');
  });

  it.each([
    // signed with another secret
    ['a bad signature', { secret: 'wrong' }],
    // replayed: older than 5 minutes
    ['a stale timestamp', { ageSeconds: 6 * 60 }],
  ])('rejects %s and changes nothing', async (_name, opts) => {
    const port = await startHttp();
    expect(await post(port, click(ACTION_IDS.ack), opts)).toBe(401);
    expect((await deps.store.get(KEY))?.buttons.ack).toBeUndefined();
  });

  it('refuses politely when the clicker is not authorised', async () => {
    const port = await startHttp(async () => false);
    expect(await post(port, click(ACTION_IDS.resolve, 'U9EVE', 'r9'))).toBe(200);
    await expect.poll(() => fake.responses.get('r9')?.length ?? 0, { timeout: 5000, interval: 10 }).toBe(1);
    expect(fake.responses.get('r9')?.[0]).toMatchObject({ text: expect.stringContaining('not allowed') });
    expect((await deps.store.get(KEY))?.buttons.resolved).toBeUndefined();
  });

  it('needs a signing secret without an app token', () => {
    expect(() => createSlackApp({ botToken: 'xoxb', actions: createIncidentActions(deps) })).toThrow(
      /SLACK_SIGNING_SECRET/,
    );
  });
});

describe('createSlackApp (Socket Mode)', () => {
  let socket: FakeSocketMode;
  beforeEach(async () => {
    socket = await startFakeSocketMode();
    fake.socketModeUrl = socket.url;
  });
  afterEach(async () => {
    await built?.stop();
    built = undefined;
    await socket.close();
  });

  it('opens the connection through apps.connections.open, acks an interactive envelope and records the click', async () => {
    built = createSlackApp({
      botToken: 'xoxb-test',
      appToken: 'xapp-test',
      slackApiUrl: fake.apiUrl,
      actions: createIncidentActions(deps),
      clock: deps.clock,
      logger: quiet,
    });
    expect(built.mode).toBe('socket');
    await built.start();
    await socket.connected;
    expect(fake.callsOf('apps.connections.open')[0]?.token).toBe('xapp-test');
    const ack = await socket.send('interactive', click(ACTION_IDS.ack));
    expect(ack.envelope_id).toBeTypeOf('string');
    await expect
      .poll(async () => (await deps.store.get(KEY))?.buttons.ack?.user, { timeout: 5000, interval: 10 })
      .toBe('U1ALICE');
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
