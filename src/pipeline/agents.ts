// Which node agents the pipeline keeps asking. The evaluation reads their current answers (sync.ts) and states
// the proof; this side only asks: the agents of each incident's proof nodes in the background (an answer that
// arrives runs the evaluation again), and, when an incident clears, the agents of every node it ever asked again,
// before the notifier's resolution facts read what they show now (resolution.ts). It never changes an incident.
import type { Incident } from '../domain/incident.js';
import { MAX_PROOF_NODES, type NodeReportState } from '../domain/proof.js';

/** The node agents' answers as the pipeline reads them (serve/proof.ts NodeProofs is the real one). */
export interface AgentAnswers {
  /** What is known of `node` now; never fetches. */
  stateOf(node: string): NodeReportState;
  /**
   * Asks the agents of `nodes` whose answer is missing or old, in the background; those of `again` (a stale
   * report, IncidentProof.askAgain) whatever the age of the answer.
   */
  want(nodes: readonly string[], again?: readonly string[]): void;
  /** Asks the agents of `nodes` again now; resolves when every answer is in (or timed out). */
  refresh(nodes: readonly string[]): Promise<void>;
}

/**
 * Per open incident key, the nodes its record says it had (history.nodes): those its resolution reads. Read once,
 * at the first submission, so an incident that clears while the bot was down (or before this replica took over)
 * still has its nodes asked again before the resolution says what they show.
 */
export type OpenIncidentNodes = () => Promise<ReadonlyMap<string, readonly string[]>>;

/** The nodes each open incident asked (bounded), kept from one submission to the next. */
export class AskedNodes {
  // Until the first submission it is the records' (openNodes); a failed read leaves it empty, as after a restart.
  private asked: Map<string, string[]> | undefined;
  // Incidents the notifier kept open though the last evaluation did not report them (the keep-firing window):
  // their nodes were asked again when they went, and are again only once they come back and go.
  private kept = new Set<string>();

  constructor(
    private readonly agents: AgentAnswers,
    private readonly openNodes?: OpenIncidentNodes,
  ) {
    if (!openNodes) this.asked = new Map();
  }

  /** Before `incidents` are submitted: asks their proof nodes, and the nodes of the ones that cleared again. */
  async before(incidents: readonly Incident[]): Promise<void> {
    const was = (this.asked ??= await this.seeded());
    const keys = new Set(incidents.map((i) => i.key));
    const cleared = [...was].filter(([k]) => !keys.has(k) && !this.kept.has(k)).flatMap(([, nodes]) => nodes);
    if (cleared.length) await this.agents.refresh([...new Set(cleared)]);
    const next = new Map<string, string[]>();
    for (const incident of incidents) {
      const nodes = incident.proof?.nodes ?? [];
      if (nodes.length === 0) continue;
      this.agents.want(nodes, incident.proof?.askAgain);
      const before = was.get(incident.key) ?? [];
      next.set(incident.key, [...new Set([...before, ...nodes])].slice(0, MAX_PROOF_NODES));
    }
    this.pending = next;
  }

  /** After the submission: `kept` (its answer) stay asked for until they come back and go. */
  after(kept: readonly Incident[]): void {
    const was = this.asked ?? new Map<string, string[]>();
    const next = this.pending ?? new Map<string, string[]>();
    this.kept = new Set(kept.map((i) => i.key));
    for (const k of this.kept) if (!next.has(k) && was.has(k)) next.set(k, was.get(k)!);
    this.asked = next;
    this.pending = undefined;
  }

  private pending: Map<string, string[]> | undefined;

  private async seeded(): Promise<Map<string, string[]>> {
    const open = await this.openNodes!().catch(() => new Map<string, readonly string[]>());
    return new Map([...open].map(([k, nodes]) => [k, nodes.slice(0, MAX_PROOF_NODES)]));
  }
}
