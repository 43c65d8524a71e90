// The node agents' answers for `rwx triage` on the live cluster: the agent pods listed through the API (one list,
// by label, every namespace), each asked at its pod IP as `rwx node` does, all within a few seconds. From a
// machine that cannot reach pod IPs every answer is "unavailable" with the reason: the triage says so, and stands.
import type { NodeReports } from '../domain/proof.js';
import { toRwxError } from '../errors.js';
import type { AgentPod } from '../agent/locate.js';
import type { ApiConnection } from '../kube/connect.js';

/** Time allowed for one agent's /report from the CLI (all are asked at once: the triage waits at most twice this). */
export const CLI_AGENT_TIMEOUT_MS = 3000;

/** Why a triage of a snapshot has no proof from the nodes. */
export const SNAPSHOT_NOT_ASKED =
  'a snapshot was read, so no node agent was asked (triage the live cluster for proof from the nodes)';

/**
 * The agents' answers (see the file comment), of every node or of `node` only (`rwx drain-check`); `conn`
 * undefined: a snapshot, nothing asked. Never throws.
 */
export async function cliNodeReports(
  conn: ApiConnection | undefined,
  now: number,
  node?: string,
): Promise<NodeReports> {
  if (!conn) return { kind: 'not-asked', reason: SNAPSHOT_NOT_ASKED };
  // Loaded only when agents are asked: the report's schema (zod, 95 modules) was a third of a snapshot triage's
  // start, which asks no agent.
  const [{ agentTarget, listAgentPods }, { NodeProofs, askAgents }] = await Promise.all([
    import('../agent/locate.js'),
    import('../serve/proof.js'),
  ]);
  let pods: AgentPod[];
  try {
    pods = await listAgentPods(conn, node);
  } catch (e) {
    return { kind: 'not-asked', reason: `the agent pods could not be listed: ${toRwxError(e).message}` };
  }
  const byNode = new Map<string, AgentPod[]>();
  for (const p of pods) if (p.node) byNode.set(p.node, [...(byNode.get(p.node) ?? []), p]);
  const proofs = new NodeProofs({
    locate: (n) => agentTarget(byNode.get(n) ?? []),
    timeoutMs: CLI_AGENT_TIMEOUT_MS,
    concurrency: 16,
  });
  return askAgents([...byNode.keys()].sort(), proofs, now);
}
