// Asking the node agents (docs/agent.md) about an incident's nodes, for the serve pipeline. The agents are found
// among the pods the bot already watches (AGENT_LABELS on the node), their /report fetched from the pod IP with
// a timeout, a few at a time, and kept per node for a short TTL. Fetching never blocks an evaluation: a node
// asked for the first time is "pending", and the evaluation runs again when its answer arrives (onUpdate). A
// failure is a state ("proof unavailable: <reason>"), never an exception and never a claim about the node.
import type { Clock } from '../domain/clock.js';
import { systemClock } from '../domain/clock.js';
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { NodeReportState, NodeReports } from '../domain/proof.js';
import { toRwxError } from '../errors.js';
import { fetchReport, REPORT_TIMEOUT_MS, type FetchedReport } from '../agent/client.js';
import { agentPodOf, agentTarget, isAgentPod, type AgentTarget } from '../agent/locate.js';

/** Tunables of NodeProofs, with the defaults in PROOF_DEFAULTS. */
export interface NodeProofOptions {
  /** Where each node's agent is (default: agentsInIndex over the watched pods). */
  locate: (node: string) => AgentTarget;
  /** Fetches one report (default fetchReport). */
  fetch?: (url: string, opts: { timeoutMs: number }) => Promise<FetchedReport>;
  /** How long a node's answer (a report or a failure) is used before asking again. */
  ttlMs?: number;
  /** Time allowed for one /report request. */
  timeoutMs?: number;
  /** Requests in flight at once, over all nodes. */
  concurrency?: number;
  clock?: Clock;
  /** Called when an answer arrives, so the evaluation runs again (the pipeline enqueues a correlation). */
  onUpdate?: () => void;
}

/** Defaults: a minute of cache, 5 s per request, 4 requests at once. */
export const PROOF_DEFAULTS = { ttlMs: 60_000, timeoutMs: REPORT_TIMEOUT_MS, concurrency: 4 } as const;

/** The agent pod on each node, read from the watched pods (labels AGENT_LABELS). O(pods on the node). */
export function agentsInIndex(index: () => ClusterIndex | undefined): (node: string) => AgentTarget {
  return (node) => agentTarget((index()?.podsOnNode(node) ?? []).filter(isAgentPod).map(agentPodOf));
}

/** The nodes an agent pod runs on among the watched pods, sorted. O(pods). */
export function agentNodesIn(index: ClusterIndex): string[] {
  const nodes = new Set<string>();
  for (const p of index.all('pods')) if (p.spec?.nodeName && isAgentPod(p)) nodes.add(p.spec.nodeName);
  return [...nodes].sort();
}

/**
 * What the agents of `nodes` answer, for a triage or a drain check: each asked unless its answer is fresher than
 * the TTL, waited for (each request has its timeout). Nodes beyond MAX_ASKED are not asked, and say so (at `at`).
 */
export async function askAgents(nodes: readonly string[], proofs: NodeProofs, at: number): Promise<NodeReports> {
  const asked = nodes.slice(0, MAX_ASKED);
  await proofs.current(asked);
  const states = new Map<string, NodeReportState>(asked.map((n) => [n, proofs.stateOf(n)]));
  for (const n of nodes.slice(MAX_ASKED))
    states.set(n, { kind: 'unavailable', reason: `not asked: more than ${MAX_ASKED} nodes run an agent`, at });
  return { kind: 'asked', states };
}

/** The most agents one triage or drain check asks. */
export const MAX_ASKED = 500;

type Answer = Extract<NodeReportState, { kind: 'report' | 'unavailable' }>;

/** The node agents' answers, cached per node; see the file comment. */
export class NodeProofs {
  private readonly answers = new Map<string, Answer>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly waiting: (() => void)[] = [];
  private active = 0;
  private readonly ttlMs: number;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly clock: Clock;
  private readonly fetch: NonNullable<NodeProofOptions['fetch']>;

  constructor(private readonly opts: NodeProofOptions) {
    this.ttlMs = opts.ttlMs ?? PROOF_DEFAULTS.ttlMs;
    this.timeoutMs = opts.timeoutMs ?? PROOF_DEFAULTS.timeoutMs;
    this.concurrency = Math.max(1, opts.concurrency ?? PROOF_DEFAULTS.concurrency);
    this.clock = opts.clock ?? systemClock;
    this.fetch = opts.fetch ?? fetchReport;
  }

