// Each /rwx command is counted once, by name and outcome, where its fate is known: help and usage by the listener
// (answered in the ack), refusals by the listener, the work by the worker (ok, or error when the reply says it
// failed). Real Bolt app over HTTP, real BullMQ on Redis, fake Slack.
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandName, CommandServices } from '../../src/commands/index.js';
import { auditCommands, type CommandOutcome } from '../../src/commands/observe.js';
import type { AuditLine } from '../../src/slack/audit.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { systemClock } from '../../src/domain/clock.js';
import { emptySnapshot } from '../../src/domain/snapshot.js';
import { RwxError } from '../../src/errors.js';
import { until } from '../support/until.js';
import { startHarness, type Harness } from './harness.js';

const index = ClusterIndex.fromSnapshot(emptySnapshot());
const services: CommandServices = {
  clock: systemClock,
  cluster: { index: () => index },
  triage: () => {
    throw new RwxError('KUBE_API', 'the cache is not synced');
  },
  evaluate: () => ({
    incidents: [],
    drain: (node) => {
      throw new RwxError('NOT_FOUND', `node ${node} not found`);
    },
  }),
  openIncidents: async () => [],
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('command outcomes', () => {
  it('counts help, usage, a refusal, a status answered and a triage that failed, once each', async () => {
    const seen: [CommandName, CommandOutcome][] = [];
    h = await startHarness(services, { allowedChannels: ['C0INC'], allowedUsergroups: [] }, 'http', {
      observe: (c, o) => seen.push([c, o]),
    });
    await h.command({ text: 'help' });
    await h.command({ text: 'frobnicate' });
    await h.command({ text: 'status', channel_id: 'C0RANDOM', channel_name: 'random' });
    await h.command({ text: 'status', response_url: h.fake.responseUrl('s') });
    await h.command({ text: 'triage', response_url: h.fake.responseUrl('t') });
    await h.sent.until(2);
    await until(() => seen.length >= 5, 'five outcomes');
    expect(seen.slice(0, 3)).toEqual([
      ['help', 'ok'],
      ['usage', 'ok'],
      ['status', 'refused'],
    ]);
    expect(seen.slice(3).sort()).toEqual([
      ['status', 'ok'],
      ['triage', 'error'], // answered, honestly, with "that did not work"
    ]);
  });

  it('leaves one audit line per command: who, channel, command and text, result, latency', async () => {
    const lines: AuditLine[] = [];
    h = await startHarness(services, { allowedChannels: ['C0INC'], allowedUsergroups: [] }, 'http', {
      observe: auditCommands(
        () => undefined,
        (l) => lines.push(l),
      ),
    });
    await h.command({ text: 'help' });
    await h.command({ text: 'status', channel_id: 'C0RANDOM', channel_name: 'random', user_id: 'U0EVE' });
    await h.command({ text: 'status', response_url: h.fake.responseUrl('s') });
    await h.sent.until(1);
    await until(() => lines.length >= 3, 'three audit lines');
    expect(lines.map(({ latency_ms: _, ...l }) => l)).toEqual([
      { audit: 'command', who: 'U0ALICE', channel: 'C0INC', command: 'help', text: 'help', result: 'ok' },
      { audit: 'command', who: 'U0EVE', channel: 'C0RANDOM', command: 'status', text: 'status', result: 'refused' },
      { audit: 'command', who: 'U0ALICE', channel: 'C0INC', command: 'status', text: 'status', result: 'ok' },
    ]);
    for (const l of lines) expect(l.latency_ms).toBeGreaterThanOrEqual(0);
  });
});
