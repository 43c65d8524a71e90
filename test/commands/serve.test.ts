// The wiring `rwx serve` uses (commandsForServe): Config, the bot's Redis, the watcher's ClusterIndex (here the
// simulator's propagation-loss state), createSlackApp in HTTP mode, and the real engines. A signed
// `/rwx drain node-19` is acknowledged and then answered BLOCK on the response_url.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandsForServe } from '../../src/commands/serve.js';
import { loadConfig } from '../../src/config/index.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { IncidentActions } from '../../src/domain/actions.js';
import { createSlackApp, type SlackApp } from '../../src/slack/app.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { SIM_START, simSnapshot } from '../support/sim.js';
import { postSlashCommand } from '../support/slash-command.js';
import { REDIS_URL, SIGNING_SECRET, openWorld, type World } from '../support/world.js';

const unknown = async () => ({ status: 'unknown' as const, message: 'no such incident' });
const NO_ACTIONS: IncidentActions = { acknowledge: unknown, mute: unknown, resolve: unknown };

let world: World;
let fake: FakeSlack;
let redis: Redis;
let app: SlackApp;
let close: () => Promise<void>;

beforeAll(async () => {
  world = await openWorld({ name: 'test-serve', clock: new ManualClock(SIM_START) });
  const { sim } = world;
  fake = world.slack;
  redis = new Redis(REDIS_URL);
  const config = loadConfig({ env: world.env({ SLACK_CHANNEL: 'C0INC' }) });
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
    signingSecret: SIGNING_SECRET,
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
  await redis?.quit();
  await world?.close(); // the fake Slack, the simulator, and the command queue's keys under the prefix
});

async function post(text: string, id: string): Promise<string> {
  const res = await postSlashCommand({
    url: `http://127.0.0.1:${app.port}/slack/events`,
    secret: SIGNING_SECRET,
    channel: 'C0INC',
    text,
    responseUrl: fake.responseUrl(id),
  });
  expect(res.status).toBe(200);
  return res.body;
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