  /** Sets what is told when an answer arrives (the pipeline, once it exists). */
  onUpdate(f: () => void): void {
    this.opts.onUpdate = f;
  }

  /** What is known of `node` now: its last answer (even past the TTL), no agent, or pending. Never fetches. */
  stateOf(node: string): NodeReportState {
    const target = this.opts.locate(node);
    if (target.kind === 'no-agent') return { kind: 'no-agent' };
    if (target.kind === 'not-serving') return { kind: 'unavailable', reason: target.reason, at: this.clock.now() };
    return this.answers.get(node) ?? { kind: 'pending' };
  }

  /**
   * Asks the agents of `nodes` whose answer is missing or older than the TTL, in the background; those of `again`
   * (their report is older than the node plugin pod now running) whatever the answer's age. A request in flight
   * is joined, never doubled.
   */
  want(nodes: readonly string[], again: readonly string[] = []): void {
    const now = this.clock.now();
    const asked = new Set(again);
    for (const node of nodes) {
      const a = this.answers.get(node);
      if (a && now - a.at < this.ttlMs && !asked.has(node)) continue;
      void this.ask(node);
    }
  }

  /**
   * Asks the agents of `nodes` again now, whatever the cache holds, and resolves when every answer is in (each
   * request has its timeout; one that could not even start within two timeouts is recorded as unavailable).
   * For the recovery: the resolution says what the nodes show after the incident cleared, not before.
   */
  async refresh(nodes: readonly string[]): Promise<void> {
    return this.settle(nodes, true);
  }

  /** Like refresh, but only the nodes whose answer is missing or older than the TTL are asked. */
  async current(nodes: readonly string[]): Promise<void> {
    const now = this.clock.now();
    const stale = nodes.filter((n) => {
      const a = this.answers.get(n);
      return !a || now - a.at >= this.ttlMs;
    });
    if (stale.length > 0) await this.settle(stale, false);
  }

  // Asks `nodes` (forced: whatever the cache holds) and waits for every answer, at most two timeouts.
  private async settle(nodes: readonly string[], force: boolean): Promise<void> {
    const asked = nodes.map((n) => this.ask(n, force));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 2 * this.timeoutMs)));
    const done = await Promise.race([Promise.all(asked).then(() => 'done' as const), deadline]);
    clearTimeout(timer);
    if (done === 'done') return;
    const at = this.clock.now();
    for (const n of nodes)
      if (this.inFlight.has(n))
        this.answers.set(n, { kind: 'unavailable', reason: 'the agent was not asked again in time', at });
  }

  /** What the agent on `node` answers now (asked afresh; /rwx node). Never throws. */
  async reportNow(node: string): Promise<NodeReportState> {
    await this.refresh([node]);
    return this.stateOf(node);
  }

  // One request for `node` (joined when one is in flight; `force` waits for it, then asks again).
  private async ask(node: string, force = false): Promise<void> {
    const running = this.inFlight.get(node);
    if (running && !force) return running;
    if (running) await running;
    const target = this.opts.locate(node);
    if (target.kind !== 'agent') return;
    const p = this.queued(node, target.url).finally(() => this.inFlight.delete(node));
    this.inFlight.set(node, p);
    return p;
  }

  // Runs the request when fewer than `concurrency` run; records the answer and tells onUpdate.
  private queued(node: string, url: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const start = (): void => {
        this.active++;
        this.fetch(url, { timeoutMs: this.timeoutMs })
          .then(
            ({ report }): Answer =>
              report.node === node
                ? { kind: 'report', report, at: this.clock.now() }
                : {
                    kind: 'unavailable',
                    reason: `the agent at ${url} reports node ${report.node}`,
                    at: this.clock.now(),
                  },
            (e: unknown): Answer => ({ kind: 'unavailable', reason: toRwxError(e).message, at: this.clock.now() }),
          )
          .then((a) => {
            this.answers.set(node, a);
            this.active--;
            this.waiting.shift()?.();
            resolve();
            this.opts.onUpdate?.();
          });
      };
      if (this.active < this.concurrency) start();
      else this.waiting.push(start);
    });
  }
}
