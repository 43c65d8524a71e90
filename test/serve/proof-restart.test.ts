// The recovery check from the nodes survives a restart: an incident opened by one process and cleared while the
// bot was down is resolved by the next one, whose agents are asked again about the incident's nodes (read from its
// record in Redis), so the resolution says whether the mounts are visible from the host again. Real Redis, the
// simulator over HTTP, the fake Slack, and simulated agents over HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulatedAgents, type SimulatedAgents } from '../../src/agent/simulated.js';
import { healthyReport, lostReport } from '../agent/report-fixtures.js';
import { harness, type Harness } from './harness.js';
import { until } from '../support/until.js';

const SCENARIO = 'scenarios/propagation-loss.yaml';
let h: Harness | undefined;
let agents: SimulatedAgents | undefined;
afterEach(async () => {
  await h?.close();
  await agents?.stop();
  h = agents = undefined;
});

describe('rwx serve restarted while an incident clears', () => {
  it('asks the agents of the open incident again and says the mounts are visible from the host', async () => {
    let broken = true; // node plugin revision 2 holds the mounts in its own namespace until the rollback
    const asked: string[] = [];
    agents = await startSimulatedAgents({
      reportFor: (node) => {
        asked.push(node);
        return broken ? lostReport(node) : healthyReport(node);
      },
    });
    const proof = { proof: { locate: (n: string) => ({ kind: 'agent' as const, url: agents!.urlFor(n) }) } };
    h = await harness(SCENARIO);
    await h.start(proof);
    await h.advance(1_000);
    await until(() => asked.length > 0, 'the agents asked');
    await h.advance(1_000);
    await until(() => /propagation lost/.test(JSON.stringify(h!.slack.roots()[0]?.blocks)), 'the proof in the root');
    const root = h.slack.roots()[0]!;

    // Down through the rollback: the stuck pods recover while no bot runs, and the mounts are visible again.
    await h.serve!.stop();
    broken = false;
    await h.sim.advance(31 * 60_000);
    const before = asked.length;
    await h.start(proof);
    for (let i = 0; i < 5; i++) await h.advance(60_000);
    await until(() => h!.slack.replies(root.ts).some((r) => /resolved/i.test(r.text)), 'the resolution reply');
    const reply = JSON.stringify(h.slack.replies(root.ts).find((r) => /resolved/i.test(r.text))?.blocks);
    expect(asked.length).toBeGreaterThan(before);
    expect(reply).toMatch(/Checked again from the nodes\*: the mounts are visible from the host on 4 nodes checked/);
    expect(reply).not.toMatch(/not checked again/);
  });
});
