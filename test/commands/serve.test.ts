// The wiring `rwx serve` uses (commandsForServe): Config, the bot's Redis, the watcher's ClusterIndex (here the
// simulator's propagation-loss state), createSlackApp in HTTP mode, and the real engines. A signed
// `/rwx drain node-19` is acknowledged and then answered BLOCK on the response_url.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_QUEUE } from '../../src/commands/index.js';
import { commandsForServe } from '../../src/commands/serve.js';
import { loadConfig } from '../../src/config/index.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { IncidentActions } from '../../src/domain/actions.js';
import { createSlackApp, type SlackApp } from '../../src/slack/app.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { SIM_START, simSnapshot } from '../support/sim.js';
import { commandFields, sign } from './harness.js';

const SECRET = 'serve-test-secret';
const unknown = async () => ({ status: 'unknown' as const, message: 'no such incident' });
const NO_ACTIONS: IncidentActions = { acknowledge: unknown, mute: unknown, resolve: unknown };

let sim: Simulator;
let fake: FakeSlack;
let redis: Redis;
let app: SlackApp;
let close: () => Promise<void>;
const prefix = `rwx-test-serve-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  sim = await startSimulator({ scenario: 'scenarios/propagation-loss.yaml', clock: new ManualClock(SIM_START) });
  fake = await startFakeSlack();
  redis = new Redis('redis://127.0.0.1:6379');
  const config = loadConfig({
    env: {
      SLACK_BOT_TOKEN: 'xoxb-serve',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_CHANNEL: 'C0INC',
      SLACK_API_URL: fake.apiUrl,
      RWX_REDIS_PREFIX: prefix,
    },
  });
  const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
  const hook = commandsForServe({
    config,
    index: () => index,
    redis,
    clock: new ManualClock(sim.now()),
    slack: createWebSlackApi({ token: config.slack.botToken, slackApiUrl: fake.apiUrl }),
  });
  close = hook.close;
  app = createSlackApp({
    botToken: config.slack.botToken,
    signingSecret: SECRET,
    port: 0,
    slackApiUrl: fake.apiUrl,
    actions: NO_ACTIONS,
    registerCommands: hook.register,
  });
  await app.start();
});

afterAll(async () => {
  await app?.stop();
  await close?.();
  const q = new Queue(COMMAND_QUEUE, { connection: { host: '127.0.0.1', port: 6379 }, prefix });
  await q.obliterate({ force: true });
  await q.close();
  await redis?.quit();
  await fake?.close();
  await sim?.stop();
});

async function post(text: string, id: string): Promise<string> {
  const body = new URLSearchParams(commandFields(fake, { text, response_url: fake.responseUrl(id) })).toString();
  const ts = Math.floor(Date.now() / 1000);
  const res = await fetch(`http://127.0.0.1:${app.port}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': sign(SECRET, ts, body),
    },
    body,
  });
  expect(res.status).toBe(200);
  return res.text();
}

describe('commandsForServe', () => {
  it('/rwx drain node-19 on the propagation-loss rollout: BLOCK on the response_url', async () => {
    expect(await post('drain node-19', 'n19')).toContain('Working on the drain check for node-19');
    await expect.poll(() => fake.responses.get('n19')?.length ?? 0, { timeout: 10_000 }).toBe(1);
    const [answer] = fake.responses.get('n19') as { text: string; response_type: string }[];
    expect(answer?.response_type).toBe('ephemeral');
    expect(answer?.text).toContain(':no_entry: *BLOCK*');
    expect(answer?.text).toMatch(/revision 2 \(new\): [1-9]\d* with stuck mounts, \d+ mounting fine\n/); // stuck mounts on revision 2...
    expect(answer?.text).toMatch(/revision 1 \(previous\): 0 with stuck mounts, \d+ mounting fine/); // ...and none on revision 1
  });

  it('/rwx drain node-02 (revision 1, nothing stuck): OK', async () => {
    await post('drain node-02 public', 'n02');
    await expect.poll(() => fake.responses.get('n02')?.length ?? 0, { timeout: 10_000 }).toBe(1);
    const [answer] = fake.responses.get('n02') as { text: string; response_type: string }[];
    expect(answer?.response_type).toBe('in_channel');
    expect(answer?.text).toContain(':white_check_mark: *OK*');
  });

  it('/rwx status reads the incident store in Redis (empty here)', async () => {
    await post('status', 'st');
    await expect.poll(() => fake.responses.get('st')?.length ?? 0, { timeout: 10_000 }).toBe(1);
    expect((fake.responses.get('st') as { text: string }[])[0]?.text).toContain('No open storage incidents');
  });
});
