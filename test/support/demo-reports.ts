// Test helper: a bundled scenario in the simulator at offset 0, its cluster index, and the demo's simulated node
// agents' answers for some of its nodes, fetched over HTTP as the bot asks them (src/serve/demo-agents.ts).
import { fetchReport } from '../../src/agent/client.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { NodeReports } from '../../src/domain/proof.js';
import { startDemoAgents } from '../../src/serve/demo-agents.js';
import { scenarioPath, simSnapshot, testSim } from './sim.js';

/** The scenario `name` at offset 0 and the simulated agents' reports of `nodes` (`broken`: plugin revision hashes). */
export async function withDemoAgents(name: string, nodes: string[], broken: string[] = []) {
  const { sim } = await testSim(scenarioPath(name));
  const index = ClusterIndex.fromSnapshot(simSnapshot(sim));
  const now = sim.now();
  const demo = await startDemoAgents(
    () => index,
    { brokenRevisionHashes: broken },
    () => now,
  );
  try {
    const states = new Map(
      await Promise.all(
        nodes.map(
          async (n) =>
            [n, { kind: 'report', report: (await fetchReport(demo.agents.urlFor(n))).report, at: now }] as const,
        ),
      ),
    );
    return { sim, index, now, reports: { kind: 'asked', states } as NodeReports };
  } finally {
    await demo.agents.stop();
  }
}
