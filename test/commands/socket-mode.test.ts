// /rwx over Socket Mode against the local fake: apps.connections.open hands out the fake's ws:// URL, the app
// connects, a slash_commands envelope arrives, the app acks it (the ack payload is the ephemeral "working" note or
// the refusal), and the answer goes to the response_url.
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandServices } from '../../src/commands/index.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { systemClock } from '../../src/domain/clock.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import { RwxError } from '../../src/errors.js';
import { commandFields, startHarness, type Harness } from './harness.js';

function services(): CommandServices {
  const index = ClusterIndex.fromSnapshot(emptySnapshot());
  return {
    clock: systemClock,
    cluster: { index: () => index },
    triage: () => {
      throw new RwxError('INTERNAL', 'not used');
    },
    evaluate: () => ({
      incidents: [],
      drain: () => {
        throw new RwxError('INTERNAL', 'not used');
      },
    }),
    openIncidents: async () => [
      { key: 'node/node-7', title: 'node-7', verdict: 'FOLLOWS_NODE', channel: 'C0INC', threadTs: '1764000001.000001' },
    ],
  };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('Socket Mode', () => {
  it('connects through apps.connections.open, acks the envelope, answers on the response_url', async () => {
    h = await startHarness(services(), { allowedChannels: ['C0INC'], allowedUsergroups: [] }, 'socket');
    expect(h.fake.callsOf('apps.connections.open')).toHaveLength(1);
    expect(h.fake.callsOf('apps.connections.open')[0]?.token).toBe('xapp-test'); // the app-level token, not the bot's
    const ack = await h.socket!.send(
      'slash_commands',
      commandFields(h.fake, { text: 'status', response_url: h.fake.responseUrl('sm') }),
    );
    expect(ack.payload).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('Working on the open incidents'),
    });
    await h.sent.until(1);
    const [answer] = h.fake.responses.get('sm') as { text: string }[];
    expect(answer?.text).toContain('<https://slack.com/archives/C0INC/p1764000001000001|node-7> · _follows a node_');
  });

  it('refuses in a channel that is not allowed, in the ack', async () => {
    h = await startHarness(services(), { allowedChannels: ['C0INC'], allowedUsergroups: [] }, 'socket');
    const ack = await h.socket!.send(
      'slash_commands',
      commandFields(h.fake, { text: 'status', channel_id: 'C0ELSE', channel_name: 'else' }),
    );
    expect(ack.payload).toEqual({
      response_type: 'ephemeral',
      text: 'Sorry, `/rwx` does not answer in this channel. Please use it in <#C0INC>.',
    });
  });

  it('answers malformed text with usage in the ack', async () => {
    h = await startHarness(services(), { allowedChannels: ['C0INC'], allowedUsergroups: [] }, 'socket');
    const ack = await h.socket!.send('slash_commands', commandFields(h.fake, { text: 'drain <!everyone>' }));
    expect((ack.payload as { text: string }).text).toContain('"&lt;!everyone&gt;" is not a valid node name');
  });
});
