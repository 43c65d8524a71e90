// The fake Socket Mode server with several bots connected: each envelope goes to one open connection (random, or
// the one named), the ack is recorded with the connection that sent it, and a dropped bot stops receiving.
import { afterEach, describe, expect, test } from 'vitest';
import { App, LogLevel } from '@slack/bolt';
import { WebSocket } from 'ws';
import { startFakeSlack, type FakeSlack } from './fake-slack.js';
import { seeded, startFakeSocketMode, type FakeSocketMode } from './fake-socket-mode.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A minimal Socket Mode client: acks every envelope, remembering the ids it saw. */
async function bot(server: FakeSocketMode): Promise<{ seen: string[]; ws: WebSocket }> {
  const ws = new WebSocket(server.url);
  const seen: string[] = [];
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { envelope_id?: string };
    if (!msg.envelope_id) return;
    seen.push(msg.envelope_id);
    ws.send(JSON.stringify({ envelope_id: msg.envelope_id }));
  });
  await new Promise((r) => ws.once('open', r));
  cleanup.push(async () => ws.terminate());
  return { seen, ws };
}

/** Bolt's logger, silenced: stopping an app closes its socket, which Bolt reports as an error. */
const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};

describe('fake Socket Mode with several bots', () => {
  test('each envelope reaches one random open connection; the ack names it', async () => {
    const server = await startFakeSocketMode({ random: seeded(7) });
    cleanup.push(() => server.close());
    const bots = [await bot(server), await bot(server), await bot(server)];
    await server.waitForConnections(3);
    const acks: { connection: number }[] = [];
    for (let i = 0; i < 30; i++) acks.push(await server.send('slash_commands', { command: '/rwx', text: `n${i}` }));
    const counts = [1, 2, 3].map((id) => acks.filter((a) => a.connection === id).length);
    expect(counts.every((n) => n > 0)).toBe(true);
    expect(counts.reduce((a, b) => a + b)).toBe(30);
    for (const d of server.deliveries) expect(d.ackedBy).toBe(d.to);
    expect(bots.map((b) => b.seen.length)).toEqual(counts);
    expect(server.connections.map((c) => c.acks)).toEqual(counts);
  });

  test('`to` picks the connection; a dropped bot gets nothing more, and an unacked envelope times out', async () => {
    const server = await startFakeSocketMode();
    cleanup.push(() => server.close());
    const one = await bot(server);
    await bot(server);
    await server.waitForConnections(2);
    expect((await server.send('interactive', {}, { to: 1 })).connection).toBe(1);
    server.drop(1);
    await new Promise((r) => one.ws.once('close', r));
    for (let i = 0; i < 5; i++) expect((await server.send('interactive', {})).connection).toBe(2);
    const silent = new WebSocket(server.url); // connects, never acks
    await new Promise((r) => silent.once('open', r));
    cleanup.push(async () => silent.terminate());
    await server.waitForConnections(2);
    await expect(server.send('interactive', {}, { to: 3, timeoutMs: 100 })).rejects.toThrow(/no ack/);
    expect(server.deliveries.at(-1)?.to).toBe(3);
    expect(server.deliveries.at(-1)?.ackedBy).toBeUndefined();
  });

  test('real Bolt apps: two connect through apps.connections.open and both receive commands', async () => {
    const fake: FakeSlack = await startFakeSlack();
    const server = await startFakeSocketMode({ random: seeded(3) });
    fake.socketModeUrl = server.url;
    cleanup.push(
      () => fake.close(),
      () => server.close(),
    );
    const answered: string[] = [];
    for (const [i, name] of ['cluster-a', 'cluster-b'].entries()) {
      const app = new App({
        token: 'xoxb-test',
        appToken: 'xapp-test',
        socketMode: true,
        logger: quiet,
        clientOptions: { slackApiUrl: fake.apiUrl },
        installerOptions: { clientOptions: { slackApiUrl: fake.apiUrl } },
      });
      app.command('/rwx', async ({ ack }) => {
        answered.push(name);
        await ack();
      });
      await app.start();
      cleanup.push(() => app.stop());
      await server.waitForConnections(i + 1);
    }
    const command = {
      command: '/rwx',
      text: 'status',
      user_id: 'U1',
      channel_id: 'C1',
      response_url: fake.responseUrl('r'),
    };
    for (let i = 0; i < 12; i++) await server.send('slash_commands', command);
    expect(new Set(answered)).toEqual(new Set(['cluster-a', 'cluster-b']));
    expect(fake.callsOf('apps.connections.open')).toHaveLength(2);
  });
});
