// A Bolt app in HTTP mode with /rwx wired to a real BullMQ queue on local Redis, in a world without a cluster
// (test/support/world.ts: the fake Slack, Web API and response_url recorder, and a Redis prefix of its own), and a
// sender that tells the test when a response_url answer has gone out.
import {
  commandsHook,
  fetchResponseSender,
  type CommandServices,
  type CommandSetup,
  type ResponseSender,
} from '../../src/commands/index.js';
import type { CommandResponse } from '../../src/commands/message.js';
import { systemClock } from '../../src/domain/clock.js';
import type { IncidentActions } from '../../src/domain/actions.js';
import { createSlackApp, type SlackApp } from '../../src/slack/app.js';
import { createWebSlackApi } from '../../src/slack/web-api.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { startFakeSocketMode, type FakeSocketMode } from '../support/fake-socket-mode.js';
import { sign, slashFields } from '../support/slash-command.js';
import { REDIS_URL, SIGNING_SECRET, openWorld } from '../support/world.js';

/** Buttons are not under test here: every action answers "unknown". */
const NO_ACTIONS: IncidentActions = {
  acknowledge: async () => ({ status: 'unknown', message: 'no such incident' }),
  mute: async () => ({ status: 'unknown', message: 'no such incident' }),
  resolve: async () => ({ status: 'unknown', message: 'no such incident' }),
};
const { hostname, port } = new URL(REDIS_URL);
const REDIS = { host: hostname, port: Number(port || 6379), maxRetriesPerRequest: null };

/** Resolves each time a response_url answer has been sent. */
export class SentLog implements ResponseSender {
  readonly sent: { url: string; body: CommandResponse }[] = [];
  private waiters: (() => void)[] = [];
  constructor(private readonly inner: ResponseSender) {}
  async send(url: string, body: CommandResponse): Promise<void> {
    await this.inner.send(url, body);
    this.sent.push({ url, body });
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }
  /** Resolves once at least `n` answers have been sent. */
  async until(n: number): Promise<void> {
    while (this.sent.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }
}

/** A running app under test. */
export interface Harness {
  fake: FakeSlack;
  app: SlackApp;
  sent: SentLog;
  /** Socket Mode only: the fake WebSocket server the app connected to. */
  socket?: FakeSocketMode;
  /** HTTP only: POSTs a slash command to /slack/events, signed unless told otherwise. */
  command(
    fields: Record<string, string>,
    opts?: { ts?: number; secret?: string; signature?: string },
  ): Promise<{ status: number; body: string }>;
  /** HTTP only: POSTs `body` as it is, signed now (or with `headers`, to replay a request); answers its headers. */
  raw(
    body: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: string; headers: Record<string, string> }>;
  close(): Promise<void>;
}

/** The form fields of a slash command from U0ALICE in #incidents (C0INC). */
export function commandFields(fake: FakeSlack, fields: Record<string, string> = {}): Record<string, string> {
  return { ...slashFields({ channel: 'C0INC', text: '', responseUrl: fake.responseUrl('r1') }), ...fields };
}

// The headers Slack sends with a form body signed at `ts` (seconds).
function signedHeaders(ts: number, signature: string): Record<string, string> {
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': signature,
  };
}

// POSTs `body` to the app's events endpoint as it is.
async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, body: await res.text() };
}

/** Starts the real app (createSlackApp) with /rwx wired in, over HTTP or Socket Mode. */
export async function startHarness(
  services: CommandServices,
  access: { allowedChannels: string[]; allowedUsergroups: string[] },
  mode: 'http' | 'socket' = 'http',
  extra: Partial<CommandSetup> = {},
): Promise<Harness> {
  const world = await openWorld({ name: 'test-cmd', cluster: false });
  const { slack: fake, prefix } = world;
  const socket = mode === 'socket' ? await startFakeSocketMode() : undefined;
  if (socket) fake.socketModeUrl = socket.url;
  const sent = new SentLog(fetchResponseSender({ extraOrigins: [fake.origin] }));
  const hook = commandsHook({
    access,
    services,
    redis: { connection: REDIS, prefix },
    sender: sent,
    botToken: 'xoxb-test',
    slackApiUrl: fake.apiUrl,
    slack: createWebSlackApi({ token: 'xoxb-test', slackApiUrl: fake.apiUrl }),
    ...extra,
  });
  const app = createSlackApp({
    botToken: 'xoxb-test',
    slackApiUrl: fake.apiUrl,
    actions: NO_ACTIONS,
    clock: systemClock,
    registerCommands: hook.register,
    ...(socket ? { appToken: 'xapp-test' } : { signingSecret: SIGNING_SECRET, port: 0 }),
  });
  await app.start();
  if (socket) await socket.connected;
  const url = `http://127.0.0.1:${app.port ?? 0}/slack/events`;
  return {
    fake,
    app,
    sent,
    ...(socket ? { socket } : {}),
    async command(fields, opts = {}) {
      const body = new URLSearchParams(commandFields(fake, fields)).toString();
      const ts = opts.ts ?? Math.floor(Date.now() / 1000);
      const signature = opts.signature ?? sign(opts.secret ?? SIGNING_SECRET, ts, body);
      const { status, body: answer } = await post(url, body, signedHeaders(ts, signature));
      return { status, body: answer };
    },
    async raw(body, given) {
      const ts = Math.floor(Date.now() / 1000);
      const headers = given ?? signedHeaders(ts, sign(SIGNING_SECRET, ts, body));
      return { ...(await post(url, body, headers)), headers };
    },
    async close() {
      await app.stop();
      await hook.close();
      await socket?.close();
      await world.close(); // the fake Slack, and the command queue's keys under the prefix
    },
  };
}
