// Several replicas per cluster in a fleet still post one root per incident: they share the cluster's prefix (its
// records and locks), and the replicas of the other cluster post theirs; each command still reaches its cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { scenarioPath } from '../support/sim.js';
import { CHANNEL, command, startFleet, type Fleet } from './harness.js';

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet([
    { name: 'staging-1', scenario: scenarioPath('propagation-loss') },
    { name: 'staging-1', scenario: scenarioPath('propagation-loss'), replica: true },
    { name: 'prod-us-1', scenario: scenarioPath('node-fault') },
    { name: 'prod-us-1', scenario: scenarioPath('node-fault'), replica: true },
  ]);
}, 60_000);

afterAll(async () => {
  await fleet?.close();
});

describe('two replicas in each of two clusters', () => {
  it('one root per incident, and a command answered once, by its cluster', async () => {
    const keys = () => fleet.slack.roots(CHANNEL).map((m) => String(m.metadata?.event_payload.key ?? ''));
    await fleet.advance(1_000);
    await until(
      () => keys().some((k) => k.startsWith('staging-1:')) && keys().some((k) => k.startsWith('prod-us-1:')),
      'roots',
    );
    await fleet.advance(0);
    await new Promise((r) => setTimeout(r, 1000)); // any second root would have been posted by now
    expect(keys().filter((k) => k.startsWith('staging-1:rollout/'))).toHaveLength(1);
    expect(keys().filter((k) => k.startsWith('prod-us-1:node/'))).toHaveLength(1);
    expect(new Set(keys()).size).toBe(keys().length);
    for (const to of [1, 2, 3, 4]) {
      await fleet.socket.send('slash_commands', command(fleet.slack, 'drain node-07 @prod-us-1', `rep${to}`), { to });
      await until(() => (fleet.slack.responses.get(`rep${to}`)?.length ?? 0) > 0, 'the answer');
      await new Promise((r) => setTimeout(r, 100));
      const answers = fleet.slack.responses.get(`rep${to}`) as { text: string }[];
      expect(answers).toHaveLength(1);
      expect(answers[0]?.text).toMatch(/^From cluster \*prod-us-1\*/);
    }
  });
});
