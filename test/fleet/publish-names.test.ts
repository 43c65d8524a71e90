// §3 a fleet routes from its first minute: each member publishes its names as soon as its cache is synced (not at
// the end of the first publishing period, here the default minute), so `/rwx drain <node>` right after start goes
// to the one cluster that has the node instead of asking "Which cluster?". Then on a change: a node added is
// routable within seconds, not a minute. publishDue's table below.
import { parseScenario } from '@rwx/kube-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishDue, PUBLISH_MIN_GAP_MS } from '../../src/fleet/names.js';
import { until } from '../support/until.js';
import { scenarioPath } from '../support/sim.js';
import { seeded } from '../support/fake-socket-mode.js';
import { command, startFleet, type Fleet } from './harness.js';

const EU_NODES = parseScenario(
  {
    name: 'eu',
    objects: ['eu-node-1', 'eu-node-2'].map((name) => ({
      kind: 'Node',
      metadata: { name, creationTimestamp: '-30d' },
    })),
  },
  'inline eu cluster',
);

let fleet: Fleet;
let n = 0;
async function ask(text: string, to: number): Promise<string> {
  const rid = `p${++n}`;
  await fleet.socket.send('slash_commands', command(fleet.slack, text, rid), { to });
  await until(() => (fleet.slack.responses.get(rid)?.length ?? 0) > 0, `the answer to ${text}`);
  return (fleet.slack.responses.get(rid)![0] as { text: string }).text;
}

beforeAll(async () => {
  // The default publishing period (a minute): only publishing at sync can route at once.
  fleet = await startFleet(
    [
      { name: 'staging-1', scenario: scenarioPath('propagation-loss') },
      { name: 'prod-eu-1', scenario: EU_NODES },
    ],
    { random: seeded(3), fleet: { publishMs: 60_000 } },
  );
}, 60_000);
afterAll(() => fleet?.close());

describe('a fleet routes from the first minute', () => {
  it('/rwx drain <node> right after start is answered by the cluster that has it', async () => {
    const t = Date.now();
    const a = await ask('drain eu-node-2', 1); // received by staging-1's bot
    expect(a).toMatch(/^From cluster \*prod-eu-1\*/);
    expect(a).not.toContain('Which cluster?');
    expect(Date.now() - t).toBeLessThan(10_000);
  });

  it('a node added later is routable within seconds (published on change)', async () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'eu-node-3', creationTimestamp: '2026-11-30T09:00:00Z' },
    };
    fleet.member('prod-eu-1').sim.apply({ add: [node] });
    const since = Date.now();
    await until(
      async () => /^From cluster \*prod-eu-1\*/.test(await ask('drain eu-node-3', 1)),
      'eu-node-3 routed',
      20_000,
    );
    expect(Date.now() - since).toBeLessThan(PUBLISH_MIN_GAP_MS + 5_000);
  }, 30_000);
});

describe('publishDue', () => {
  it.each([
    // Never published: at once (the cache just synced).
    [undefined, 'a', 0, true],
    // Unchanged, within the minute: not yet.
    [{ at: 0, signature: 'a' }, 'a', 59_000, false],
    // Unchanged, a minute on: republished (expiry, a same-count swap).
    [{ at: 0, signature: 'a' }, 'a', 60_000, true],
    // Changed, but right after the last: waits for the gap.
    [{ at: 0, signature: 'a' }, 'b', 1_000, false],
    // Changed, past the gap: at once.
    [{ at: 0, signature: 'a' }, 'b', PUBLISH_MIN_GAP_MS, true],
  ] as const)('last %j, signature %s at %i: %s', (last, sig, now, due) => {
    expect(publishDue(last, sig, now, 60_000)).toBe(due);
  });
});
